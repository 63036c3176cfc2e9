"""Operators and strategies on a synthetic machine whose optimum is known."""

from __future__ import annotations

import importlib.util
import math
import random
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from iotwin.config.settings import flat_settings
from iotwin.core.errors import UserError
from iotwin.core.hashing import config_hash
from iotwin.core.run_records import RunResult, Target
from iotwin.core.units import parse_size
from iotwin.model.protocol import Fit
from iotwin.search import REGISTRY, STRATEGIES, StrategyKind, run_strategy, strategy_settings
from iotwin.search.operators import Individual, make_toolbox, vary
from iotwin.space.parameters import BoundSpace, Point, SpaceContext, load_space
from iotwin.store.database import Store
from iotwin.tuning.campaign import CampaignEvaluator, Progress, Screening
from iotwin.tuning.spec import CampaignSpec

HOPPER = SpaceContext(filesystem="lustre", ranks=512, max_stripe_count=156)
BEST = {"stripe_count": 64, "stripe_size": 2 * 2**20, "cb_nodes": 24}


def synthetic_rate(config: Mapping[str, Any], skew: float = 1.0) -> float:
    """A smooth landscape over the poster space, best at BEST; `skew` distorts it (a model)."""
    lustre, mpiio = config.get("lustre", {}), config.get("mpiio", {})
    count = 156 if lustre.get("stripe_count", 4) == -1 else lustre.get("stripe_count", 4)
    size = parse_size(lustre.get("stripe_size", "1MiB"))
    nodes = mpiio.get("cb_nodes", 1)
    penalty = (math.log2(count / BEST["stripe_count"]) ** 2
               + skew * math.log2(size / BEST["stripe_size"]) ** 2
               + math.log2(nodes / BEST["cb_nodes"]) ** 2 / skew)
    aligned = "alignment" in config.get("hdf5", {})
    return 1000.0 * math.exp(-0.15 * penalty) * (1.1 if aligned else 1.0)


class Killed(BaseException):
    """The campaign's process killed mid-run (nothing catches it, as nothing catches a signal)."""


class SyntheticExecutor:
    """Runs of the synthetic landscape, with log-normal noise of ``noise`` drawn from each
    run's seed."""

    source = "twin"

    def __init__(self, noise: float = 0.0, killed_at: int | None = None) -> None:
        self.runs: list[dict[str, Any]] = []
        self.noise = noise
        self.killed_at = killed_at  # the run (counted from 1) during which the process dies

    def run_once(self, target: Target, config: Mapping[str, Any], *, seed: int = 0) -> RunResult:
        if self.killed_at is not None and len(self.runs) + 1 == self.killed_at:
            raise Killed
        self.runs.append(dict(config))
        rate = synthetic_rate(config) * math.exp(random.Random(seed).gauss(0, self.noise))
        return RunResult("ok", total_s=1000 / rate, rate_mbs=rate)


class SkewedModel:
    """Predicts with a wrong skew; fitting recovers it from the measurements."""

    platform_name = "synthetic"

    def __init__(self) -> None:
        self.skew = 2.0
        self.predicted = 0  # configs it was asked to predict
        self.fits = 0

    def predict(self, configs: Sequence[Mapping[str, Any]]) -> list[float | None]:
        self.predicted += len(configs)
        return [synthetic_rate(c, self.skew) for c in configs]

    def fit(self, measured: Sequence[tuple[Mapping[str, Any], float]]) -> Fit:
        self.fits += 1
        grid = [0.5 + 0.05 * i for i in range(40)]

        def error(skew: float) -> float:
            return sum(math.log(synthetic_rate(c, skew) / r) ** 2 for c, r in measured)

        self.skew = min(grid, key=error)
        return Fit({"skew": self.skew}, fit_error=error(self.skew))

    def use(self, parameters: Mapping[str, float]) -> None:
        self.skew = parameters["skew"]


def optimum(space: BoundSpace) -> float:
    return max(synthetic_rate(space.config(p)) for p in space.points())


def make_campaign(tmp_path: Path, strategy: str, budget: int, *,
                  model: bool | SkewedModel = False, noise: float = 0.0,
                  seed: int = 1, space: BoundSpace | None = None,
                  executor: SyntheticExecutor | None = None, store: Path | None = None
                  ) -> tuple[CampaignEvaluator, SyntheticExecutor]:
    spec = CampaignSpec(ranks=512, platform="synthetic", space="poster", strategy=strategy,
                        executor="twin", real_budget=budget, kernel="vpic-io", seed=seed)
    opened = Store(store or tmp_path / f"{strategy}-{seed}.db")
    campaign_id = opened.create_campaign("t", kind="tune", spec=spec.to_json())
    return reopen(opened, campaign_id, spec, space, executor or SyntheticExecutor(noise), model)


