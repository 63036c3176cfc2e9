"""The rows behind a report's figures, as CSV (one header line, one row per mapping)."""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def write_rows(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """Write ``rows`` to ``path``; the columns are the union of the rows' keys, in order."""
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns), restval="")
        writer.writeheader()
        writer.writerows(rows)
