"""Paper validation: the platform models fitted to the published measurements, and how well.

The rows are ``validation/paper/published-measurements.csv`` (Table 4 of "Taming parallel I/O
complexity with auto-tuning" at 128 cores, and the H5Tuner poster at 512 cores); how each row
is simulated (kernel arguments that reproduce its data size, ranks per node, the tuned
parameters' meaning, what "tuned" means where no parameters are published) is data,
``validation/paper/cases.yaml``.

Each platform model's free parameters (bounds from its YAML) are fitted to that platform's
default and tuned rows with :func:`iotwin.model.calibration.fit` (robust loss on log rate). A tuned
row without published parameters is predicted with the model's own best config over a seeded
sample of the paper's space, chosen under the model being fitted and re-chosen after the fit.
Leave-one-out refits the platform without each row in turn and predicts that row: the held-out
error is what the fitted models are worth on rows they have not seen. Leave-one-scale-out
refits a platform with rows at several core counts on one scale's rows and predicts the
others': what the models are worth at a scale they were not fitted at.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import multiprocessing
import os
import random
import re
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import yaml

from iotwin.config.schema import validate_config
from iotwin.config.types import Config
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.stats import spearman
from iotwin.core.units import parse_size
from iotwin.model import calibration as calibrate
from iotwin.model.calibration import Observation
from iotwin.model.platforms import load_platform as platform_from_file
from iotwin.model.platforms import platform_space_context
from iotwin.space.parameters import load_space
from iotwin.validation.paper_sensitivity import (
    ParameterEffect,
    SelectionRule,
    choose_parameters,
    scan,
)
from iotwin.workloads.replication.sessions import session_bytes
from iotwin.workloads.workload import kernel_workload as kernel_description

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_Record = TypeVar("_Record", bound="DataclassInstance")

LoadPlatform = Callable[[str], Any]

FITTED_SETTINGS = ("default", "tuned")
SPREAD_SETTINGS = ("min_observed", "max_observed")
#: a workload of identical steps simulated as its first one and two (see predict_rates)
STEPS_KEY = "extrapolated_steps"


def paper_dir() -> Path:
    return paths.repo_root() / "validation" / "paper"


# -- the published rows ----------------------------------------------------------------------

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
    def case(self) -> tuple[str, str, str, int]:
        """The experiment a default / tuned / min / max row belongs to."""
        return (self.source, self.platform, self.kernel, self.cores)

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
    rows = []
    for line, record in enumerate(records, start=2):
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
        rows.append(row)
    return rows


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


def _tuned_value(leaf: str, value: str, text: str) -> Any:
    try:
        if leaf == "alignment":
            threshold, boundary = value.strip("()").split(";")
            return {"threshold": parse_size(threshold), "boundary": parse_size(boundary)}
        return parse_size(value)  # counts are plain integers: parse_size("48") == 48
    except ValueError as error:
        raise UserError(f"tuned parameters {text!r}: {leaf}={value}: {error}") from error


# -- the settings file -----------------------------------------------------------------------

@dataclass(frozen=True)
class Sampling:
    space: str
    sample: int
    seed: int
    pin: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


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

    def workload_command(self, row: PublishedRow) -> tuple[str, list[str], int]:
        """(kernel, arguments, ranks per node) that reproduce a row's experiment."""
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
        return kernel, args, int(per_node)


def load_settings(path: Path | None = None) -> Settings:
    path = path or paper_dir() / "cases.yaml"
    try:
        data = yaml.safe_load(path.read_text())
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
    except (OSError, yaml.YAMLError) as error:
        raise UserError(f"{path}: {error}") from error
    except (KeyError, TypeError, ValueError) as error:
        raise UserError(f"{path}: missing or bad key: {error}") from error


# -- cases: a published row as something to simulate -----------------------------------------

@dataclass
class Case:
    """A default or tuned row with its workload and how its config is chosen."""

    row: PublishedRow
    model: str  # platform model name
    workload: dict[str, Any]
    origin: str  # site default | published | model optimum
    config: Config = field(default_factory=Config)  # fixed unless origin is model optimum
    candidates: list[Config] = field(default_factory=list)  # model optimum: searched configs

    @property
    def published_mbs(self) -> float:
        return self.row.rate_mbs


