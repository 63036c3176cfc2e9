"""Observations from a site's published measurements: a CSV of shared-file block-3-D write
rates (EPCC benchio's form, as ``shared/data/benchio/calibration.csv`` holds them), each row
simulated as the block3d-io kernel's workload at the row's scale.

Columns read (others are ignored; a row names where it came from in them):

    machine        the platform it was measured on (rows of other machines are skipped)
    method         MPI-IO | HDF5 | netCDF   (block3d-io --method mpiio | hdf5 | netcdf4); any
                   letter case (benchio's own result set spells it NetCDF)
    striping       striped (every OST, 1 MiB stripes) | defstriped (the site's default layout)
                   | unstriped (one OST)
    local_block    N^3: each process's block of doubles
    processes      MPI processes, packed on whole nodes
    maxrate_mibs   the best of the job's repetitions, MiB/s
    avgrate_mibs   their mean, MiB/s

A row's rate is the best repetition's by default: a model of the machine has no other job
on it, and the best of ten repetitions is the run least disturbed by them. Rows of the same
case (dates apart) count once, at their median.
"""

from __future__ import annotations

import csv
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from iotwin.config.schema import validate_config
from iotwin.config.types import Config
from iotwin.core.errors import UserError
from iotwin.model.calibration import (
    Observation,
    ScaleHoldout,
    cross_validate,
    influential_parameters,
    leave_one_scale_out,
    predict,
)
from iotwin.model.platforms import Platform
from iotwin.model.protocol import Fit
from iotwin.workloads.workload import kernel_workload

MIB_PER_MB = 2**20 / 1e6
KERNEL = "block3d-io"
_METHODS = {"MPI-IO": "mpiio", "HDF5": "hdf5", "netCDF": "netcdf4"}
_STRIPINGS: dict[str, dict[str, Any]] = {
    "striped": {"lustre": {"stripe_count": -1, "stripe_size": "1MiB"}},
    "defstriped": {},
    "unstriped": {"lustre": {"stripe_count": 1}},
}
_COLUMNS = ("machine", "method", "striping", "local_block", "processes", "maxrate_mibs",
            "avgrate_mibs")
Rate = Literal["max", "mean"]


@dataclass(frozen=True)
class Case:
    """One published case: the write a row measured, and its rate in MB/s."""

    method: str
    striping: str
    block: int
    processes: int
    rate_mbs: float

    @property
    def label(self) -> str:
        return f"{self.method} {self.striping} {self.block}^3 x{self.processes}"

    @property
    def config(self) -> Config:
        return validate_config(_STRIPINGS[self.striping], f"striping {self.striping}")

    def kernel_args(self) -> list[str]:
        return ["--block", str(self.block), "--method", _METHODS[self.method]]


def read_cases(path: Path, machine: str, rate: Rate = "max") -> list[Case]:
    """The cases of ``machine`` in the table at ``path``, rows of one case merged."""
    rows = _rows(path)
    found: dict[tuple[str, str, int, int], list[float]] = {}
    for line, row in rows:
        if row["machine"] != machine:
            continue
        key = (_method(row, path, line),
               _choice(row, "striping", _STRIPINGS, path, line),
               _block(row["local_block"], path, line), _count(row["processes"], path, line))
        column = "maxrate_mibs" if rate == "max" else "avgrate_mibs"
        found.setdefault(key, []).append(_rate(row[column], path, line, column))
    return [Case(method, striping, block, processes, statistics.median(rates) * MIB_PER_MB)
            for (method, striping, block, processes), rates in sorted(found.items())]


#: benchio's own dataset settings where they differ from the kernel's: its netCDF-4 write turns
#: the variable's fill off (``nf90_def_var_fill(ncid, varid, 1, 1)`` in shared-file/source/
#: netcdf.F90 since 8 March 2016, "Make sure file it not filled with default values which
#: doubles wrote volume"), NC_NOFILL, which netCDF passes to HDF5 as fill time never
#: (netcdf4.hpp); its HDF5 write keeps HDF5's default dataset creation properties. They apply
#: to the variables (the datasets with netCDF's fill value), not to netCDF's dimension datasets
_DATASET_SETTINGS: dict[str, dict[str, Any]] = {"netCDF": {"fill_time": "never"}}


