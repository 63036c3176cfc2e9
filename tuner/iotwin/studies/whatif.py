"""What-if studies: a workload's predicted default and tuned rates on platform models.

A *variant* of a platform sets some of its parameters (PLATFORM.md paths, e.g.
``filesystem.target_mbs=250,500``) through :meth:`Platform.with_values`. ``ost_count=N`` grows
or shrinks the file system by whole servers, as sites do: N targets and the servers in the
same targets-per-server ratio (``filesystem.targets=N`` alone keeps the servers, so that more
OSTs share the same server links). On Lustre the largest stripe count and the site's default
stripe count follow the OST count (a file has at most one stripe per OST).

*Tuned* is a search in simulation with the tuner's own machinery: a space
(``spaces/whatif.yaml`` by default) bound to the platform, and one of the search strategies
(exhaustive when the space fits in the budget, else the genetic search, topped up with random
points if its population converges first). The model is the machine here, so every
"measurement" is one simulation and the budget counts simulations.

Every prediction carries, for the default and the tuned config (and a user's own, when given),
the simulation's answer: its rate, its ceiling (the most that config could write under its
placement), what binds the run and the ceiling, and the best ceiling any layout reaches from
the placement (IOSIM.md "Ceiling and binding mechanism"). It also carries the model's validated
error (studies.validated_error): a band around each rate, and a warning where the platform has
no validation or the workload's scale lies outside the validated one.
The speedup's band is the range of tuned / default over both bands (interval arithmetic: each
rate anywhere in its band, s / f^2 .. s x f^2 for a band factor f). It is conservative: the
model's errors on two configs of one platform are rarely opposite, but the validation cannot
say how alike they are (the paper validation's published default/tuned pairs are too few per
platform to validate a speedup band of its own).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from iotwin.config.schema import load_schema
from iotwin.config.types import Config
from iotwin.config.validation import ConfigError, validate_value
from iotwin.core.dotted import dotted_get
from iotwin.core.errors import UserError
from iotwin.core.hashing import config_hash
from iotwin.core.units import parse_size
from iotwin.core.yaml_files import parse_document
from iotwin.model import sim
from iotwin.model.platforms import Platform
from iotwin.model.sheet_schema import check_value, model_field, shown
from iotwin.model.sim import SimResult
from iotwin.model.site_rules import platform_space_context
from iotwin.search import REGISTRY, run_strategy, strategy_kind, strategy_settings
from iotwin.search.evaluator import BudgetExhausted
from iotwin.search.trust import SearchState
from iotwin.space.parameters import BoundSpace, Point, Space
from iotwin.studies.validated_error import (
    ValidatedError,
    unvalidated_warning,
    validated_errors,
)


class Simulate(Protocol):
    """(platform model, workload, configs) -> the simulation of each config; with
    ``max_steps``, a config whose simulation iosim estimates beyond that many steps is refused
    (a failed simulation) before it runs."""

    def __call__(self, platform: Platform, work: Mapping[str, Any], configs: Sequence[Config],
                 max_steps: float | None = None) -> list[SimResult]: ...


#: What a search may spend on one config, in iosim's estimated steps (about 0.1 us each here,
#: sim-models/IOSIM.md "What the simulation costs"): some 20 s. A config that turns collective
#: buffering off makes every rank's pieces walked one by one: 4e8 pieces and 20 s at 6,144 ranks
#: of 256^3 blocks, hours for a search of 300. Such a config counts as a failed point of the
#: search (the default is always simulated, whatever it costs).
SEARCH_MAX_STEPS = 2e8

#: ``ost_count=N``: N targets, servers scaled to keep the platform's targets per server
OST_COUNT = "ost_count"


@dataclass(frozen=True)
class Variation:
    """One platform parameter and the values it takes (``--vary PATH=V1,V2``)."""

    path: str
    values: tuple[Any, ...]

    def label(self, value: Any) -> str:
        return f"{self.path}={value}"


@dataclass(frozen=True)
class Tuning:
    """How `tuned` is searched: a space, a strategy, a budget of simulations, a seed."""

    space: Space
    strategy: str | None = None  # None: exhaustive if the space fits the budget, else h5evolve
    budget: int = 300
    seed: int = 0
    max_steps: float | None = SEARCH_MAX_STEPS  # per config; None: no limit


@dataclass
class Prediction:
    platform: str
    variant: str
    default: SimResult
    tuned: SimResult | None = None
    tuned_config: Config = field(default_factory=Config)
    tuned_settings: str = ""  # the searched parameters' values, as the space names them
    given: SimResult | None = None  # the user's own config (--config)
    simulations: int = 0  # by the search
    strategy: str = ""
    note: str = ""
    # the validated error (studies.validated_error): each rate's band, and why there is none
    # or why it may not hold here
    default_band: tuple[float, float] | None = None
    tuned_band: tuple[float, float] | None = None
    given_band: tuple[float, float] | None = None
    band_error: float | None = None
    band_source: str = ""  # where the band's held-out errors were measured
    warning: str = ""

    @property
    def default_mbs(self) -> float | None:
        return self.default.rate_mbs if self.default.ok else None

    @property
    def tuned_mbs(self) -> float | None:
        return self.tuned.rate_mbs if self.tuned is not None and self.tuned.ok else None

    @property
    def given_mbs(self) -> float | None:
        return self.given.rate_mbs if self.given is not None and self.given.ok else None

    @property
    def best_ceiling_mbs(self) -> float | None:
        """The best any layout reaches from the workload's placement on this variant."""
        return self.default.best_ceiling_mbs

    @property
    def speedup(self) -> float | None:
        return self.tuned_mbs / self.default_mbs if self.tuned_mbs and self.default_mbs else None

    @property
    def speedup_band(self) -> tuple[float, float] | None:
        """The speedups both rates' bands allow: tuned's low end over default's high end to
        tuned's high end over default's low end, s / f^2 .. s x f^2 (module doc)."""
        if not (self.speedup and self.default_band and self.tuned_band):
            return None
        return (self.tuned_band[0] / self.default_band[1],
                self.tuned_band[1] / self.default_band[0])

    def runs(self) -> dict[str, SimResult]:
        """The simulations answered, by label: default, tuned, yours."""
        out = {"default": self.default}
        if self.tuned is not None:
            out["tuned"] = self.tuned
        if self.given is not None:
            out["yours"] = self.given
        return out


