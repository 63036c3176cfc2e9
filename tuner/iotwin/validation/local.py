"""The local fidelity suite: how well the calibrated `local` model ranks and predicts real runs.

A stratified sample of configs of a space (every value of every parameter about equally
often) is run on this machine, repeated (the median counts); each config is then predicted
by the platform model calibrated under k-fold cross-validation, never on a fold that holds
the config. The figures: Spearman rank correlation, median and 90th percentile of
|predicted / measured - 1|, and whether the measured best is among the predicted top 5.
Beside them, what the measurements themselves allow: the noise floor (how far repetitions
of one config spread, and how well one repetition ranks the configs like another), and the
model's log residual per setting (which mechanism it gets wrong).

A best picked from a few noisy repetitions is itself noisy (and its repetitions are biased
upwards: they are why it was picked). The suite therefore confirms it: the measured top-k
configs run again in interleaved rounds (every config once a round, the order rotated, so
drift hits them alike), and the confirmed best is the highest median of those fresh runs
alone; beside it, how many rounds it won against the runner-up and a paired signed-rank test.

The suite's settings are data (validation/local/suite.yaml). Everything lands in one store
campaign (kind ``validation``); running the same suite again resumes it: measured
repetitions are reused and only the missing ones run.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from iotwin.config.settings import flat_settings
from iotwin.config.types import Config
from iotwin.config.validation import DEFAULT_CONFIG
from iotwin.core import paths
from iotwin.core.errors import InputError
from iotwin.core.hashing import config_hash
from iotwin.core.progress import say
from iotwin.core.run_records import Target
from iotwin.core.stats import median_relative_error, spearman, wilcoxon_p
from iotwin.core.units import parse_size
from iotwin.core.yaml_files import read_input
from iotwin.executors.base import Executor
from iotwin.executors.capture_run import capture_program
from iotwin.executors.local import LocalExecutor
from iotwin.executors.mpi_flavour import flavour_of
from iotwin.model.calibration import Observation, fit, predict
from iotwin.model.platforms import load_platform
from iotwin.model.sheet_schema import check_record, record_schema
from iotwin.model.sim import simulate
from iotwin.model.site_rules import platform_space_context
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.store.database import Evaluation, Store, workload_of
from iotwin.tuning.repetitions import interleaved_rounds
from iotwin.workloads.partial_writes import program_context
from iotwin.workloads.workload import kernel_workload

TOP_K = 5
# Settings of the confirmation only: changing them keeps the stored campaign and its runs.
_CONFIRM_KEYS = ("confirm_top", "confirm_rounds")
_WORKLOAD_KEY = "workload"  # a program's captured workload, kept in the campaign's spec


# -- metrics ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Metrics:
    n: int
    spearman: float
    median_error: float  # median |predicted / measured - 1|
    p90_error: float  # its 90th percentile
    best_predicted_rank: int  # 1 = the measured best is the model's first choice
    best_in_top5: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def meets_targets(self) -> bool:
        return self.spearman >= 0.8 and self.best_in_top5


def relative_errors(predicted: Sequence[float], measured: Sequence[float]) -> np.ndarray:
    return np.abs(np.asarray(predicted, float) / np.asarray(measured, float) - 1.0)


def predicted_rank_of_best(predicted: Sequence[float], measured: Sequence[float]) -> int:
    """Where the config with the highest measured rate stands in the predicted order (1 = top)."""
    return predicted_rank(predicted, int(np.argmax(measured)))


def predicted_rank(predicted: Sequence[float | None], index: int) -> int:
    """Where config ``index`` stands in the predicted order (1 = top) among the configs with a
    prediction. Ties count against the model (the config is placed after its equals)."""
    own = predicted[index]
    if own is None:
        raise ValueError(f"config {index + 1} has no prediction to rank")
    return 1 + sum(1 for i, p in enumerate(predicted) if i != index and p is not None
                   and p >= own)


def metrics(predicted: Sequence[float], measured: Sequence[float]) -> Metrics:
    if len(predicted) != len(measured) or len(measured) < 3:
        raise ValueError("fidelity metrics need >= 3 (predicted, measured) pairs")
    errors = relative_errors(predicted, measured)
    rank = predicted_rank_of_best(predicted, measured)
    return Metrics(n=len(measured), spearman=spearman(predicted, measured),
                   median_error=float(np.median(errors)),
                   p90_error=float(np.percentile(errors, 90)),
                   best_predicted_rank=rank, best_in_top5=rank <= TOP_K)


# -- what the measurements allow, and where the model is wrong --------------------------------

@dataclass(frozen=True)
class NoiseFloor:
    """How reproducible the measurements are: the limit of any model judged against them."""

    configs: int  # configs with >= 2 successful repetitions
    median_spread: float  # median over configs of (max - min) / median of their repetitions
    p90_spread: float  # its 90th percentile
    repeat_spearman: float  # Spearman of the 1st repetition's rates against the 2nd's
    between_configs: float  # 90th / 10th percentile of the configs' median rates

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def noise_floor(rates_of_configs: Sequence[Sequence[float]]) -> NoiseFloor | None:
    """The spread of repetitions against the spread between configs; None under 3 configs
    repeated. ``repeat_spearman`` ranks single runs: medians of several rank better."""
    repeated = [rates for rates in rates_of_configs if len(rates) >= 2]
    if len(repeated) < 3:
        return None
    spreads = [(max(rates) - min(rates)) / statistics.median(rates) for rates in repeated]
    centres = [statistics.median(rates) for rates in rates_of_configs if rates]
    agreement = spearman([r[0] for r in repeated], [r[1] for r in repeated])
    return NoiseFloor(configs=len(repeated), median_spread=float(np.median(spreads)),
                      p90_spread=float(np.percentile(spreads, 90)),
                      repeat_spearman=float(agreement),
                      between_configs=float(np.percentile(centres, 90)
                                            / np.percentile(centres, 10)))


@dataclass(frozen=True)
class SettingResidual:
    setting: str  # a config key and its value, e.g. "dataset.fill_time=ifset"
    configs: int
    median_log_ratio: float  # median of log(predicted / measured) over those configs


def residuals_by_setting(configs: Sequence[Config],
                         predicted: Sequence[float | None], measured: Sequence[float | None]
                         ) -> list[SettingResidual]:
    """The model's median log error among the configs that share each setting, largest
    first: a setting whose configs are all over- or under-predicted names a mechanism the
    model gets wrong (the default config, with no settings, counts nowhere)."""
    by_setting: dict[str, list[float]] = {}
    for config, p, m in zip(configs, predicted, measured, strict=True):
        if p and m:
            for setting in flat_settings(config):
                by_setting.setdefault(setting, []).append(float(np.log(p / m)))
    residuals = [SettingResidual(setting, len(logs), float(np.median(logs)))
                 for setting, logs in by_setting.items()]
    return sorted(residuals, key=lambda r: -abs(r.median_log_ratio))


# -- the sample ---------------------------------------------------------------------------------

def stratified_configs(space: Any, count: int, rng: random.Random) -> list[Config]:
    """The default config, then ``count - 1`` distinct configs whose genes cycle through their
    values in shuffled order (a Latin-hypercube-like design over discrete values); repairs that
    merge points are topped up with random points."""
    configs: dict[str, Config] = {config_hash(DEFAULT_CONFIG): DEFAULT_CONFIG}
    columns = []
    for size in (len(gene.values) for gene in space.genes):
        column = [i % size for i in range(count)]
        rng.shuffle(column)
        columns.append(column)
    candidates = [tuple(column[i] for column in columns) for i in range(count)]
    misses = 0
    while len(configs) < count and misses < 1000:
        point = candidates.pop() if candidates else space.random_point(rng)
        config = space.config(point)
        misses = misses + 1 if config_hash(config) in configs else 0
        configs.setdefault(config_hash(config), config)
    return list(configs.values())


# -- the suite ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Suite:
    platform: str = "local"
    filesystem: str = "ufs"  # this machine's, as the space needs it (no platform model needed)
    space: str = "local"
    kernel: str | None = "vpic-io"  # None: the program of ``command``
    command: tuple[str, ...] = ()  # a program not written for iotwin (its workload captured)
    env: dict[str, str] = field(default_factory=dict)  # more variables for the program's ranks
    ranks: int = 4
    args: tuple[str, ...] = ()
    samples: int = 40
    repetitions: int = 3
    folds: int = 5
    seed: int = 0
    fit_evaluations: int = 40
    timeout_s: float = 300.0
    warm_up: int = 0  # bytes written and removed just before each run (LocalExecutor)
    confirm_top: int = 5  # the measured top-k that the confirmation re-runs
    confirm_rounds: int = 0  # interleaved rounds of them; 0: no confirmation

    @property
    def target(self) -> Target:
        if self.command:
            return Target(ranks=self.ranks, command=self.command)
        return Target(ranks=self.ranks, kernel=self.kernel, args=self.args)

    def to_json(self) -> dict[str, Any]:
        return {"suite": "local", **asdict(self), "args": list(self.args),
                "command": list(self.command)}

    def identity(self) -> dict[str, Any]:
        """What decides the stratified runs and fits: a stored campaign with the same identity
        is this suite's, whatever its confirmation settings."""
        return _identity(self.to_json())


