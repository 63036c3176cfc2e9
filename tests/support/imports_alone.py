"""Import each module named on the command line as if it were imported alone, all in this one
interpreter: before each import, every module of its top-level package is dropped from
``sys.modules``, so the package's own imports run from scratch in the order that module sets
(an import cycle, or a module that needs another imported first, fails as in a fresh
interpreter). Other packages stay loaded: that is what makes one interpreter for every module
cheaper than one interpreter each.

    python imports_alone.py MODULE...

Prints one JSON object on its last line: each module -> its error, or null."""

from __future__ import annotations

import importlib
import json
import sys
import traceback


def forget_package(module: str) -> None:
    package = module.split(".", 1)[0]
    for name in [name for name in sys.modules if name.split(".", 1)[0] == package]:
        del sys.modules[name]


def import_alone(module: str) -> str | None:
    """``None`` if ``module`` imports from a fresh start of its package, else the error."""
    forget_package(module)
    try:
        importlib.import_module(module)
    except Exception:   # any failure of the import is the finding
        return traceback.format_exc()
    return None


if __name__ == "__main__":
    print(json.dumps({module: import_alone(module) for module in sys.argv[1:]}))
