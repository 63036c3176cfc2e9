"""Reading the YAML files users write (experiments, workloads, platforms, suites, calibration
designs), with errors that name the file, and the line or the key."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import yaml

from iotwin.core.errors import UserError


def describe_yaml_error(error: yaml.YAMLError) -> str:
    """'line N: malformed YAML: problem', as one line."""
    mark = getattr(error, "problem_mark", None)
    where = f"line {mark.line + 1}: " if mark else ""
    problem = getattr(error, "problem", None) or str(error)
    return f"{where}malformed YAML: {problem}"


def read_yaml(path: Path, what: str) -> Any:
    """The parsed content of ``path``; UserError naming the file if unreadable, not UTF-8 or
    malformed."""
    try:
        return yaml.safe_load(path.read_text())
    except OSError as error:
        raise UserError(f"{path}: cannot read the {what}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise UserError(f"{path}: cannot read the {what}: not UTF-8 text (byte "
                        f"0x{error.object[error.start]:02x} at offset {error.start})") from None
    except yaml.YAMLError as error:
        raise UserError(f"{path}: {describe_yaml_error(error)}") from None


def check_keys(data: Any, allowed: Collection[str], origin: str, where: str = "",
               required: Collection[str] = ()) -> Mapping[str, Any]:
    """``data`` itself if it is a mapping whose keys are all ``allowed`` and include every
    ``required`` one; else UserError naming the file (``origin``) and the key path."""
    if not isinstance(data, dict):
        raise UserError(f"{origin}: {where or 'top level'}: expected a mapping")
    prefix = f"{where}." if where else ""
    for key in data:
        if key not in allowed:
            raise UserError(f"{origin}: {prefix}{key}: unknown key (expected one of "
                            f"{', '.join(allowed)})")
    for key in required:
        if key not in data:
            raise UserError(f"{origin}: {prefix}{key}: missing")
    return data