def suite_executor(suite: Suite, workdir: Path | None = None) -> Executor:
    """The executor of a suite's real runs: this machine's, with the suite's settings, in
    ``workdir`` (default: the current directory)."""

    return LocalExecutor(timeout_s=suite.timeout_s, env=suite.env, warm_up_bytes=suite.warm_up,
                         workdir=workdir or Path.cwd())


def _identity(spec: Mapping[str, Any]) -> dict[str, Any]:
    # campaigns stored before warm_up existed ran without one
    return {key: value for key, value in {"warm_up": 0, **spec}.items()
            if key not in (*_CONFIRM_KEYS, _WORKLOAD_KEY)}


def default_suite_path() -> Path:
    return paths.repo_root() / "validation" / "local" / "suite.yaml"


def load_suite(path: Path) -> Suite:
    """A suite spec (its schema data/suite-schema.yaml); InputError naming the file, the line
    and the key."""
    return read_input(path, "suite", parse_suite)


def parse_suite(document: Any, origin: str) -> Suite:
    data = check_record(origin, "", document or {}, record_schema("suite-schema")["suite"])
    program = _program_keys(data, origin)
    suite = Suite(**{**data, "args": tuple(data.get("args", [])), **program,
                     "warm_up": parse_size(data.get("warm_up", 0))})
    if suite.confirm_rounds and not 2 <= suite.confirm_top <= suite.samples:
        raise InputError(origin, "confirm_top", f"expected 2 to samples ({suite.samples}) "
                                                f"configs to confirm, got {suite.confirm_top}")
    return suite