# -- platform variants ---------------------------------------------------------------------------

def parse_variation(text: str) -> Variation:
    """``ost_count=24,48`` -> Variation("filesystem.targets", (24, 48))."""
    key, sep, values = text.partition("=")
    if not sep or not key or not values:
        raise UserError(f"--vary {text}: expected PATH=V1,V2,... (e.g. filesystem.targets=24,48)")
    return Variation(key, tuple(parse_document(v, f"--vary {key}", floats=True)
                                for v in values.split(",")))


def _parameters(platform: Platform, path: str, value: Any) -> dict[str, Any]:
    """The platform parameters one ``--vary`` setting stands for."""
    if path == OST_COUNT:
        value = varied_value("filesystem.targets", value, 1)
        fs = platform.data["filesystem"]
        servers = max(1, round(value * fs["servers"] / fs["targets"]))
        return {"filesystem.targets": int(value), "filesystem.servers": servers}
    known = platform.parameter_paths()
    if path not in known:
        nearby = [p for p in known if p.split(".")[-1] == path.split(".")[-1]]
        hint = f"; did you mean {nearby[0]}?" if nearby else ""
        raise UserError(f"--vary {path}: {platform.name} has no parameter {path!r}{hint} "
                        f"(parameters: {OST_COUNT}, {', '.join(known)})")
    return {path: varied_value(path, value, dotted_get(platform.data, path))}


def varied_value(path: str, value: Any, current: Any) -> Any:
    """A value ``--vary`` gives a model's figure, checked as the spec sheet key giving it is
    (data/sheet-schema.yaml: its kind and bounds), else as a value of the current one's type:
    a whole number for a count (never truncated), a finite number >= 0 for a number."""
    where = f"--vary {path}={shown(value)}"
    block, _, key = path.removeprefix("site_defaults.").partition(".")
    if path.startswith("site_defaults.") and key in load_schema().blocks.get(block, {}):
        try:  # a site default is a tuning config's value
            return validate_value(block, key, value, "--vary", path)
        except ConfigError as error:
            raise UserError(str(error)) from None
    field = model_field(path)
    if field is not None and isinstance(current, int | float) and not isinstance(current, bool):
        checked = check_value("--vary", path, value, field)
        return parse_size(checked) if field.kind == "size" else checked
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(current, bool) or not isinstance(current, int | float):
        if type(value) is not type(current):
            raise UserError(f"{where}: expected a value like {shown(current)}")
        return value
    if not number or (isinstance(current, int) and not isinstance(value, int)) or not (
            math.isfinite(value) and value >= 0):
        kind = "a whole number" if isinstance(current, int) else "a finite number"
        raise UserError(f"{where}: expected {kind} >= 0 like {shown(current)}")
    return value


def vary(platform: Platform, settings: Mapping[str, Any]) -> Platform:
    """The platform with ``settings`` (``--vary`` path -> value) applied, kept consistent."""
    parameters: dict[str, Any] = {}
    for path, value in settings.items():
        parameters.update(_parameters(platform, path, value))
    varied = platform.with_values(parameters)
    return varied.with_values(_stripe_limits(varied, platform))