def reopen(store: Store, campaign_id: int, spec: CampaignSpec, space: BoundSpace | None,
           executor: SyntheticExecutor | None, model: bool | SkewedModel
           ) -> tuple[CampaignEvaluator, SyntheticExecutor]:
    """The campaign as a (re)started process opens it: on a fresh executor and model."""
    executor = executor or SyntheticExecutor()
    space = space or load_space("poster").bind(HOPPER)
    if model is True:
        model = SkewedModel()
    campaign = CampaignEvaluator(store, campaign_id, spec, space, executor, model or None)
    return campaign, executor


# -- the contract every strategy of the registry keeps ----------------------------------------

#: strategies that need a package `make test` does not install: (module, what installs it)
NEEDS_INSTALL = {"optuna-gp": ("torch", "make optuna-gp")}


def installed(kind: StrategyKind) -> bool:
    needed = NEEDS_INSTALL.get(kind.name)
    return needed is None or importlib.util.find_spec(needed[0]) is not None


#: every registered strategy that can run here: a strategy added to REGISTRY is tested here
RUNNABLE = [kind for kind in REGISTRY if installed(kind)]


def each(kinds: Sequence[StrategyKind]) -> Any:
    """A test run for each of ``kinds``, named by the strategy."""
    return pytest.mark.parametrize("kind", [pytest.param(k, id=k.name) for k in kinds])


BUDGET = 20
#: a small space: 10 stripe counts x 8 stripe sizes
SMALL = {"alignment": None, "cb_nodes": 24}
#: settings under which a strategy that may stop early does, cheaply (its own stop criterion)
STOPS_EARLY_WITH = {"h5evolve": {"generations": 3}, "sim-screened": {"target": 0.5},
                    "optuna-tpe": {"stale_asks": 3}, "optuna-gp": {"stale_asks": 3},
                    "skopt-gp": {"stale_asks": 3}}


def searched(tmp_path: Path, kind: StrategyKind, *, seed: int = 1, budget: int = BUDGET,
             space: BoundSpace | None = None, settings: Mapping[str, Any] | None = None,
             name: str = "run") -> tuple[CampaignEvaluator, SyntheticExecutor, SkewedModel]:
    """A campaign of ``kind`` run to its end, with a model it may predict with."""
    model = SkewedModel()
    campaign, executor = make_campaign(tmp_path, kind.name, budget, model=model, seed=seed,
                                       space=space, store=tmp_path / f"{name}.db")
    run_strategy(kind.name, campaign, seed, {**strategy_settings(kind.name), **(settings or {})})
    return campaign, executor, model


Searched = tuple[CampaignEvaluator, SyntheticExecutor, SkewedModel]
Reference = Callable[[StrategyKind], Searched]
REFERENCE_SEED = 1


@pytest.fixture(scope="module")
def reference_search(tmp_path_factory: pytest.TempPathFactory) -> Reference:
    """Each strategy's campaign at REFERENCE_SEED, run once for the tests that judge it, repeat
    it or resume it."""
    done: dict[str, Searched] = {}

    def reference(kind: StrategyKind) -> Searched:
        if kind.name not in done:
            done[kind.name] = searched(tmp_path_factory.mktemp(kind.name), kind,
                                       seed=REFERENCE_SEED)
        return done[kind.name]

    return reference


def stored_sequence(campaign: CampaignEvaluator) -> list[str]:
    return [row.config_hash for row in campaign.store.evaluations(campaign.id, source="twin")]


def assert_runs_again_only_what_it_repeats(campaign: CampaignEvaluator,
                                           executor: SyntheticExecutor,
                                           kind: StrategyKind) -> None:
    """Every run is stored once, as one of the campaign's measurements; a config runs again
    only as a repeat, and only a strategy whose record says it repeats asks for one."""
    rows = campaign.store.evaluations(campaign.id, source="twin")
    runs = [(row.config_hash, row.repetition) for row in rows]
    assert len(executor.runs) == len(runs) == len(set(runs)) == len(campaign.order)
    repeated = len(runs) - len({key for key, _ in runs})
    assert repeated == len(campaign.order) - len(campaign.measured)
    assert repeated == 0 or kind.repeats


