"""Observations from a site's published measurements: a CSV of shared-file block-3-D write
rates (EPCC benchio's form, as ``validation/data/benchio-calibration.csv`` holds them), each row
simulated as the block3d-io kernel's workload at the row's scale.

Columns read (others are ignored; a row names where it came from in them), the table's
schema (every row has the header's number of fields; numbers in ASCII decimal, within the
kinds of the one bounds table, data/bounds.yaml):

    machine        the platform it was measured on (rows of other machines are skipped)
    method         MPI-IO | HDF5 | netCDF   (block3d-io --method mpiio | hdf5 | netcdf4); any
                   letter case (benchio's own result set spells it NetCDF)
    striping       striped (every OST, 1 MiB stripes) | defstriped (the site's default layout)
                   | unstriped (one OST)
    local_block    N^3: each process's block of doubles (8 N^3 bytes within buffer_bytes)
    processes      MPI processes, packed on whole nodes (processes; at most the machine's cores)
    maxrate_mibs   the best of the job's repetitions, MiB/s (io_rate, in MB/s)
    avgrate_mibs   their mean, MiB/s (io_rate)

At most calibration_cases distinct cases of the machine are read. An error names the file,
the line and the column.

A row's rate is the best repetition's by default: a model of the machine has no other job
on it, and the best of ten repetitions is the run least disturbed by them. Rows of the same
case (dates apart) count once, at their median.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from iotwin.config.types import Config
from iotwin.config.validation import validate_config
from iotwin.core.cost import Cost, Driver
from iotwin.core.errors import UserError
from iotwin.formats.bounds import load_bounds, shown
from iotwin.formats.tables import count_field, decimal_number, table_rows, whole_number
from iotwin.model.calibration import (
    Observation,
    ScaleHoldout,
    cross_validate,
    fit_evaluations,
    influential_parameters,
    leave_one_scale_out,
    predict,
)
from iotwin.model.platforms import Platform
from iotwin.model.protocol import Fit
from iotwin.model.sim_cost import fit_cost
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


def read_cases(path: Path, machine: str, rate: Rate = "max", *,
               cores: int | None = None) -> list[Case]:
    """The cases of ``machine`` in the table at ``path``, rows of one case merged.

    Every row is checked against the table's schema (the module's docstring; numbers within
    the bounds table's kinds: ``processes``, at most ``cores`` when the machine's are given;
    ``buffer_bytes`` for a process's block, ``io_rate`` for a rate, ``calibration_cases`` for
    the distinct cases): a UserError names the file, the line and the column of the first
    value that is not what its column holds."""
    column = "maxrate_mibs" if rate == "max" else "avgrate_mibs"
    limit = load_bounds()["calibration_cases"].max
    found: dict[tuple[str, str, int, int], list[float]] = {}
    for line, row in table_rows(path, _COLUMNS, "published measurements"):
        if row["machine"] != machine:
            continue
        where = f"{path}:{line}"
        key = (_method(row, where),
               _choice(row, "striping", _STRIPINGS, where),
               _block(row["local_block"], where), _processes(row["processes"], where, cores))
        value = _rate(row[column], where, column)
        if key not in found and len(found) == limit:
            raise UserError(f"{where}: more distinct cases of {machine} than the {limit} a "
                            f"calibration fits (bounds.yaml: calibration_cases)")
        found.setdefault(key, []).append(value)
    return [Case(method, striping, block, processes, statistics.median(rates) * MIB_PER_MB)
            for (method, striping, block, processes), rates in sorted(found.items())]


#: benchio's own dataset settings where they differ from the kernel's: its netCDF-4 write turns
#: the variable's fill off (``nf90_def_var_fill(ncid, varid, 1, 1)`` in shared-file/source/
#: netcdf.F90 since 8 March 2016, "Make sure file it not filled with default values which
#: doubles wrote volume"), NC_NOFILL, which netCDF passes to HDF5 as fill time never
#: (netcdf4.hpp); its HDF5 write keeps HDF5's default dataset creation properties. They apply
#: to the variables, the datasets of the kernel's description (`api: netcdf4`)
_FILL_TIME: dict[str, Literal["ifset", "never", "alloc"]] = {"netCDF": "never"}


def observations(cases: Sequence[Case], platform: Platform) -> list[Observation]:
    """Each case as an observation: block3d-io's workload at its scale, on whole nodes, with
    benchio's own fill time (:data:`_FILL_TIME`)."""
    per_node = int(platform.data["compute"]["cores_per_node"])
    found = []
    for case in cases:
        workload = kernel_workload(KERNEL, case.processes, case.kernel_args())
        for session in workload["files"]:
            for dataset in session["datasets"]:
                if case.method in _FILL_TIME:
                    dataset["fill_time"] = _FILL_TIME[case.method]
        found.append(Observation({**workload, "ranks_per_node": per_node}, case.config,
                                 case.rate_mbs))
    return found