def _stripe_limits(varied: Platform, original: Platform) -> dict[str, int]:
    """Lustre: no more stripes than OSTs, and a limit equal to the OST count stays equal."""
    fs, before = varied.data["filesystem"], original.data["filesystem"]
    if fs.get("type") != "lustre":
        return {}
    targets = int(fs["targets"])
    limit = targets if before["max_stripe_count"] == before["targets"] else min(
        int(fs["max_stripe_count"]), targets)
    limits = {"filesystem.max_stripe_count": limit}
    default_count = varied.data["site_defaults"].get("lustre", {}).get("stripe_count")
    if isinstance(default_count, int) and default_count > limit:
        limits["site_defaults.lustre.stripe_count"] = limit
    return limits


def variants(platform: Platform, variations: Sequence[Variation]) -> list[tuple[str, Platform]]:
    """(label, platform) for every combination of the variations' values."""
    if not variations:
        return [("default", platform)]
    out = []
    for values in itertools.product(*(v.values for v in variations)):
        label = " ".join(v.label(x) for v, x in zip(variations, values, strict=True))
        out.append((label, vary(platform, {v.path: x
                                           for v, x in zip(variations, values, strict=True)})))
    return out


# -- tuning in simulation ------------------------------------------------------------------------

class SimulatedMachine:
    """The search strategies' Evaluator where the platform model is the machine: a measurement
    is a simulation (batched per call, each config once), and the budget counts them. Every
    simulation's whole answer is kept (``results``, by config hash)."""

    def __init__(self, space: BoundSpace,
                 simulate: Callable[[Sequence[Config]], list[SimResult]], budget: int) -> None:
        self.space, self._simulate, self.budget = space, simulate, budget
        self.measured: dict[str, tuple[Point, float | None]] = {}
        self.results: dict[str, SimResult] = {}

    def runs_left(self) -> int:
        return self.budget - len(self.measured)

    def is_measured(self, point: Point) -> bool:
        return config_hash(self.space.config(point)) in self.measured

    def measure(self, points: Sequence[Point]) -> list[float | None]:
        keys = [config_hash(self.space.config(p)) for p in points]
        new = list({k: p for k, p in zip(keys, points, strict=True)
                    if k not in self.measured}.items())
        allowed = new[:max(0, self.runs_left())]
        if allowed:
            results = self._simulate([self.space.config(p) for _, p in allowed])
            for (key, point), result in zip(allowed, results, strict=True):
                self.measured[key] = (point, result.rate_mbs if result.ok else None)
                self.results[key] = result
        if len(allowed) < len(new):
            raise BudgetExhausted
        return [self.measured[k][1] for k in keys]

    def repeat(self, points: Sequence[Point]) -> list[float | None]:
        """A simulation run again gives the same rate: nothing is run, nothing is spent."""
        return [self.measured[config_hash(self.space.config(p))][1] for p in points]

    def runs_of(self, point: Point) -> list[float]:
        found = self.measured.get(config_hash(self.space.config(point)))
        return [found[1]] if found is not None and found[1] is not None else []

    def predict(self, points: Sequence[Point]) -> list[float | None]:
        return [None] * len(points)  # no second model: strategies that need one are refused

    def recalibrate(self) -> None:
        pass

    def earlier_residuals(self) -> list[tuple[Config, float]]:
        return []  # no store: a search in simulation learns from no earlier campaign

    def end_generation(self, generation: int, best_predicted: float | None = None,
                       state: SearchState | None = None) -> None:
        pass

    def screened(self, step: int, steps: int, best_predicted: float | None) -> None:
        pass

    def best(self) -> tuple[Point, float] | None:
        ok = [(p, r) for p, r in self.measured.values() if r is not None]
        return max(ok, key=lambda item: item[1]) if ok else None

    def result(self, point: Point) -> SimResult:
        return self.results[config_hash(self.space.config(point))]


def fits(space: BoundSpace, budget: int) -> bool:
    """Whether the space's distinct points (after repair) number at most ``budget``."""
    if space.size <= budget:
        return True
    distinct = set()
    for point in space.points():
        distinct.add(space.repair(point)[0])
        if len(distinct) > budget:
            return False
    return True


#: strategies that simulate every point they try (sim-screened needs real runs besides)
SIMULATION_STRATEGIES = tuple(kind.name for kind in REGISTRY if kind.runs_in_simulation)


def choose_strategy(tuning: Tuning, space: BoundSpace) -> str:
    if tuning.strategy is None:
        return "exhaustive" if fits(space, tuning.budget) else "h5evolve"
    if tuning.strategy not in SIMULATION_STRATEGIES:
        raise UserError(f"--strategy {tuning.strategy}: a what-if search simulates every "
                        f"point; choose one of {', '.join(SIMULATION_STRATEGIES)}")
    return tuning.strategy


