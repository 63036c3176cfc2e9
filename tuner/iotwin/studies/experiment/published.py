"""Published figures an experiment sets beside its cells (a CSV of platform, kernel, cores,
setting, metric, value, unit)."""

from __future__ import annotations

from pathlib import Path

from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.formats.bounds import load_bounds, shown
from iotwin.formats.tables import count_field, decimal_number, table_rows


def published_path(name: str) -> Path:
    path = Path(name)
    return path if path.is_absolute() else paths.repo_root() / path


def load_published(name: str | None) -> dict[tuple[str, str, int, str], float]:
    """Published rates (MB/s) by (platform, kernel, cores, setting), lower-case names."""
    if not name:
        return {}
    path = published_path(name)
    found = {}
    for line, row in table_rows(path, _PUBLISHED_COLUMNS, "published figures"):
        if row["metric"] != "rate" or row["unit"] != "MB/s":
            continue
        where = f"{path}:{line}"
        rate = decimal_number(row["value"])
        bound = load_bounds()["io_rate"]
        if not bound.contains(rate):
            raise UserError(f"{where}: value: {bound.refusal(shown(row['value']), 'MB/s')}")
        key = (row["platform"].lower(), row["kernel"].lower(),
               count_field(row["cores"], "processes", where, "cores"), row["setting"])
        found[key] = rate
    return found


#: the columns of a published figures table an experiment reads
_PUBLISHED_COLUMNS = ("platform", "kernel", "cores", "setting", "metric", "value", "unit")
