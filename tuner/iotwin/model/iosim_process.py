"""How iosim is run as a process (sim-models/IOSIM.md): its command line, and its output."""

from __future__ import annotations

import json
from typing import Any

from iotwin.core import paths


def argv(jobs: int, simulator: str | None = None) -> list[str]:
    """iosim reading its input from stdin with ``jobs`` worker processes."""
    return [simulator or str(paths.simulator_binary()), "--jobs", str(jobs), "-"]


def results(stdout: str) -> list[dict[str, Any]]:
    """One entry per config, in input order."""
    return list(json.loads(stdout)["results"])