def _program_keys(data: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """``command`` and ``env`` checked, with words naming files relative to the suite file's
    folder made absolute (the suite runs from any directory, its program in the working
    directory)."""
    command, env = data.get("command", []), data.get("env", {})
    if not command:
        if env:
            raise InputError(origin, "env", "only for a program (`command`)")
        return {}
    if "kernel" in data:
        raise InputError(origin, "command", "give `kernel` or `command`, not both")
    folder = Path(origin).parent

    def absolute(word: Any) -> str:
        local = folder / str(word)
        if Path(str(word)).is_absolute() or not local.exists():
            return str(word)
        return os.path.normpath(local.absolute())   # textual: a venv's python stays a link
    return {"kernel": None, "command": tuple(absolute(w) for w in command),
            "env": {str(k): absolute(v) for k, v in env.items()}}


@dataclass
class SuiteResult:
    campaign_id: int
    configs: list[Config]
    measured: list[float | None]  # median rate per config
    predicted: list[float | None]  # cross-validated prediction per config
    metrics: Metrics | None
    notes: list[str]
    noise: NoiseFloor | None = None
    residuals: list[SettingResidual] = field(default_factory=list)
    uncalibrated: Metrics | None = None  # the platform's own values, no fit: what a fit buys
    confirmation: Confirmation | None = None  # the measured best re-decided on fresh runs


def find_or_create_campaign(store: Store, suite: Suite, kind: str = "validation",
                            name: str | None = None) -> int:
    """The stored campaign of this very suite (to resume), else a new one: a ``kind``
    campaign (a validation; a measured landscape)."""
    for campaign in store.campaigns(kind=kind):
        if _identity(campaign.spec) == suite.identity():
            return campaign.id
    return store.create_campaign(name or f"validate local {suite.target.label}",
                                 kind=kind, spec=suite.to_json())


def measure_configs(store: Store, campaign_id: int, suite: Suite, executor: Executor,
                    configs: Sequence[Config], progress: TextIO | None
                    ) -> list[list[float]]:
    """The successful rates of each config, by repetition; stored repetitions are reused,
    missing ones run."""
    done: dict[str, list[Evaluation]] = {}
    for row in _real_rows(store, campaign_id, executor):
        if not is_confirmation_run(row):
            done.setdefault(row.config_hash, []).append(row)
    rates_of_configs: list[list[float]] = []
    for index, config in enumerate(configs):
        stored = sorted(done.get(config_hash(config), []), key=lambda r: r.repetition or 0)
        rates = [r.rate_mbs for r in stored if r.ok and r.rate_mbs]
        for repetition in range(len(stored), suite.repetitions):
            rate = _run_and_store(store, campaign_id, suite, executor, config, repetition,
                                  {"sample": index})
            rates.extend([rate] if rate else [])
            say(progress, f"  config {index + 1}/{len(configs)} rep {repetition + 1}/"
                          f"{suite.repetitions}: {_rate(rate)}")
        rates_of_configs.append(rates)
    return rates_of_configs


def _real_rows(store: Store, campaign_id: int, executor: Executor) -> list[Evaluation]:
    return store.evaluations(campaign_id, source=executor.source)


def _run_and_store(store: Store, campaign_id: int, suite: Suite, executor: Executor,
                   config: Config, repetition: int, details: Mapping[str, Any]
                   ) -> float | None:
    """One real run, stored the moment it ends; its rate, None if it failed."""
    run = executor.run_once(suite.target, config, seed=repetition)
    store.add_run(campaign_id, suite.target, run, config=config, platform=suite.platform,
                  source=executor.source, repetition=repetition, details=details)
    return run.rate_mbs if run.ok and run.rate_mbs else None


# -- the confirmation of the measured best ------------------------------------------------------

_CONFIRM_ROUND = "confirm_round"  # details key of a confirmation run


def is_confirmation_run(row: Evaluation) -> bool:
    """A run of the confirmation, not one of the suite's repetitions (which alone make the
    medians that the model is judged against)."""
    return _CONFIRM_ROUND in row.details


@dataclass(frozen=True)
class Confirmation:
    """The measured top-k re-run in interleaved rounds; the best decided on those runs only."""

    samples: list[int]  # the configs confirmed (indices), by their suite median, highest first
    rounds: list[dict[int, float]]  # per confirmed config: round -> rate of its successful runs
    best: int  # index of the config with the highest median of its confirmation runs
    runner_up: int  # the next one
    rounds_won: int  # rounds in which the best beat the runner-up (both runs successful)
    rounds_paired: int
    p_value: float | None  # Wilcoxon signed-rank test of those paired rounds (two-sided)
    best_predicted_rank: int | None = None  # the cross-validated model's rank of the best

    def median(self, sample: int) -> float:
        return statistics.median(self.rounds[self.samples.index(sample)].values())

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "best_median_mbs": self.median(self.best),
                "runner_up_median_mbs": self.median(self.runner_up)}

    def summary(self) -> list[str]:
        """The confirmation in a few lines, for people."""
        rounds = max((len(r) for r in self.rounds), default=0)
        raw = self.samples[0]
        rank = self.best_predicted_rank
        test = f", signed-rank p = {self.p_value:.3f}" if self.p_value is not None else ""
        return [
            f"confirmation: the measured top {len(self.samples)} re-run, up to {rounds} "
            f"interleaved rounds each",
            f"  confirmed best: config {self.best + 1}, median {self.median(self.best):.1f} MB/s"
            f" (the suite's best was config {raw + 1}); predicted rank "
            + (f"{rank} ({'in' if rank <= TOP_K else 'NOT in'} the predicted top {TOP_K})"
               if rank is not None else "- (no prediction)"),
            f"  runner-up: config {self.runner_up + 1}, median "
            f"{self.median(self.runner_up):.1f} MB/s; the best won {self.rounds_won} of "
            f"{self.rounds_paired} paired rounds{test}",
        ]