def model_name(row: PublishedRow) -> str:
    return row.platform.lower()


def build_cases(rows: Sequence[PublishedRow], settings: Settings, load_platform: LoadPlatform,
                kernel_workload: Callable[..., Mapping[str, Any]]) -> list[Case]:
    """The default and tuned rows as cases (min / max observed rows are for the spread)."""
    workloads: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    cases = []
    for row in rows:
        if row.setting not in FITTED_SETTINGS:
            continue
        if row.case not in workloads:
            workloads[row.case] = row_workload(row, settings, kernel_workload)
        workload = workloads[row.case]
        if row.setting == "default":
            cases.append(Case(row, model_name(row), workload, "site default"))
        elif row.tuned_parameters:
            config = parse_tuned_parameters(row.tuned_parameters, settings.tuned_parameter_keys)
            cases.append(Case(row, model_name(row), workload, "published", config))
        else:
            platform = load_platform(model_name(row))
            candidates = sample_configs(settings.model_optimum, platform, row)
            cases.append(Case(row, model_name(row), workload, "model optimum",
                              candidates=candidates))
    return cases


def row_workload(row: PublishedRow, settings: Settings,
                 kernel_workload: Callable[..., Mapping[str, Any]]) -> dict[str, Any]:
    """The kernel's workload for a row, checked against the row's published data size."""
    kernel, args, per_node = settings.workload_command(row)
    if row.kernel in settings.extrapolate_steps:
        steps, describe = _steps_argument(args, row)
        workload = {STEPS_KEY: steps, "step_workloads": [
            with_ranks_per_node(kernel_workload(kernel, row.cores, describe(n)), per_node)
            for n in (1, 2)]}
    else:
        workload = with_ranks_per_node(kernel_workload(kernel, row.cores, args), per_node)
    written = workload_bytes(workload)
    if abs(written / row.data_bytes - 1) > settings.size_tolerance:
        raise UserError(f"cases.yaml: {row.platform} {row.kernel} {row.cores}: `{kernel} "
                        f"{' '.join(args)}` writes {written / 2**30:.1f} GiB where the row has "
                        f"{row.data_written} (tolerance {settings.size_tolerance:.0%})")
    return workload


def _steps_argument(args: Sequence[str], row: PublishedRow
                    ) -> tuple[int, Callable[[int], list[str]]]:
    """The ``--steps T`` of a command line, and the same line with another step count."""
    try:
        at = list(args).index("--steps") + 1
        steps = int(args[at])
    except (ValueError, IndexError) as error:
        raise UserError(f"cases.yaml: {row.platform} {row.kernel}: extrapolated steps need "
                        f"`--steps T` in `{' '.join(args)}`") from error
    return steps, lambda n: [*args[:at], str(n), *args[at + 1:]]


def workload_bytes(workload: Mapping[str, Any]) -> int:
    """Payload of a workload (of all its steps when they are extrapolated)."""
    if STEPS_KEY in workload:
        one, two = (workload_bytes(w) for w in workload["step_workloads"])
        return one + (workload[STEPS_KEY] - 1) * (two - one)
    return sum(session_bytes(entry, workload["ranks"]) for entry in workload["files"])


def with_ranks_per_node(workload: Mapping[str, Any], ranks_per_node: int) -> dict[str, Any]:
    """The workload run with ``ranks_per_node`` ranks on each node (packed order)."""
    return {**workload, "ranks_per_node": ranks_per_node}


def sample_configs(sampling: Sampling, platform: Any, row: PublishedRow) -> list[Config]:
    """A seeded sample of distinct configs of a space on a platform, at a row's rank count."""
    bound = load_space(sampling.space).bind(platform_space_context(platform, row.cores),
                                            dict(sampling.pin.get(row.kernel, {})))
    rng = random.Random(f"{sampling.seed}:{row.platform}:{row.kernel}:{row.cores}")
    configs: dict[str, Config] = {}
    for _ in range(sampling.sample * 20):
        if len(configs) >= min(sampling.sample, bound.size):
            break
        config = bound.config(bound.random_point(rng))
        configs.setdefault(json.dumps(config, sort_keys=True), config)
    return list(configs.values())