def observations(cases: Sequence[Case], platform: Platform) -> list[Observation]:
    """Each case as an observation: block3d-io's workload at its scale, on whole nodes, with
    benchio's own dataset settings (:data:`_DATASET_SETTINGS`)."""
    per_node = int(platform.data["compute"]["cores_per_node"])
    found = []
    for case in cases:
        workload = kernel_workload(KERNEL, case.processes, case.kernel_args())
        for session in workload["files"]:
            for dataset in session.get("datasets", []):
                if dataset.get("fill_value") == "user":
                    dataset.update(_DATASET_SETTINGS.get(case.method, {}))
        found.append(Observation({**workload, "ranks_per_node": per_node}, case.config,
                                 case.rate_mbs))
    return found


def _rows(path: Path) -> list[tuple[int, dict[str, str]]]:
    try:
        with path.open(newline="", encoding="utf-8") as file:
            reader = csv.DictReader(file)
            missing = [c for c in _COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise UserError(f"{path}: not a table of published measurements: no column "
                                f"{', '.join(missing)}")
            return list(enumerate(reader, start=2))
    except OSError as error:
        raise UserError(f"{path}: cannot read the measurements: {error.strerror}") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise UserError(f"{path}: not a CSV table: {error}") from None


def _choice(row: dict[str, str], column: str, choices: dict[str, Any], path: Path,
            line: int) -> str:
    if row[column] not in choices:
        raise UserError(f"{path}:{line}: {column}: expected {' or '.join(choices)}, got "
                        f"{row[column]!r}")
    return row[column]


def _method(row: dict[str, str], path: Path, line: int) -> str:
    """The method's name as :data:`_METHODS` spells it, whatever the table's letter case."""
    spelled = {name.lower(): name for name in _METHODS}
    name = spelled.get(row["method"].lower())
    if name is None:
        raise UserError(f"{path}:{line}: method: expected {' or '.join(_METHODS)}, got "
                        f"{row['method']!r}")
    return name


def _block(text: str, path: Path, line: int) -> int:
    side, _, power = text.partition("^")
    if power != "3" or not side.isdigit() or int(side) < 1:
        raise UserError(f"{path}:{line}: local_block: expected N^3, got {text!r}")
    return int(side)


def _count(text: str, path: Path, line: int) -> int:
    if not text.isdigit() or int(text) < 1:
        raise UserError(f"{path}:{line}: processes: expected a positive integer, got {text!r}")
    return int(text)


def _rate(text: str, path: Path, line: int, column: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise UserError(f"{path}:{line}: {column}: expected a positive rate, got {text!r}")
    return value


@dataclass(frozen=True)
class TableCalibration:
    """A platform fitted to a published table: the fit (k-fold held-out error), each scale held
    out in turn, and the cases' predictions before and after."""

    cases: list[Case]
    parameters: list[str]
    fit: Fit
    scale_out: list[ScaleHoldout]
    before: list[float | None]
    after: list[float | None]

    @property
    def band_error(self) -> float:
        """The 90th percentile of every held-out error (the k-fold's, as its 90th percentile,
        and each scale's held out): what an answer from this calibration is known to be off."""
        errors = [e for held in self.scale_out for e in held.errors]
        errors.append(float(self.fit.details.get("heldout_p90", self.fit.heldout_error or 0)))
        return float(np.percentile(errors, 90))

    @property
    def scales(self) -> tuple[int, int]:
        return min(c.processes for c in self.cases), max(c.processes for c in self.cases)


def calibrate_to_table(platform: Platform, cases: Sequence[Case], *,
                       parameters: Sequence[str] | None = None, folds: int = 5,
                       influential: int = 3, evaluations: int = 60) -> TableCalibration:
    """Fit ``parameters`` (default: the ``influential`` free ones that move these cases
    most) of ``platform`` to the cases, with k-fold and leave-one-scale-out held-out errors."""
    found = observations(cases, platform)
    if len(found) < 2:
        raise UserError(f"platform {platform.name}: {len(found)} published cases; calibration "
                        "needs at least 2")
    chosen = list(parameters or influential_parameters(platform, found, influential))
    options: dict[str, Any] = {"parameters": chosen, "max_evaluations": evaluations}
    fitted = cross_validate(platform, found, folds=min(folds, len(found)), **options)
    return TableCalibration(list(cases), chosen, fitted,
                            leave_one_scale_out(platform, found, **options),
                            predict(platform, found),
                            predict(platform.with_values(fitted.parameters), found))
