"""An experiment's ``search`` entry: `tuned` found in simulation by the what-if search.

The search is :func:`iotwin.studies.whatif.predict`'s (exhaustive when the space fits the budget,
else the genetic search topped up with random points; the default config wins when nothing
searched beats it), so an experiment's `tuned` and ``iotwin whatif --tune`` are one search.
``sections`` restricts the space to the parameters that set those config sections (the
paper's partial tuning: only the Lustre, MPI-IO or HDF5 layer searched, every other key left
at its site or library default). A workload's ``fixed`` pins parameters of every space
searched for it (``chunk_size: null`` for a kernel whose datasets the paper left contiguous).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from iotwin.config.types import Config
from iotwin.core.errors import InputError, UserError
from iotwin.model.platforms import load_platform
from iotwin.model.sim import SimResult
from iotwin.space.parameters import Space, SpaceContext, load_space
from iotwin.studies.whatif import SIMULATION_STRATEGIES, Prediction, Tuning, predict

#: the platform model's rate (MB/s) of each config on the cell's platform and workload
Rates = Callable[[Sequence[Config]], list[float | None]]


@dataclass(frozen=True)
class SearchSpec:
    """``search: {space, strategy?, budget, seed?, sections?}`` of an experiment entry."""

    space: str
    budget: int
    seed: int = 0
    strategy: str | None = None  # None: exhaustive if the space fits the budget, else h5evolve
    sections: tuple[str, ...] = ()  # empty: every section of the space

    def to_json(self) -> dict[str, Any]:
        return {"space": self.space, "strategy": self.strategy, "budget": self.budget,
                "seed": self.seed, "sections": list(self.sections)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SearchSpec:
        return cls(space=data["space"], budget=data["budget"], seed=data["seed"],
                   strategy=data["strategy"], sections=tuple(data["sections"]))

    def check(self, file: str, where: str) -> None:
        """InputError naming ``file`` and the field (from ``where``) for a strategy or space
        that does not exist (its sections are the schema's: data/experiment-schema.yaml)."""
        if self.strategy is not None and self.strategy not in SIMULATION_STRATEGIES:
            raise InputError(file, f"{where}.strategy", f"{self.strategy!r} is not one of "
                             f"{', '.join(SIMULATION_STRATEGIES)} (a search in simulation)")
        try:
            self.searched_space({})
        except UserError as error:
            raise InputError(file, f"{where}.space", str(error)) from None

    def searched_space(self, fixed: Mapping[str, Any]) -> Space:
        """The space searched: ``sections``' parameters, those in ``fixed`` pinned."""
        space = load_space(self.space)
        if fixed:  # binding pins them; the context does not matter to that
            space = space.bind(SpaceContext("ufs", 1), fixed).space
        return section_space(space, self.sections) if self.sections else space


def section_space(space: Space, sections: Sequence[str]) -> Space:
    """The parameters of ``space`` whose every config key lies in one of ``sections``."""
    kept = tuple(p for p in space.parameters
                 if all(key.split(".")[0] in sections for key in p.keys))
    return replace(space, name=f"{space.name}[{','.join(sections)}]", parameters=kept)


def search(platform_name: str, work: Mapping[str, Any], spec: SearchSpec, rates: Rates,
           fixed: Mapping[str, Any] | None = None) -> Prediction:
    """The default and the best config ``spec``'s search finds, ``rates`` being the model."""

    tuning = Tuning(spec.searched_space(fixed or {}), spec.strategy, spec.budget, spec.seed)

    def simulate(platform: Any, work: Any, configs: Sequence[Config],
                 max_steps: float | None = None) -> list[SimResult]:
        return [SimResult(rate is not None, None, rate) for rate in rates(configs)]

    return predict(platform_name, "default", load_platform(platform_name), work, tuning,
                   simulate)