def search_in_simulation(platform: Platform, work: Mapping[str, Any], tuning: Tuning,
                         simulate: Simulate) -> tuple[SimulatedMachine, str]:
    """The search step of the tuning pipeline alone (iotwin.tuning.pipeline.tune), with the
    model as the machine: a simulation has no noise to confirm against and no default run to
    measure, so there is nothing for the pipeline's confirmation and summary to do."""
    space = tuning.space.bind(platform_space_context(platform, int(work["ranks"]), work))
    strategy = choose_strategy(tuning, space)
    machine = SimulatedMachine(
        space, lambda configs: simulate(platform, work, configs, max_steps=tuning.max_steps),
        tuning.budget)
    settings = strategy_settings(strategy)
    may_stop_early = strategy_kind(strategy).may_stop_early
    if "generations" in settings:  # run on until the simulation budget, not the paper's 40 x 15
        settings["generations"] = tuning.budget
    run_strategy(strategy, machine, tuning.seed, settings)
    if machine.runs_left() > 0 and may_stop_early:
        # the population converged before the budget was spent: spend the rest on fresh points
        run_strategy("random", machine, tuning.seed, strategy_settings("random"))
        strategy = f"{strategy}+random"
    return machine, strategy


# -- the study -----------------------------------------------------------------------------------

def placed_with_note(platform: Platform, work: Mapping[str, Any]
                     ) -> tuple[Mapping[str, Any], str]:
    """The workload on the platform's nodes (as every simulation places it), with a note when
    it needs more nodes than the platform has and runs oversubscribed."""
    spread = sim.placed(platform, work)
    if spread.get("ranks_per_node") == work.get("ranks_per_node"):
        return work, ""
    return spread, f"oversubscribed: {spread['ranks_per_node']} ranks per node"


def predict(platform_name: str, variant: str, platform: Platform, work: Mapping[str, Any],
            tuning: Tuning | None, simulate: Simulate,
            errors: Mapping[str, ValidatedError] | None = None,
            given: Config | None = None) -> Prediction:
    """The default config's simulation on ``platform``, the best a search finds (``tuning``)
    and the user's own config (``given``)."""
    work, note = placed_with_note(platform, work)
    configs: list[Config] = [{}] if given is None else [{}, given]
    answers = simulate(platform, work, configs)
    prediction = Prediction(platform_name, variant, answers[0], note=note,
                            given=answers[1] if given is not None else None)
    if tuning is not None:
        _tune(prediction, platform, work, tuning, simulate)
    _attach_error(prediction, int(work["ranks"]), validated_errors() if errors is None else errors)
    return prediction


def _attach_error(prediction: Prediction, ranks: int,
                  errors: Mapping[str, ValidatedError]) -> None:
    error = errors.get(prediction.platform)
    if error is None:
        prediction.warning = unvalidated_warning(prediction.platform)
        return
    prediction.band_error = error.band_error
    prediction.band_source = error.source
    prediction.default_band = error.band(prediction.default_mbs)
    prediction.tuned_band = error.band(prediction.tuned_mbs)
    prediction.given_band = error.band(prediction.given_mbs)
    notes = [error.scale_warning(ranks)]
    if prediction.variant != "default":
        notes.append("the band is the validated model's; this variant changes it")
    prediction.warning = "; ".join(n for n in notes if n)


def _tune(prediction: Prediction, platform: Platform, work: Mapping[str, Any], tuning: Tuning,
          simulate: Simulate) -> None:
    default = prediction.default_mbs
    machine, prediction.strategy = search_in_simulation(platform, work, tuning, simulate)
    prediction.simulations = len(machine.measured)
    best = machine.best()
    if best and (default is None or best[1] > default):
        point = best[0]
        prediction.tuned = machine.result(point)
        prediction.tuned_config = machine.space.config(point)
        prediction.tuned_settings = machine.space.describe(point)
    else:
        prediction.tuned = prediction.default  # nothing searched beats the site's defaults


def study(work: Mapping[str, Any], platforms: Sequence[str],
          load_platform: Callable[[str], Platform], simulate: Simulate, *,
          variations: Sequence[Variation] = (), tuning: Tuning | None = None,
          errors: Mapping[str, ValidatedError] | None = None,
          given: Config | None = None) -> list[Prediction]:
    """The workload on each platform (and variant); ``errors``: the known error of each
    platform's model (default: the paper validation's); ``given``: a user's own config,
    simulated beside the default."""
    results = []
    for name in platforms:
        base = load_platform(name)  # a model file is named by its model's name
        for label, variant in variants(base, variations):
            results.append(predict(base.name, label, variant, work, tuning, simulate, errors,
                                   given))
    return results