def top_measured(measured: Sequence[float | None], k: int) -> list[int]:
    """The k configs with the highest measured rates, highest first."""
    rated = {i: rate for i, rate in enumerate(measured) if rate}
    return sorted(rated, key=lambda i: -rated[i])[:k]


def confirm_runs(store: Store, campaign_id: int, suite: Suite, executor: Executor,
                 configs: Sequence[Config], samples: Sequence[int],
                 progress: TextIO | None) -> list[dict[int, float]]:
    """``suite.confirm_rounds`` rounds of one run of every sample, the order rotated from round
    to round; stored runs are reused. Each sample's successful rates by round."""
    rows = sorted((row for row in _real_rows(store, campaign_id, executor)
                   if is_confirmation_run(row)), key=lambda row: row.details[_CONFIRM_ROUND])
    stored: dict[str, list[float | None]] = {}
    for row in rows:
        stored.setdefault(row.config_hash, []).append(
            row.rate_mbs if row.ok and row.rate_mbs else None)

    def run(slot: int, round_: int) -> float | None:
        sample = samples[slot]
        rate = _run_and_store(store, campaign_id, suite, executor, configs[sample],
                              suite.repetitions + round_,
                              {"sample": sample, _CONFIRM_ROUND: round_})
        say(progress, f"  confirm round {round_ + 1}/{suite.confirm_rounds} config "
                      f"{sample + 1}: {_rate(rate)}")
        return rate

    done = interleaved_rounds([config_hash(configs[s]) for s in samples], suite.confirm_rounds,
                              stored, run)
    return [{round_: rate for round_, rate in enumerate(rates[:suite.confirm_rounds]) if rate}
            for rates in done]


