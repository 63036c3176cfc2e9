"""A synthetic machine for sim-screened's tests: its truth carries per-setting factors the
simulator cannot represent (as the twin's truth does: each setting multiplies the rate by a
factor of its own), its runs are noisy, and a campaign on it keeps a real store."""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from iotwin.config.types import Config
from iotwin.core.hashing import config_hash
from iotwin.core.run_records import RunResult, Target
from iotwin.model.protocol import Fit
from iotwin.space.parameters import BoundSpace, Point, SpaceContext, load_space
from iotwin.store.database import Store
from iotwin.tuning.campaign import CampaignEvaluator, Progress, Screening
from iotwin.tuning.spec import CampaignSpec

SPACE = load_space("local").bind(SpaceContext("ufs", ranks=4))
#: the settings whose factors the simulator does not know: the ones the local model gives no
#: cost, which tie its best configs on the measured tables
HIDDEN = ("alignment", "chunk_size", "meta_block_size", "romio_ds_write")


@functools.cache
def distinct_points(space: BoundSpace) -> list[Point]:
    return sorted({space.repair(point)[0] for point in space.points()})


@functools.cache
def point_by_hash(space: BoundSpace) -> dict[str, Point]:
    return {config_hash(space.config(p)): p for p in distinct_points(space)}


@functools.cache
def point_mechanisms(space: BoundSpace, point: Point) -> float:
    """:func:`mechanisms` of a point's config, built once: a test asks the truth's rate of
    every point of the space in each campaign it judges."""
    return mechanisms(space.config(point))


def mechanisms(config: Mapping[str, Any]) -> float:
    """What the simulator represents: the transfer mode and the fill."""
    dataset = config.get("dataset", {})
    independent = dataset.get("transfer_mode") == "independent"
    return 100.0 * (2.0 if independent else 1.0) * (1.5 if dataset.get("fill_time") == "never"
                                                     else 1.0)


def simulated(config: Config) -> float:
    """The mechanisms, with the arbitrary order a model gives configs it ties (within 0.5%)."""
    jitter = int(config_hash(config)[:6], 16) / 16**6
    return mechanisms(config) * (1 + 0.005 * jitter)


class Truth:
    """The mechanisms times a factor per value of each hidden setting (log sd ``spread``)."""

    def __init__(self, space: BoundSpace, spread: float = 0.2, seed: int = 0) -> None:
        rng = random.Random(seed)
        self.space = space
        self.factors = {(gene.name, index): math.exp(rng.gauss(0, spread))
                        for gene in space.genes if gene.name in HIDDEN
                        for index in range(len(gene.values))}

    def rate(self, point: Point) -> float:
        values = self.space.values(point)
        factor = math.prod(self.factors[gene.name, index]
                           for gene, index in zip(self.space.genes, point, strict=True)
                           if gene.name in HIDDEN and self.space.is_active(gene, values))
        return point_mechanisms(self.space, point) * factor


class NoisyMachine:
    """Runs of the truth with log-normal noise of ``sd``, drawn from each run's seed."""

    source = "twin"

    def __init__(self, truth: Truth, sd: float) -> None:
        self.truth, self.sd = truth, sd
        self.by_hash = point_by_hash(truth.space)
        self.runs = 0

    def run_once(self, target: Target, config: Config, *, seed: int = 0) -> RunResult:
        self.runs += 1
        rate = self.truth.rate(self.by_hash[config_hash(config)])
        noisy = rate * math.exp(random.Random(seed).gauss(0, self.sd))
        return RunResult("ok", total_s=1.0, rate_mbs=noisy)


class MechanismsModel:
    """The simulator of this machine: right about the mechanisms, blind to the hidden
    settings; nothing to refit."""

    platform_name = "synthetic"

    def predict(self, configs: Sequence[Config]) -> list[float | None]:
        return [simulated(c) for c in configs]

    def fit(self, measured: Sequence[tuple[Config, float]]) -> Fit:
        return Fit({}, fit_error=None)

    def use(self, parameters: Mapping[str, float]) -> None:
        pass


def campaign_on(tmp_path: Path, machine: NoisyMachine, budget: int, seed: int = 0,
                name: str = "c", model: MechanismsModel | None = None,
                strategy: str = "sim-screened",
                on_progress: Callable[[Progress | Screening], None] | None = None,
                store: Store | None = None) -> CampaignEvaluator:
    """A campaign on ``machine`` in ``store`` (a new one, else) beside campaigns before it."""
    spec = CampaignSpec(ranks=4, platform="synthetic", space="local", strategy=strategy,
                        executor="twin", real_budget=budget, kernel="vpic-io", seed=seed)
    store = store or Store(tmp_path / f"{name}-{seed}.db")
    campaign_id = store.create_campaign("t", kind="tune", spec=spec.to_json())
    return CampaignEvaluator(store, campaign_id, spec, SPACE, machine,
                             model or MechanismsModel(), on_progress)