# -- predicting and fitting ------------------------------------------------------------------

def predict_rates(platform: Any, observations: Sequence[Observation],
                  jobs: int = 2) -> list[float | None]:
    """:func:`iotwin.model.calibration.predict`, with T identical steps timed as
    t1 + (T - 1)(t2 - t1).

    A workload of T identical steps costs the simulator T times one step; its first step (which
    also pays the file's create, open and close) and its first two give the rest when the steps
    are identical. README.md quantifies it against full simulations. The simulator is
    deterministic: a (platform, workload, config) simulated before in this process is not
    simulated again (leave-one-out refits start from the same point as the fit).
    """
    queries: list[Observation] = []
    starts = []
    for obs in observations:
        starts.append(len(queries))
        parts = obs.workload.get("step_workloads", [obs.workload])
        queries.extend(Observation(part, obs.config, obs.rate_mbs) for part in parts)
    rates = _simulated_rates(platform, queries, jobs)
    return [_extrapolated(obs.workload, rates[at], rates[at + 1]) if STEPS_KEY in obs.workload
            else rates[at] for obs, at in zip(observations, starts, strict=True)]


_simulated: dict[str, float | None] = {}  # digest of (platform, workload, config) -> rate
_simulated_log: list[Path] = []  # where new simulations are appended (``partial``)
_logged: set[str] = set()  # the keys that log holds


def keep_simulations(directory: Path | None) -> None:
    """Reuse the simulations logged in ``directory`` and log this process's new ones there
    (``simulated-PID.jsonl``: processes sharing the directory do not write the same file), so
    that an interrupted run resumes without simulating again. None: log nothing."""
    _simulated_log.clear()
    _logged.clear()
    if directory is None:
        return
    for log in sorted(directory.glob("simulated-*.jsonl")):
        for line in log.read_text().splitlines():
            if line.endswith("}"):  # a line cut by an interruption is skipped
                entry = json.loads(line)
                _simulated[entry["key"]] = entry["rate_mbs"]
                _logged.add(entry["key"])
    directory.mkdir(parents=True, exist_ok=True)
    _simulated_log.append(directory / f"simulated-{os.getpid()}.jsonl")


def _simulated_rates(platform: Any, queries: Sequence[Observation], jobs: int
                     ) -> list[float | None]:
    model = json.dumps([platform.data, platform.free_parameters()], sort_keys=True)
    keys = [hashlib.sha1((model + json.dumps([q.workload, q.config], sort_keys=True)).encode())
            .hexdigest() for q in queries]
    missing = {key: query for key, query in zip(keys, queries, strict=True)
               if key not in _simulated}
    rates = calibrate.predict(platform, list(missing.values()), jobs) if missing else []
    _simulated.update(zip(missing, rates, strict=True))
    unlogged = {key: _simulated[key] for key in keys if key not in _logged}
    for log in _simulated_log:
        with log.open("a") as stream:
            stream.writelines(json.dumps({"key": key, "rate_mbs": rate}) + "\n"
                              for key, rate in unlogged.items())
        _logged.update(unlogged)
    return [_simulated[key] for key in keys]


def _extrapolated(workload: Mapping[str, Any], one: float | None, two: float | None
                  ) -> float | None:
    if not one or not two:
        return None
    one_bytes, two_bytes = (workload_bytes(w) for w in workload["step_workloads"])
    one_s, two_s = one_bytes / 1e6 / one, two_bytes / 1e6 / two
    total_s = one_s + (workload[STEPS_KEY] - 1) * (two_s - one_s)
    return workload_bytes(workload) / 1e6 / total_s if total_s > 0 else None


@dataclass(frozen=True)
class Predicted:
    config: Config
    rate_mbs: float | None