def confirmation(samples: Sequence[int], rounds: Sequence[Mapping[int, float]]
                 ) -> Confirmation | None:
    """The best and runner-up by the median of their confirmation runs, and how clearly the
    best beats the runner-up round by round; None under 2 confirmed configs with runs."""
    ran = [(sample, dict(r)) for sample, r in zip(samples, rounds, strict=True) if r]
    if len(ran) < 2:
        return None
    ranked = sorted(ran, key=lambda item: -statistics.median(item[1].values()))
    (best, best_rounds), (runner_up, runner_rounds) = ranked[0], ranked[1]
    paired = sorted(set(best_rounds) & set(runner_rounds))
    differences = [best_rounds[r] - runner_rounds[r] for r in paired]
    p_value = (wilcoxon_p(differences)
               if len(differences) >= 2 and any(differences) else None)
    return Confirmation(samples=list(samples), rounds=[dict(r) for r in rounds], best=best,
                        runner_up=runner_up, rounds_won=sum(1 for d in differences if d > 0),
                        rounds_paired=len(paired), p_value=p_value)


def medians(rates_of_configs: Sequence[Sequence[float]]) -> list[float | None]:
    return [statistics.median(rates) if rates else None for rates in rates_of_configs]


def suite_workload(store: Store, campaign_id: int, suite: Suite,
                   progress: TextIO | None, workdir: Path | None = None) -> Mapping[str, Any]:
    """What the model simulates: a kernel's own description, or the program's workload,
    captured from one run of its default config when the campaign is new and kept in the
    campaign's spec (so that a resumed suite predicts from the same workload)."""

    if suite.kernel is not None:
        return kernel_workload(suite.kernel, suite.ranks, list(suite.args),
                               flavour_of(suite.target, suite.env).name)
    spec = store.campaign(campaign_id).spec
    if _WORKLOAD_KEY not in spec:
        program = capture_program(suite.target, timeout_s=suite.timeout_s, env=suite.env,
                                  workdir=workdir)
        for what in program.not_modelled:
            say(progress, f"capture: not modelled: {what}")
        store.update_campaign_spec(campaign_id, {**spec, _WORKLOAD_KEY: program.workload})
        say(progress, f"captured the workload of {suite.target.label}: {program.summary()}")
        return program.workload
    return spec[_WORKLOAD_KEY]


def cross_validated_predictions(store: Store, campaign_id: int, suite: Suite,
                                workload: Mapping[str, Any],
                                configs: Sequence[Config],
                                measured: Sequence[float | None], progress: TextIO | None
                                ) -> list[float | None]:
    """Each measured config predicted by the model fitted on the other folds only."""

    platform = load_platform(suite.platform)
    usable = [i for i, rate in enumerate(measured) if rate]
    order = usable[:]
    random.Random(suite.seed).shuffle(order)
    predicted: list[float | None] = [None] * len(configs)
    folds = min(suite.folds, len(usable))
    for fold in range(folds):
        held = order[fold::folds]
        kept = [Observation(workload, configs[i], measured[i] or 0.0)
                for i in usable if i not in held]
        fitted = fit(platform, kept, max_evaluations=suite.fit_evaluations)
        held_obs = [Observation(workload, configs[i], measured[i] or 0.0) for i in held]
        rates = predict(platform.with_values(fitted.parameters), held_obs)
        heldout = median_relative_error(rates, [measured[i] for i in held])
        calibration = store.add_calibration(
            suite.platform, fitted.parameters, fit_error=fitted.fit_error,
            heldout_error=heldout,
            campaign_id=campaign_id,
            details={**fitted.details, "fold": fold, "folds": folds, "held": len(held)})
        for i, rate in zip(held, rates, strict=True):
            predicted[i] = rate
            store.add_evaluation(
                campaign_id, config=configs[i], workload=workload_of(suite.target),
                ranks=suite.ranks, platform=suite.platform, source="sim",
                status="ok" if rate else "failed", rate_mbs=rate,
                details={"fold": fold, "calibration": calibration, "sample": i})
        say(progress, f"  fold {fold + 1}/{folds}: fitted on {len(kept)}, held-out median "
                      f"error {_percent(heldout)}")
    return predicted