def _choice(row: dict[str, str], column: str, choices: dict[str, Any], where: str) -> str:
    if row[column] not in choices:
        raise UserError(f"{where}: {column}: expected {' or '.join(choices)}, got "
                        f"{shown(row[column])}")
    return row[column]


def _method(row: dict[str, str], where: str) -> str:
    """The method's name as :data:`_METHODS` spells it, whatever the table's letter case."""
    spelled = {name.lower(): name for name in _METHODS}
    name = spelled.get(row["method"].lower())
    if name is None:
        raise UserError(f"{where}: method: expected {' or '.join(_METHODS)}, got "
                        f"{shown(row['method'])}")
    return name


def _block(text: str, where: str) -> int:
    """N of a block of N^3 doubles a process, its bytes within bounds.yaml's buffer_bytes."""
    largest = _cube_root(int(load_bounds()["buffer_bytes"].max) // 8)
    side, _, power = text.partition("^")
    number = whole_number(side)
    if power != "3" or number is None or not 1 <= number <= largest:
        raise UserError(f"{where}: local_block: expected N^3 with N from 1 to {largest} (a "
                        f"process's block of doubles within bounds.yaml's buffer_bytes), got "
                        f"{shown(text)}")
    return number


def _processes(text: str, where: str, cores: int | None) -> int:
    processes = count_field(text, "processes", where, "processes")
    if cores is not None and processes > cores:
        raise UserError(f"{where}: processes: {processes} is more than the machine's {cores} "
                        f"cores")
    return processes


def _rate(text: str, where: str, column: str) -> float:
    """A rate in MiB/s, written in decimal, within bounds.yaml's io_rate (in MB/s)."""
    in_mb = load_bounds()["io_rate"]
    bound = replace(in_mb, min=in_mb.min / MIB_PER_MB, max=in_mb.max / MIB_PER_MB)
    value = decimal_number(text)
    if not bound.contains(value):
        raise UserError(f"{where}: {column}: {bound.refusal(shown(text), 'MiB/s')}")
    return value


def _cube_root(number: int) -> int:
    """The largest integer whose cube is at most ``number``."""
    root = round(number ** (1 / 3))
    while root ** 3 > number:
        root -= 1
    while (root + 1) ** 3 <= number:
        root += 1
    return root


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


#: the fitted parameters when none are named: the most influential ones, and the one that
#: moves the cases' level most if it is not among them
INFLUENTIAL = 3


def table_calibration_cost(platform: Platform, cases: Sequence[Case], source: Path, *,
                           parameters: Sequence[str] | None = None, folds: int = 5,
                           evaluations: int = 60, memory_limit: float | None = None) -> Cost:
    """What :func:`calibrate_to_table` will cost, before it starts: the sensitivity scan (an
    evaluation per free parameter), the k-fold fits and the final one, a fit per scale held
    out, and the predictions before and after."""
    found = _enough(observations(cases, platform), platform)
    fitted = len(parameters) if parameters else INFLUENTIAL + 1
    fits = min(folds, len(found)) + 1 + len({c.processes for c in cases})
    scan = 1 + len(platform.free_parameters())
    return fit_cost(platform, found, Driver(str(source), f"{len(cases)} distinct cases"),
                    evaluations=scan + fit_evaluations(fits, fitted, evaluations) + 2,
                    memory_limit=memory_limit)


def _enough(found: list[Observation], platform: Platform) -> list[Observation]:
    if len(found) < 2:
        raise UserError(f"platform {platform.name}: {len(found)} published cases; calibration "
                        "needs at least 2")
    return found


def calibrate_to_table(platform: Platform, cases: Sequence[Case], *,
                       parameters: Sequence[str] | None = None, folds: int = 5,
                       influential: int = INFLUENTIAL, evaluations: int = 60,
                       progress: Callable[[str], None] | None = None) -> TableCalibration:
    """Fit ``parameters`` (default: the ``influential`` free ones that move these cases
    most) of ``platform`` to the cases, with k-fold and leave-one-scale-out held-out errors.
    ``progress`` is told of each stage and fit as it starts."""
    found = _enough(observations(cases, platform), platform)
    if not parameters and progress:
        progress(f"which of the {len(platform.free_parameters())} free parameters move these "
                 "cases most (one simulation of them each)")
    chosen = list(parameters or influential_parameters(platform, found, influential))
    options: dict[str, Any] = {"parameters": chosen, "max_evaluations": evaluations}
    fitted = cross_validate(platform, found, folds=min(folds, len(found)), progress=progress,
                            **options)
    return TableCalibration(list(cases), chosen, fitted,
                            leave_one_scale_out(platform, found, progress=progress, **options),
                            predict(platform, found),
                            predict(platform.with_values(fitted.parameters), found))