def predict_cases(platform: Any, cases: Sequence[Case]) -> list[Predicted]:
    """Each case's simulated rate; a model-optimum case takes its best candidate."""
    queries: list[Observation] = []
    spans: list[tuple[int, int]] = []
    for case in cases:
        configs = case.candidates if case.origin == "model optimum" else [case.config]
        spans.append((len(queries), len(queries) + len(configs)))
        queries.extend(Observation(case.workload, config, case.published_mbs)
                       for config in configs)
    rates = predict_rates(platform, queries)
    predictions = []
    for start, stop in spans:
        best = max(range(start, stop), key=lambda i: rates[i] or 0.0)
        predictions.append(Predicted(queries[best].config, rates[best]))
    return predictions


def robust_loss(predicted: Sequence[float | None], published: Sequence[float]) -> float:
    """The soft-L1 loss on log rate that the fit minimises (a failed prediction: 1000x off),
    doubled: the scale the recorded losses were reported in."""
    return 2 * calibrate.soft_l1(calibrate.log_ratios(predicted, published))


@dataclass
class PlatformFit:
    model: str
    parameters: dict[str, float]
    before: dict[str, float]
    loss_before: float
    loss_after: float
    evaluations: int
    rounds: int
    converged: bool

    def on_bound(self, platform: Any) -> list[str]:
        """The fitted parameters that ended within 1% (of the log range) of a bound."""
        free = platform.free_parameters()
        return [name for name, value in self.parameters.items()
                if _near_bound(value, *free[name][1:])]


def _near_bound(value: float, lower: float, upper: float) -> bool:
    if lower > 0:
        value, lower, upper = math.log(value), math.log(lower), math.log(upper)
    return min(value - lower, upper - value) <= 0.01 * (upper - lower)


def fit_cases(platform: Any, cases: Sequence[Case], parameters: Sequence[str],
              budget: FitBudget) -> tuple[Any, PlatformFit]:
    """Fit ``parameters`` of ``platform`` to ``cases`` in rounds until converged.

    Each round is a bounded least-squares fit of ``budget.evaluations_per_round`` evaluations
    from where the last one ended (the first from a coarse start of ``budget.scan_points``
    per parameter), after which the model-optimum configs are re-chosen under the fitted
    model. Converged: the configs stayed, and the fit stopped by itself or lowered
    the loss by less than ``budget.tolerance``. A round that raises the loss is not kept.
    """
    published = [case.published_mbs for case in cases]
    chosen = predict_cases(platform, cases)
    loss_before = loss = robust_loss([p.rate_mbs for p in chosen], published)
    fitted, values = platform, dict[str, float]()
    evaluations, rounds, converged = 0, 0, not parameters
    while parameters and not converged and rounds < budget.max_rounds:
        rounds += 1
        observations = [Observation(c.workload, p.config, c.published_mbs)
                        for c, p in zip(cases, chosen, strict=True)]
        calibration = calibrate.fit(platform, observations, parameters=parameters,
                                    max_evaluations=budget.evaluations_per_round,
                                    predictor=predict_rates, start=values,
                                    scan_points=budget.scan_points if rounds == 1 else 0)
        used = int(calibration.details.get("evaluations", 0))
        evaluations += used
        stopped_by_itself = (used - int(calibration.details.get("scan_evaluations", 0))
                             < budget.evaluations_per_round)
        candidate = platform.with_values(calibration.parameters)
        rechosen = predict_cases(candidate, cases)
        new_loss = robust_loss([p.rate_mbs for p in rechosen], published)
        if new_loss > loss:
            break
        settled = [p.config for p in rechosen] == [p.config for p in chosen]
        converged = settled and (stopped_by_itself
                                 or loss - new_loss <= budget.tolerance * loss)
        fitted, values, chosen, loss = candidate, calibration.parameters, rechosen, new_loss
    free = platform.free_parameters()
    now = fitted.free_parameters()
    return fitted, PlatformFit(
        model=platform.name, parameters={n: now[n][0] for n in parameters},
        before={n: free[n][0] for n in parameters}, loss_before=loss_before, loss_after=loss,
        evaluations=evaluations, rounds=rounds, converged=converged)