def run_local_suite(store: Store, suite: Suite, executor: Executor | None = None,
                    progress: TextIO | None = sys.stderr,
                    workdir: Path | None = None) -> SuiteResult:
    """The suite run (or resumed) on this machine, its programs in ``workdir`` (default: the
    current directory), or on ``executor``."""
    flavour_of(suite.target, suite.env)  # a program refused leaves no campaign behind
    campaign_id = find_or_create_campaign(store, suite)
    workload = suite_workload(store, campaign_id, suite, progress, workdir)
    configs = suite_configs(suite, workload)
    say(progress, f"validation campaign {campaign_id}: {len(configs)} configs of space "
                  f"{suite.space} x {suite.repetitions} repetitions, {suite.target.label} "
                  f"{' '.join(suite.args)}")
    executor = executor if executor is not None else suite_executor(suite, workdir)
    rates = measure_configs(store, campaign_id, suite, executor, configs, progress)
    measured = medians(rates)
    confirmed = None
    if suite.confirm_rounds:
        samples = top_measured(measured, suite.confirm_top)
        confirmed = confirmation(samples, confirm_runs(store, campaign_id, suite, executor,
                                                       configs, samples, progress))
    predicted = cross_validated_predictions(store, campaign_id, suite, workload, configs,
                                            measured, progress)
    if confirmed is not None and predicted[confirmed.best] is not None:
        confirmed = replace(confirmed,
                            best_predicted_rank=predicted_rank(predicted, confirmed.best))
    uncalibrated, _ = paired_metrics(uncalibrated_predictions(suite.platform, workload, configs),
                                     measured)
    return SuiteResult(campaign_id, list(configs), measured, predicted,
                       *paired_metrics(predicted, measured), noise=noise_floor(rates),
                       residuals=residuals_by_setting(configs, predicted, measured),
                       uncalibrated=uncalibrated, confirmation=confirmed)


def suite_configs(suite: Suite, workload: Mapping[str, Any]) -> list[Config]:
    """The suite's configs: the default and a stratified sample of its space, on this
    machine's file system (a `local` suite) or the platform model's; a program's datasets
    that some ranks write alone stay independent."""

    machine = (SpaceContext(suite.filesystem, suite.ranks) if suite.platform == "local"
               else platform_space_context(load_platform(suite.platform), suite.ranks))
    space = load_space(suite.space).bind(program_context(machine, workload))
    return stratified_configs(space, suite.samples, random.Random(suite.seed))


def uncalibrated_predictions(platform: str, workload: Mapping[str, Any],
                             configs: Sequence[Config]) -> list[float | None]:
    """The rate of each config on ``platform``'s model as loaded, no fit (None: it failed)."""

    results = simulate(load_platform(platform), dict(workload), configs)
    return [r.rate_mbs if r.ok and r.rate_mbs else None for r in results]


def paired_metrics(predicted: Sequence[float | None], measured: Sequence[float | None]
                   ) -> tuple[Metrics | None, list[str]]:
    """Metrics over the configs that have both figures, and notes on those left out."""
    pairs = [(p, m) for p, m in zip(predicted, measured, strict=True) if p and m]
    notes = []
    failed_runs = sum(1 for m in measured if not m)
    failed_predictions = sum(1 for p, m in zip(predicted, measured, strict=True) if m and not p)
    if failed_runs:
        notes.append(f"{failed_runs} config(s) failed every real run: left out")
    if failed_predictions:
        notes.append(f"{failed_predictions} config(s) the model could not simulate: left out")
    if len(pairs) < 3:
        return None, [*notes, "fewer than 3 configs with both figures: no metrics"]
    return metrics([p for p, _ in pairs], [m for _, m in pairs]), notes


def _rate(rate: float | None) -> str:
    return f"{rate:.1f} MB/s" if rate else "failed"


def _percent(value: float | None) -> str:
    return f"{100 * value:.1f}%" if value is not None else "-"

