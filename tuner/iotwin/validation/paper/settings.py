"""The paper validation's settings, ``validation/paper/cases.yaml``: how each published row is
simulated (kernel arguments that reproduce its data size, ranks per node, the tuned
parameters' meaning, what "tuned" means where no parameters are published), which parameters
are fitted, and the fit's budget."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.yaml_files import read_yaml
from iotwin.validation.paper.rows import PublishedRow
from iotwin.validation.paper.sensitivity import SelectionRule


def paper_dir() -> Path:
    return paths.repo_root() / "validation" / "paper"


@dataclass(frozen=True)
class Sampling:
    """A seeded sample of a parameter space (``model_optimum`` and ``spread``)."""

    space: str
    sample: int
    seed: int
    pin: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # kernel -> fixed values


@dataclass(frozen=True)
class FitBudget:
    """``fit`` in cases.yaml: rounds of a bounded least-squares fit until it has converged."""

    evaluations_per_round: int
    max_rounds: int
    tolerance: float  # converged: a round lowers the loss by less than this fraction
    scan_points: int = 0  # the first round's coarse start (calibration.coarse_start)

    @classmethod
    def from_settings(cls, data: Mapping[str, Any]) -> FitBudget:
        return cls(int(data["evaluations_per_round"]), int(data["max_rounds"]),
                   float(data["tolerance"]), int(data.get("scan_points", 0)))


@dataclass(frozen=True)
class WorkloadCommand:
    """The kernel command line that reproduces a row's experiment, and its ranks per node."""

    kernel: str
    args: list[str]
    ranks_per_node: int


@dataclass(frozen=True)
class Settings:
    """validation/paper/cases.yaml."""

    published: Path
    size_tolerance: float
    sources: Mapping[str, Mapping[str, Any]]
    tuned_parameter_keys: Mapping[str, Sequence[str]]
    model_optimum: Sampling
    spread: Sampling
    selection: SelectionRule
    fit: FitBudget
    extrapolate_steps: Sequence[str] = ()

    def workload_command(self, row: PublishedRow) -> WorkloadCommand:
        """The command line and ranks per node that reproduce a row's experiment."""
        source = self.sources.get(row.source)
        if source is None:
            raise UserError(f"cases.yaml: no entry for source {row.source!r}")
        workloads = source.get("workloads", {})
        command = workloads.get(f"{row.platform}/{row.kernel}", workloads.get(row.kernel))
        per_node = source.get("ranks_per_node", {}).get(row.platform)
        if command is None or per_node is None:
            raise UserError(f"cases.yaml: {row.source}: no workload or ranks_per_node for "
                            f"{row.platform} {row.kernel}")
        kernel, *args = str(command).split()
        return WorkloadCommand(kernel, args, int(per_node))


def load_settings(path: Path | None = None) -> Settings:
    path = path or paper_dir() / "cases.yaml"
    try:
        data = read_yaml(path, "validation settings")
        return Settings(
            published=path.parent / data["published"],
            size_tolerance=float(data["size_tolerance"]),
            sources=data["sources"],
            tuned_parameter_keys=data["tuned_parameter_keys"],
            model_optimum=Sampling(**data["model_optimum"]),
            spread=Sampling(**data["spread"]),
            selection=SelectionRule.from_settings(data["fit_selection"]),
            fit=FitBudget.from_settings(data["fit"]),
            extrapolate_steps=tuple(data.get("extrapolate_steps") or ()))
    except (KeyError, TypeError, ValueError) as error:
        raise UserError(f"{path}: missing or bad key: {error}") from error