def leave_out(platform: Any, cases: Sequence[Case], groups: Sequence[Sequence[int]],
              parameters: Sequence[str], budget: FitBudget, say: Callable[[str], None] = print,
              workers: int = 1, what: str = "leave-one-out") -> list[Predicted]:
    """Each group of cases predicted by the platform fitted to all the other cases.

    The refits fit the same parameters as the full fit: their choice (paper_sensitivity) uses
    the rows' workloads and configs, never a published value. ``workers`` > 1 runs that many
    refits at once, in forked processes. A case in no group is not predicted (rate None).
    """
    def held_out(group: int) -> list[Predicted]:
        held = set(groups[group])
        say(f"{platform.name}: {what} {group + 1}/{len(groups)}: "
            f"{', '.join(cases[i].row.label for i in sorted(held))}")
        fitted, _ = fit_cases(platform, [c for i, c in enumerate(cases) if i not in held],
                              parameters, budget)
        return predict_cases(fitted, [cases[i] for i in sorted(held)])

    if workers <= 1:
        found = [held_out(group) for group in range(len(groups))]
    else:
        global _forked_job
        _forked_job = held_out  # forked workers inherit it: a closure cannot be pickled
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            found = pool.map(_run_forked_job, range(len(groups)), chunksize=1)
    predicted = [Predicted({}, None)] * len(cases)
    for group, predictions in zip(groups, found, strict=True):
        for i, prediction in zip(sorted(group), predictions, strict=True):
            predicted[i] = prediction
    return predicted


def leave_one_out(platform: Any, cases: Sequence[Case], parameters: Sequence[str],
                  budget: FitBudget, say: Callable[[str], None] = print, workers: int = 1
                  ) -> list[Predicted]:
    """Each case predicted by the platform fitted to all the other cases."""
    return leave_out(platform, cases, [[i] for i in range(len(cases))], parameters, budget,
                     say, workers)


def scale_groups(cases: Sequence[Case]) -> list[list[int]]:
    """The cases by core count, when a platform has rows at more than one scale."""
    by_cores: dict[int, list[int]] = {}
    for i, case in enumerate(cases):
        by_cores.setdefault(case.row.cores, []).append(i)
    return list(by_cores.values()) if len(by_cores) > 1 else []


def leave_one_scale_out(platform: Any, cases: Sequence[Case], parameters: Sequence[str],
                        budget: FitBudget, say: Callable[[str], None] = print, workers: int = 1
                        ) -> list[Predicted]:
    """Each scale's cases predicted by the platform fitted to the other scales' cases only
    (hopper: fitted at 128 cores, predicting 512, and the reverse): how the models extrapolate
    in scale, which leave-one-out, with rows of both scales in every refit, does not test."""
    return leave_out(platform, cases, scale_groups(cases), parameters, budget, say, workers,
                     "leave-one-scale-out")


_forked_job: Callable[[int], list[Predicted]] | None = None


def _run_forked_job(index: int) -> list[Predicted]:
    assert _forked_job is not None
    return _forked_job(index)


# -- the result ------------------------------------------------------------------------------

@dataclass
class RowResult:
    label: str
    source: str
    model: str
    kernel: str
    cores: int
    setting: str
    origin: str
    published_mbs: float
    prior_mbs: float | None  # the platform model before any fit (its YAML priors)
    fitted_mbs: float | None
    loo_mbs: float | None
    config: Config
    scale_out_mbs: float | None = None  # fitted without any row of this row's scale

    def error(self, which: str) -> float | None:
        predicted = getattr(self, f"{which}_mbs")
        return predicted / self.published_mbs - 1 if predicted else None


@dataclass
class SpeedupCase:
    """Default vs tuned of one experiment: does the model rank them as the paper measured?"""

    label: str
    origin: str  # how the tuned config was chosen
    published_speedup: float
    prior_speedup: float | None
    fitted_speedup: float | None
    loo_speedup: float | None
    scale_out_speedup: float | None = None

    def ranks_tuned_above(self, which: str) -> bool:
        """Whether model ``which`` (prior, fitted, loo) simulates tuned above default."""
        speedup = getattr(self, f"{which}_speedup")
        return bool(speedup and speedup > 1)


@dataclass
class Spread:
    """The poster's min / max observed runtimes against the model's over a sample of its space."""

    label: str
    published_min_s: float
    published_max_s: float
    simulated_min_s: float | None
    simulated_max_s: float | None
    configs: int

    @property
    def published_ratio(self) -> float:
        return self.published_max_s / self.published_min_s

    @property
    def simulated_ratio(self) -> float | None:
        if self.simulated_min_s and self.simulated_max_s:
            return self.simulated_max_s / self.simulated_min_s
        return None


