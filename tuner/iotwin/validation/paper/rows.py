"""The published rows of the paper validation: ``validation/paper/published-measurements.csv``
(Table 4 of "Taming parallel I/O complexity with auto-tuning" at 128 cores, and the H5Tuner
poster at 512 cores), and the tuned parameters a row quotes as a tuning config."""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotwin.config.types import Config
from iotwin.config.validation import validate_config
from iotwin.core.errors import UserError
from iotwin.core.units import parse_size

#: the settings of a row that the platform models are fitted to
FITTED_SETTINGS = ("default", "tuned")
#: the settings of a row that give the spread of runtimes over the space (the poster's)
SPREAD_SETTINGS = ("min_observed", "max_observed")

#: (source, platform, kernel, cores): the experiment a row belongs to
CaseKey = tuple[str, str, str, int]


@dataclass(frozen=True)
class PublishedRow:
    """One row of published-measurements.csv."""

    source: str
    platform: str
    kernel: str
    cores: int
    data_written: str
    setting: str
    metric: str
    value: float
    unit: str
    tuned_parameters: str

    @property
    def case(self) -> CaseKey:
        """The experiment a default / tuned / min / max row belongs to."""
        return (self.source, self.platform, self.kernel, self.cores)

    @property
    def model(self) -> str:
        """The platform model (sim-models/platforms/MODEL.yaml) the row is simulated on."""
        return self.platform.lower()

    @property
    def label(self) -> str:
        return f"{self.platform} {self.kernel} {self.cores} {self.setting}"

    @property
    def data_bytes(self) -> int:
        """The papers' "32 GB" is 32 GiB (Table 2: 128 x 8M particles x 32 B)."""
        return parse_size(self.data_written.replace(" ", ""))

    @property
    def rate_mbs(self) -> float:
        """The row as a rate in MB/s (10^6 B/s); runtimes are converted with its data size."""
        if self.metric == "rate":
            return self.value
        return self.data_bytes / 1e6 / self.value


def read_published(path: Path) -> list[PublishedRow]:
    try:
        with path.open(newline="") as stream:
            records = list(csv.DictReader(stream))
    except OSError as error:
        raise UserError(f"{path}: {error}") from error
    return [_published_row(record, path, line) for line, record in enumerate(records, start=2)]


def _published_row(record: Mapping[str, str], path: Path, line: int) -> PublishedRow:
    try:
        row = PublishedRow(
            source=record["source"], platform=record["platform"], kernel=record["kernel"],
            cores=int(record["cores"]), data_written=record["data_written"],
            setting=record["setting"], metric=record["metric"],
            value=float(record["value"]), unit=record["unit"],
            tuned_parameters=record["tuned_parameters"] or "")
    except (KeyError, TypeError, ValueError) as error:
        raise UserError(f"{path}:{line}: not a published-measurement row: {error}") from error
    expected_unit = {"rate": "MB/s", "runtime": "s"}.get(row.metric)
    if expected_unit != row.unit:
        raise UserError(f"{path}:{line}: metric {row.metric!r} in {row.unit!r}: expected "
                        "rate in MB/s or runtime in s")
    return row


def parse_tuned_parameters(text: str, keys: Mapping[str, Sequence[str]]) -> Config:
    """``strp_fac=96 strp_unt=128MB cb_nds=48 align=(4KB;16KB)`` -> a tuning config.

    Words that are not ``name=value`` (``(text, 5.1.2)``) are provenance and ignored.
    """
    settings: dict[str, dict[str, Any]] = {}
    for name, value in re.findall(r"(\w+)=(\([^)]*\)|\S+)", text):
        if name not in keys:
            raise UserError(f"tuned parameters {text!r}: unknown parameter {name!r} "
                            f"(known: {', '.join(sorted(keys))})")
        for dotted in keys[name]:
            section, leaf = dotted.split(".")
            settings.setdefault(section, {})[leaf] = _tuned_value(leaf, value, text)
    return validate_config(settings, f"tuned parameters {text!r}")


def _tuned_value(leaf: str, value: str, text: str) -> int | dict[str, int]:
    try:
        if leaf == "alignment":
            threshold, boundary = value.strip("()").split(";")
            return {"threshold": parse_size(threshold), "boundary": parse_size(boundary)}
        return parse_size(value)  # counts are plain integers: parse_size("48") == 48
    except ValueError as error:
        raise UserError(f"tuned parameters {text!r}: {leaf}={value}: {error}") from error