@each(RUNNABLE)
def test_a_strategy_keeps_the_budget_and_runs_a_point_again_only_as_a_repeat(
        reference_search: Reference, kind: StrategyKind) -> None:
    campaign, executor, model = reference_search(kind)
    assert 0 < len(executor.runs) <= BUDGET
    assert_runs_again_only_what_it_repeats(campaign, executor, kind)
    if not kind.may_stop_early:  # nothing but the budget ends it on a space this large
        assert len(executor.runs) == BUDGET
    # its capabilities: a model is asked only by the strategies that say they need it
    if kind.needs_model:
        assert model.predicted > 0 and model.fits > 0
    if kind.runs_in_simulation:  # it asks nothing but rates of points
        assert model.predicted == model.fits == 0


@each(RUNNABLE)
def test_a_strategy_is_deterministic_for_a_seed(
        tmp_path: Path, reference_search: Reference,
        kind: StrategyKind) -> None:
    _, first, _ = reference_search(kind)
    _, second, _ = searched(tmp_path, kind, seed=REFERENCE_SEED)
    assert first.runs and first.runs == second.runs


@each(RUNNABLE)
def test_a_killed_campaign_resumes_by_replaying_its_strategy(
        tmp_path: Path, reference_search: Reference,
        kind: StrategyKind) -> None:
    _, reference, _ = reference_search(kind)
    killed_at = 8
    assert len(reference.runs) > killed_at
    settings = strategy_settings(kind.name)
    campaign, killed = make_campaign(tmp_path, kind.name, BUDGET, model=True,
                                     seed=REFERENCE_SEED,
                                     executor=SyntheticExecutor(killed_at=killed_at),
                                     store=tmp_path / "killed.db")
    with pytest.raises(Killed):
        run_strategy(kind.name, campaign, REFERENCE_SEED, settings)
    assert len(killed.runs) == killed_at - 1
    resumed, again = reopen(campaign.store, campaign.id, campaign.spec, None, None, True)
    run_strategy(kind.name, resumed, REFERENCE_SEED, settings)
    # nothing stored is run again, and the campaign is the one never killed
    assert again.runs == reference.runs[killed_at - 1:]
    assert [config_hash(c) for c in reference.runs] == stored_sequence(resumed)


@each(RUNNABLE)
def test_a_strategy_ends_by_itself_on_a_space_smaller_than_its_budget(
        tmp_path: Path, kind: StrategyKind) -> None:
    """One that may stop early does, under settings that make its own criterion cheap, with
    points and budget left; any other stops only once the space is spent."""
    assert not kind.may_stop_early or kind.name in STOPS_EARLY_WITH, \
        f"{kind.name}: say in STOPS_EARLY_WITH how it stops by itself"
    space = load_space("poster").bind(HOPPER, fixed=SMALL)
    campaign, executor, _ = searched(tmp_path, kind, budget=2 * space.size, space=space,
                                     settings=STOPS_EARLY_WITH.get(kind.name))
    assert_runs_again_only_what_it_repeats(campaign, executor, kind)
    if kind.may_stop_early:
        assert 0 < len(campaign.measured) < space.size
    else:
        assert len(executor.runs) == len(campaign.measured) == space.size


def test_every_registered_strategy_keeps_the_contract_or_says_why_it_cannot_here(
        tmp_path: Path) -> None:
    """A strategy whose package `make test` does not install is not run by the contract
    tests: this says so (a warning) and checks what it can, that asking for it names what to
    install, and that the registry and strategies.yaml describe it."""
    for kind in REGISTRY:
        assert STRATEGIES[kind.name] is kind
        assert isinstance(strategy_settings(kind.name), dict)
        if kind in RUNNABLE:
            continue
        module, install = NEEDS_INSTALL[kind.name]
        warnings.warn(f"strategy {kind.name}: contract not run: {module} is not installed "
                      f"(`{install}`); only its refusal is checked", stacklevel=1)
        campaign, executor = make_campaign(tmp_path, kind.name, BUDGET)
        with pytest.raises(UserError, match=f"{kind.name} needs .*`{install}`"):
            run_strategy(kind.name, campaign, 1, strategy_settings(kind.name))
        assert not executor.runs


def test_operators_stay_inside_the_space_and_repair_holds() -> None:
    space = load_space("table3").bind(SpaceContext("lustre", ranks=16, max_stripe_count=20))
    rng = random.Random(5)
    toolbox = make_toolbox(space, rng, mutation_indpb=0.5)
    population = toolbox.population(40)
    for _ in range(30):
        population = vary(toolbox, rng, population, cxpb=0.9, mutpb=0.9)
        for individual in population:
            assert all(0 <= g <= top for g, top in zip(individual, space.upper, strict=True))
            values = space.values(individual.point)
            assert values["cb_nodes"] <= 16  # at_most: ranks
            assert values["stripe_count"] in (-1, 4, 8, 16)  # at_most: max_stripe_count=20
            assert space.repair(individual.point) == (individual.point, [])


