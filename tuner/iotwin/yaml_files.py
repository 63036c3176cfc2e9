"""Reading the YAML files users write (experiments, workloads, platforms), with errors that
name the file and the line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from iotwin.errors import UserError


def describe_yaml_error(error: yaml.YAMLError) -> str:
    """'line N: malformed YAML: problem', as one line."""
    mark = getattr(error, "problem_mark", None)
    where = f"line {mark.line + 1}: " if mark else ""
    problem = getattr(error, "problem", None) or str(error)
    return f"{where}malformed YAML: {problem}"


def read_yaml(path: Path, what: str) -> Any:
    """The parsed content of ``path``; UserError naming the file if unreadable or malformed."""
    try:
        return yaml.safe_load(path.read_text())
    except OSError as error:
        raise UserError(f"{path}: cannot read the {what}: {error.strerror}") from None
    except yaml.YAMLError as error:
        raise UserError(f"{path}: {describe_yaml_error(error)}") from None
