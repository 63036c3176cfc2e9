"""Generate :mod:`iotwin.config.types`, the tuning config's static types, from the schema
(``data/config-schema.yaml``): one ``TypedDict`` per block, record and scope, so that a key the
schema gains is a key the type checker knows, and a key it loses is an error wherever it is
still read. ``python -m iotwin.config.typegen`` rewrites the module; a test checks that it
is current.

The types describe a *validated* config (:func:`iotwin.config.validation.validate_config`): sizes
are byte counts (``int``), never unit strings.
"""

from __future__ import annotations

import sys
from pathlib import Path

from iotwin.config.schema import Key, Schema, Scope, load_schema
from iotwin.formats.typegen import class_name, literal, module, typed_dict, write

OUTPUT = Path(__file__).with_name("types.py")

_SCALARS = {"int": "int", "size": "int", "bool": "bool", "string": "str",
            "string-map": "dict[str, str]", "int-list": "list[int]"}

_HEADER = '''"""The tuning config's types, generated from data/config-schema.yaml by
``python -m iotwin.config.typegen``: do not edit by hand.

A value of type :class:`Config` is a validated config (``validate_config``): every key the
schema allows, sizes as byte counts."""

from __future__ import annotations

from typing import Literal, Required, TypedDict
'''


def render(schema: Schema) -> str:
    classes: list[str] = []
    for block, keys in schema.blocks.items():
        classes += _records(keys, class_name(block))
        classes.append(_typed_dict(f"{class_name(block)}Settings", keys))
    for scope in reversed(list(schema.scopes.values())):
        classes.append(_scope_class(scope))
    return module(_HEADER, classes)


def _records(keys: dict[str, Key], prefix: str) -> list[str]:
    """The TypedDicts of a block's record and record-list keys (their own records first)."""
    found = []
    for key in keys.values():
        if key.type in ("record", "record-list"):
            found += _records(key.fields, prefix + class_name(key.name))
            found.append(_typed_dict(prefix + class_name(key.name), key.fields))
    return found


def _typed_dict(name: str, keys: dict[str, Key], prefix: str | None = None,
                extra: dict[str, str] | None = None, base: str = "TypedDict") -> str:
    owner = name.removesuffix("Settings") if prefix is None else prefix
    rows = [(key_name, annotation, False) for key_name, annotation in (extra or {}).items()]
    rows += [(key.name, _annotation(key, owner), key.required) for key in keys.values()]
    return typed_dict(name, rows, base)


def _annotation(key: Key, owner: str) -> str:
    if key.type == "enum":
        return literal(key.values)
    if key.type == "record":
        return owner + class_name(key.name)
    if key.type == "record-list":
        return f"list[{owner + class_name(key.name)}]"
    if key.type == "size" and key.values:
        return f"int | {literal(key.values)}"
    return _SCALARS[key.type]


def _scope_class(scope: Scope) -> str:
    """A scope's class; one whose block's keys stand inline (a dataset rule) over that block's
    settings class."""
    extra = {block: f"{class_name(block)}Settings" for block in scope.blocks}
    extra |= {name: f"list[{_scope_name(entries)}]" for name, entries in scope.lists.items()}
    if scope.inline:
        return _typed_dict(_scope_name(scope.name), dict(scope.keys), extra=extra,
                           prefix=class_name(scope.inline),
                           base=f"{class_name(scope.inline)}Settings")
    return _typed_dict(_scope_name(scope.name), dict(scope.keys), extra=extra,
                       prefix=_scope_name(scope.name))


def _scope_name(scope: str) -> str:
    return {"top": "Config", "file": "FileRule", "dataset": "DatasetRule"}[scope]


def main() -> int:
    return write(OUTPUT, render(load_schema()))


if __name__ == "__main__":
    sys.exit(main())
