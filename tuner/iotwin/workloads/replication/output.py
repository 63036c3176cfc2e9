"""Writing a workload file all at once: a failed run leaves no partial file behind."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from iotwin.core.errors import UserError


def workload_text(work: Mapping[str, Any]) -> str:
    return yaml.safe_dump(work, sort_keys=False, default_flow_style=None, width=100)


def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file next to ``path``, then rename it into place; UserError
    naming ``path`` if it cannot be written."""
    try:
        _write_then_rename(path, text)
    except OSError as error:
        raise UserError(f"{path}: cannot write: {error.strerror}") from error


def _write_then_rename(path: Path, text: str) -> None:
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes it private; a workload is not
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