@dataclass
class PaperValidation:
    rows: list[RowResult]
    cases: list[SpeedupCase]
    fits: list[PlatformFit]
    spreads: list[Spread]
    metrics: dict[str, Any]
    calibration_ids: dict[str, str]
    effects: dict[str, list[ParameterEffect]]  # per platform: the sensitivity scan
    on_bound: dict[str, list[str]]  # per platform: fitted parameters that ended on a bound

    def to_json(self) -> dict[str, Any]:
        return {"metrics": self.metrics, "calibration_ids": self.calibration_ids,
                "fits": [asdict(f) for f in self.fits], "rows": [asdict(r) for r in self.rows],
                "cases": [{**asdict(c), **{f"{w}_ranks_tuned_above": c.ranks_tuned_above(w)
                                           for w in MODELS}} for c in self.cases],
                "sensitivity": {m: [asdict(e) for e in found]
                                for m, found in self.effects.items()},
                "on_bound": self.on_bound,
                "spreads": [{**asdict(s), "published_ratio": s.published_ratio,
                             "simulated_ratio": s.simulated_ratio} for s in self.spreads]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PaperValidation:
        """The validation as ``results.json`` records it (the derived keys dropped)."""
        return cls(rows=[_record(RowResult, r) for r in data["rows"]],
                   cases=[_record(SpeedupCase, c) for c in data["cases"]],
                   fits=[_record(PlatformFit, f) for f in data["fits"]],
                   spreads=[_record(Spread, s) for s in data["spreads"]],
                   metrics=dict(data["metrics"]), calibration_ids=dict(data["calibration_ids"]),
                   effects={model: [_record(ParameterEffect, e) for e in found]
                            for model, found in data["sensitivity"].items()},
                   on_bound={model: list(names) for model, names in data["on_bound"].items()})


def _record(kind: type[_Record], data: Mapping[str, Any]) -> _Record:
    """A dataclass from its asdict() form, keys that are not its fields left out."""
    return kind(**{f.name: data[f.name] for f in fields(kind) if f.name in data})


def error_metrics(rows: Sequence[RowResult], which: str) -> dict[str, float | None]:
    """Median and 90th percentile |predicted / published - 1|, and Spearman's rho."""
    pairs = [(r.published_mbs, getattr(r, f"{which}_mbs")) for r in rows]
    usable = [(p, s) for p, s in pairs if s]
    if not usable:
        return {"rows": len(pairs), "median_abs_error": None, "p90_abs_error": None,
                "spearman": None, "failed": len(pairs)}
    errors = [abs(s / p - 1) for p, s in usable]
    rho = spearman([p for p, _ in usable], [s for _, s in usable]) \
        if len(usable) > 2 else None
    return {"rows": len(pairs), "median_abs_error": float(statistics.median(errors)),
            "p90_abs_error": float(np.percentile(errors, 90)),
            "spearman": None if rho is None or math.isnan(rho) else float(rho),
            "failed": len(pairs) - len(usable)}


def case_results(rows: Sequence[RowResult]) -> list[SpeedupCase]:
    by_case: dict[tuple[str, str, str, int], dict[str, RowResult]] = {}
    for row in rows:
        by_case.setdefault((row.source, row.model, row.kernel, row.cores), {})[row.setting] = row
    results = []
    for (_, model, kernel, cores), pair in by_case.items():
        if set(pair) != set(FITTED_SETTINGS):
            continue
        default, tuned = pair["default"], pair["tuned"]
        results.append(SpeedupCase(
            f"{model} {kernel} {cores}", tuned.origin,
            tuned.published_mbs / default.published_mbs,
            *(_ratio(getattr(tuned, f"{w}_mbs"), getattr(default, f"{w}_mbs")) for w in MODELS)))
    return results


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    return numerator / denominator if numerator and denominator else None


def spread_of(platform: Any, rows: Sequence[PublishedRow], workload: dict[str, Any],
              sampling: Sampling) -> Spread | None:
    """Min and max simulated runtimes over a sample of the space, against the poster's."""
    by_setting = {row.setting: row for row in rows}
    if not set(SPREAD_SETTINGS) <= set(by_setting):
        return None
    lowest, highest = by_setting["min_observed"], by_setting["max_observed"]
    configs = sample_configs(sampling, platform, lowest)
    rates = predict_rates(platform, [Observation(workload, c, 1.0) for c in configs])
    written = workload_bytes(workload)
    runtimes = [written / 1e6 / rate for rate in rates if rate]
    return Spread(f"{lowest.platform.lower()} {lowest.kernel} {lowest.cores}", lowest.value,
                  highest.value, min(runtimes, default=None), max(runtimes, default=None),
                  len(configs))


# -- the whole validation --------------------------------------------------------------------

def run_paper_validation(*, settings_path: Path | None = None,
                         platforms: Sequence[str] | None = None,
                         kernels: Sequence[str] | None = None,
                         loo: bool = True, workers: int = 1,
                         max_evaluations: int | None = None,
                         load_platform: LoadPlatform | None = None,
                         kernel_workload: Callable[..., Mapping[str, Any]] | None = None,
                         progress: Callable[[str], None] | None = None,
                         partial: Path | None = None) -> PaperValidation:
    """Per platform: scan, choose and fit its free parameters, refit without each row; report.

    Each platform starts from its YAML values before any fit (``Platform.with_priors``): a
    fit recorded by an earlier run is never where a leave-one-out refit starts.

    ``platforms`` (model names) and ``kernels`` (as the CSV names them, e.g. ``VPIC-IO``)
    select a subset of the rows; ``loo`` runs the leave-one-out refits; ``workers`` refits run
    at once; ``max_evaluations`` replaces cases.yaml's evaluations per fit round; ``progress``
    is told what starts. With ``partial``, each platform's part is saved there as
    ``MODEL.json`` when done and a saved part is reused, and every simulation is logged there
    (``simulated-PID.jsonl``) and not run again: an interrupted run resumes where it stopped,
    and platforms can run in separate processes that a last run merges.
    """
    say = progress or (lambda _: None)
    settings = load_settings(settings_path)
    if max_evaluations:
        settings = replace(settings, fit=replace(settings.fit,
                                                 evaluations_per_round=max_evaluations))
    load_platform = load_platform or platform_from_file
    kernel_workload = kernel_workload or kernel_description
    rows = [row for row in read_published(settings.published)
            if (not platforms or model_name(row) in platforms)
            and (not kernels or row.kernel in kernels)]
    if not rows:
        raise UserError(f"no published row for platforms {platforms or 'any'} and kernels "
                        f"{kernels or 'any'}")
    cases = build_cases(rows, settings, load_platform, kernel_workload)
    keep_simulations(partial)
    parts = []
    for model in sorted({case.model for case in cases}):
        mine = [case for case in cases if case.model == model]
        saved = partial / f"{model}.json" if partial else None
        if saved and saved.exists():
            say(f"{model}: from {saved}")
            parts.append(PlatformPart.from_json(json.loads(saved.read_text())))
            continue
        parts.append(_validate_platform(load_platform(model).with_priors(), mine, rows,
                                        settings, loo, say,
                                        workers))
        if saved:
            saved.parent.mkdir(parents=True, exist_ok=True)
            saved.write_text(json.dumps(asdict(parts[-1]), indent=1) + "\n")
    results = [row for part in parts for row in part.rows]
    return PaperValidation(results, case_results(results), [p.fit for p in parts],
                           [s for p in parts for s in p.spreads], _metrics(results),
                           {p.fit.model: calibration_id(p.fit) for p in parts},
                           {p.fit.model: p.effects for p in parts},
                           {p.fit.model: p.on_bound for p in parts})


@dataclass
class PlatformPart:
    """One platform's share of the validation (what ``partial`` directories keep)."""

    rows: list[RowResult]
    fit: PlatformFit
    spreads: list[Spread]
    effects: list[ParameterEffect]
    on_bound: list[str]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlatformPart:
        return cls([RowResult(**r) for r in data["rows"]], PlatformFit(**data["fit"]),
                   [Spread(**s) for s in data["spreads"]],
                   [ParameterEffect(**e) for e in data["effects"]], list(data["on_bound"]))


def _validate_platform(platform: Any, cases: Sequence[Case], rows: Sequence[PublishedRow],
                       settings: Settings, refit: bool, say: Callable[[str], None],
                       workers: int) -> PlatformPart:
    name = platform.name
    prior = predict_cases(platform, cases)
    say(f"{name}: sensitivity scan of {len(platform.free_parameters())} bounded parameters "
        f"over {len(cases)} rows")
    at_prior = [Observation(c.workload, p.config, c.published_mbs)
                for c, p in zip(cases, prior, strict=True)]
    effects = scan(platform, lambda model: predict_rates(model, at_prior))
    parameters = choose_parameters(effects, len(cases), settings.selection)
    say(f"{name}: fitting {', '.join(parameters) or 'nothing'} to {len(cases)} rows")
    fitted, fit = fit_cases(platform, cases, parameters, settings.fit)
    say(f"{name}: fit {'converged' if fit.converged else 'NOT converged'} after "
        f"{fit.evaluations} evaluations in {fit.rounds} rounds")
    after = predict_cases(fitted, cases)
    not_run = [Predicted({}, None)] * len(cases)
    held_out = (leave_one_out(platform, cases, parameters, settings.fit, say, workers)
                if refit else not_run)
    scale_out = (leave_one_scale_out(platform, cases, parameters, settings.fit, say, workers)
                 if refit else not_run)
    return PlatformPart([_row_result(*args) for args in zip(cases, prior, after, held_out,
                                                           scale_out, strict=True)],
                        fit, _spreads(fitted, rows, cases, settings.spread), effects,
                        fit.on_bound(platform))


def _row_result(case: Case, prior: Predicted, fitted: Predicted, held_out: Predicted,
                scale_out: Predicted) -> RowResult:
    row = case.row
    return RowResult(row.label, row.source, case.model, row.kernel, row.cores, row.setting,
                     case.origin, case.published_mbs, prior.rate_mbs, fitted.rate_mbs,
                     held_out.rate_mbs, fitted.config, scale_out.rate_mbs)


def _spreads(platform: Any, rows: Sequence[PublishedRow], cases: Sequence[Case],
             sampling: Sampling) -> list[Spread]:
    workloads = {case.row.case: case.workload for case in cases}
    found = []
    for key, workload in workloads.items():
        spread = spread_of(platform, [row for row in rows if row.case == key], workload,
                           sampling)
        if spread:
            found.append(spread)
    return found


MODELS = ("prior", "fitted", "loo", "scale_out")


def _metrics(rows: Sequence[RowResult]) -> dict[str, Any]:
    """The figures overall and per platform: for each of the prior, fitted and leave-one-out
    models, the row errors (error_metrics) and how often tuned is ranked above default."""
    platforms = sorted({r.model for r in rows})
    return {"overall": _figures(rows),
            "per_platform": {m: _figures([r for r in rows if r.model == m]) for m in platforms}}


def _figures(rows: Sequence[RowResult]) -> dict[str, Any]:
    figures = {}
    for which in MODELS:
        ran = {r.model for r in rows if getattr(r, f"{which}_mbs")}
        if not ran:
            continue  # not run (leave-one-out skipped)
        used = [r for r in rows if r.model in ran]  # platforms it ran on (their failures count)
        cases = case_results(used)
        published = [c for c in cases if c.origin == "published"]
        figures[which] = {**error_metrics(used, which),
                          "tuned_above_default": sum(c.ranks_tuned_above(which) for c in cases),
                          "published_configs_above": sum(c.ranks_tuned_above(which)
                                                         for c in published),
                          "cases": len(cases), "published_config_cases": len(published)}
    return figures


def calibration_id(fit: PlatformFit) -> str:
    """A stable name for a fit: the model and a digest of its fitted values."""
    digest = hashlib.sha1(json.dumps(fit.parameters, sort_keys=True).encode()).hexdigest()
    return f"paper-{fit.model}-{digest[:8]}"