def test_mutation_always_changes_an_individual() -> None:
    space = load_space("poster").bind(HOPPER)
    rng = random.Random(2)
    toolbox = make_toolbox(space, rng, mutation_indpb=0.0)
    for _ in range(100):
        individual = toolbox.individual()
        before = list(individual)
        toolbox.mutate(individual)
        assert list(individual) != before


def test_exhaustive_finds_the_optimum_with_the_whole_space(tmp_path: Path) -> None:
    space = load_space("poster").bind(HOPPER, fixed={"alignment": None})
    campaign, _ = make_campaign(tmp_path, "exhaustive", budget=space.size, space=space)
    run_strategy("exhaustive", campaign, seed=0, settings={})
    best = campaign.best()
    assert best is not None and best.rate == pytest.approx(optimum(space))


def test_sim_screened_needs_far_fewer_runs_than_h5evolve(tmp_path: Path) -> None:
    space = load_space("poster").bind(HOPPER)
    target = 0.95 * optimum(space)

    def runs_to_target(strategy: str, seed: int, budget: int) -> int | None:
        campaign, executor = make_campaign(tmp_path, strategy, budget=budget, model=True,
                                           seed=seed)
        run_strategy(strategy, campaign, seed=seed, settings=strategy_settings(strategy))
        rates = [synthetic_rate(c) for c in executor.runs]
        return next((i + 1 for i, r in enumerate(rates) if r >= target), None)

    screened = [runs_to_target("sim-screened", s, budget=600) for s in range(3)]
    assert all(n is not None for n in screened)
    # h5evolve runs as far as decides the claim (its choices do not depend on its budget):
    # reaching the target at that many runs, or not within them, holds it
    enough = max(n or 0 for n in screened) * 3
    evolved = [runs_to_target("h5evolve", s, budget=enough) for s in range(3)]
    assert enough <= min(n or enough for n in evolved)


def test_sim_screened_recalibrates_and_stores_each_calibration(tmp_path: Path) -> None:
    campaign, _ = make_campaign(tmp_path, "sim-screened", budget=12, model=True)
    run_strategy("sim-screened", campaign, seed=3, settings=strategy_settings("sim-screened"))
    calibrations = campaign.store.calibrations("synthetic")
    assert calibrations and all(c.campaign_id == campaign.id for c in calibrations)
    # the refitted model reproduces every measurement (the initial skew of 2 does not)
    skew = calibrations[-1].parameters["skew"]
    for measured in campaign.measured.values():
        assert synthetic_rate(measured.config, skew) == pytest.approx(measured.rate, rel=1e-6)
    assert len(calibrations) == len({c.details["measured"] for c in calibrations})
    assert campaign.store.evaluations(campaign.id, source="sim")


def test_individuals_clone_with_their_fitness() -> None:
    space = load_space("poster").bind(HOPPER)
    toolbox = make_toolbox(space, random.Random(0))
    individual = toolbox.individual()
    individual.fitness.values = (3.0,)
    clone = toolbox.clone(individual)
    assert isinstance(clone, Individual) and clone == individual
    assert clone.fitness.values == (3.0,) and clone.fitness is not individual.fitness


def test_sim_screened_reports_each_step_of_its_screening(tmp_path: Path) -> None:
    settings = {**strategy_settings("sim-screened"), "inner_generations": 3}
    campaign, _ = make_campaign(tmp_path, "sim-screened", budget=14, model=True)
    reports: list[Progress | Screening] = []
    campaign.on_progress = reports.append
    run_strategy("sim-screened", campaign, seed=2, settings=settings)
    generations = [r.generation for r in reports if isinstance(r, Progress)]
    assert len(generations) >= 2
    for generation in generations:
        steps = [r for r in reports if isinstance(r, Screening) and r.generation == generation]
        assert [s.step for s in steps] == [0, 1, 2, 3]  # before each real batch
        counts = [s.simulations for s in steps]
        assert counts == sorted(counts)
        if generation == 0:  # later ones reuse the predictions until the model is refitted
            assert steps[0].simulations >= settings["population"] // 2  # the population
            assert all(s.per_second for s in steps)
        best = [s.best_predicted or 0.0 for s in steps]
        assert best == sorted(best)   # the GA keeps its best: the best predicted never drops
    # a screening step comes before its generation's real batch is reported
    first_progress = next(i for i, r in enumerate(reports) if isinstance(r, Progress))
    assert all(isinstance(r, Screening) for r in reports[:first_progress])


def test_sim_screened_stops_by_itself_once_the_model_expects_no_gain(tmp_path: Path) -> None:
    settings = strategy_settings("sim-screened")
    campaign, executor = make_campaign(tmp_path, "sim-screened", budget=600, model=True)
    run_strategy("sim-screened", campaign, seed=5, settings=settings)
    best = campaign.best()
    assert best is not None and best.rate >= 0.95 * optimum(campaign.space)
    # well before the budget, and not before a batch after the first (nor before the best's
    # runs know its rate to 5%: with the noise's prior of 20% a run, some 14 of them)
    assert settings["top_k"] + settings["explore"] < len(executor.runs) < 100


@pytest.mark.parametrize(("trust_z", "stops_early"), [(0.01, False), (1.0, True)])
def test_sim_screened_stops_only_on_a_model_that_predicted_its_last_batch(
        tmp_path: Path, trust_z: float, stops_early: bool) -> None:
    # noisy runs never come back within 1% of a standard deviation of their belief: a search
    # that asks for that is never trusted, and so never stops before its budget
    settings = {**strategy_settings("sim-screened"), "trust_z": trust_z}
    campaign, executor = make_campaign(tmp_path, "sim-screened", budget=40, model=True,
                                       noise=0.05)
    run_strategy("sim-screened", campaign, seed=5, settings=settings)
    assert (len(executor.runs) < 40) == stops_early


def test_the_gp_baseline_refits_on_fresh_runs_only_and_from_its_last_fit() -> None:
    from iotwin.search.ask_tell import _SkoptGP

    space = load_space("poster").bind(HOPPER)
    gp = _SkoptGP(space, seed=3, settings=strategy_settings("skopt-gp"))
    measured: dict[Point, float] = {}
    while len(gp.optimizer.models) < 2:
        handle, point = gp.ask()
        repaired, _ = space.repair(point)
        new = repaired not in measured
        measured.setdefault(repaired, synthetic_rate(space.config(repaired)))
        gp.tell(handle, measured[repaired], new)
    fitted = gp.optimizer.models[-1]
    start = gp.optimizer.base_estimator_.kernel
    assert start.theta[:-1] == pytest.approx(fitted.kernel_.theta[:-1])  # where it ended
    assert math.exp(start.theta[-1]) == pytest.approx(fitted.noise_)  # its fitted noise
    handle, point = gp.ask()
    gp.tell(handle, measured[next(iter(measured))], new=False)  # a lookup: no refit
    assert len(gp.optimizer.models) == 2
    gp.tell(gp.ask()[0], 500.0, new=True)
    assert len(gp.optimizer.models) == 3


def differing_settings(a: Mapping[str, Any], b: Mapping[str, Any]) -> int:
    """How many settings (``key=value``) two configs do not share."""
    first, second = (dict(s.split("=", 1) for s in flat_settings(c)) for c in (a, b))
    return sum(first.get(key) != second.get(key) for key in first.keys() | second.keys())


def test_sim_screened_first_batch_is_the_models_top_without_near_copies(tmp_path: Path) -> None:
    settings = strategy_settings("sim-screened")
    count, differ = settings["first_batch"], settings["first_differ"]
    campaign, _ = make_campaign(tmp_path, "sim-screened", budget=60, model=True)
    batches: list[int] = []
    campaign.on_progress = lambda progress: (batches.append(progress.runs_used)
                                             if isinstance(progress, Progress) else None)
    run_strategy("sim-screened", campaign, seed=2, settings=settings)
    ran = [m.config for m in list(campaign.measured.values())[:batches[0]]]
    assert len(ran) == count + settings["first_probes"]
    first = ran[:count]  # the top's runs come first, the random probes after them
    for i, a in enumerate(first):
        for b in first[i + 1:]:
            assert differing_settings(a, b) >= differ, (a, b)
    # the model's own top configs are near-copies here: a rule that let them through fails
    predicted = sorted((SkewedModel().predict([c])[0] or 0.0, config_hash(c), c)
                       for c in {config_hash(c): c for c in map(campaign.space.config,
                                                                campaign.space.points())
                                 }.values())[::-1]
    top = [c for _, _, c in predicted[:count]]
    assert min(differing_settings(a, b) for i, a in enumerate(top) for b in top[i + 1:]) < differ
    # ... and the batch is still from the model's top: every config above 9 in 10 of the space
    cutoff = predicted[len(predicted) // 10][0]
    assert all((SkewedModel().predict([c])[0] or 0.0) >= cutoff for c in first)
