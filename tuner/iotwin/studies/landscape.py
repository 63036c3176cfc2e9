"""A measured landscape: a fixed sample of a space's configs, each run several times on this
machine, kept as a table that strategies can be benchmarked against (the ``table`` executor).

    measure_landscape(suite):
        configs <- the default config and a stratified, seeded sample of the space
                   (iotwin.validation.local.stratified_configs: every value of every
                   parameter about equally often)
        for pass in 1..repetitions:           # interleaved: drift hits every config alike
            for config in a seeded shuffle of configs:
                run it once unless this pass's run is stored; store it at once
        the table: every config's rate in every pass; the optimum is the best median

The spec is a local-suite file (validation/local/suite.yaml's format: kernel or command,
ranks, args, samples, repetitions, seed). Everything lands in one store campaign (kind
``landscape``); measuring the same spec again resumes it: only the missing runs are run.
The table is exported as CSV (one row per config: its settings as ``key=value`` differences
from the default, the exact config as JSON, the rate of each pass in MB/s) with a Markdown
page saying when and how it was measured.
"""

from __future__ import annotations

import datetime
import math
import os
import random
import statistics
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from iotwin.config.settings import settings_text
from iotwin.config.types import Config
from iotwin.core.errors import UserError
from iotwin.core.hashing import config_hash
from iotwin.core.progress import say
from iotwin.executors.base import Executor
from iotwin.executors.mpi_flavour import flavour_of
from iotwin.executors.table import Landscape
from iotwin.store.database import Evaluation, Store
from iotwin.validation.local import (
    Suite,
    find_or_create_campaign,
    noise_floor,
    residuals_by_setting,
    suite_configs,
    suite_executor,
    suite_workload,
    uncalibrated_predictions,
)

KIND = "landscape"  # the store campaign's kind


# -- measuring ----------------------------------------------------------------------------------

def errors_by_setting(table: Landscape, platform: str, workload: Mapping[str, Any]
                      ) -> dict[str, float]:
    """Measured / predicted by the uncalibrated ``platform`` model, median over the table's
    configs that hold each setting ("mpiio.cb_nodes=4": 0.8): the model's errors on a real
    machine, which a twin can carry as a structure the model lacks."""

    predicted = uncalibrated_predictions(platform, workload, table.configs)
    return {r.setting: math.exp(-r.median_log_ratio)
            for r in residuals_by_setting(table.configs, predicted, table.medians())}


def landscape_label(suite: Suite) -> str:
    return " ".join([suite.target.label, *suite.args])


def pass_order(count: int, seed: int, repetition: int) -> list[int]:
    """The order in which pass ``repetition`` runs the ``count`` configs: a shuffle of its own."""
    order = list(range(count))
    random.Random(f"landscape {seed} pass {repetition}").shuffle(order)
    return order


def measure_landscape(store: Store, suite: Suite, executor: Executor | None = None,
                      progress: TextIO | None = sys.stderr, workdir: Path | None = None
                      ) -> tuple[int, Landscape]:
    """Measure (or resume measuring) the spec's landscape, its programs run in ``workdir``
    (default: the current directory) or on ``executor``; its campaign id and table."""
    if executor is None:
        flavour_of(suite.target, suite.env)  # a program refused leaves no campaign behind
    campaign_id = find_or_create_campaign(store, suite, KIND,
                                          f"landscape {landscape_label(suite)}")
    configs = suite_configs(suite, suite_workload(store, campaign_id, suite, progress, workdir))
    executor = executor if executor is not None else suite_executor(suite, workdir)
    done = set(_stored_runs(store, campaign_id))
    total = len(configs) * suite.repetitions
    say(progress, f"landscape campaign {campaign_id}: {len(configs)} configs x "
                  f"{suite.repetitions} passes of {landscape_label(suite)}, "
                  f"{len(done)} of {total} runs stored")
    for repetition in range(suite.repetitions):
        for index in pass_order(len(configs), suite.seed, repetition):
            config = configs[index]
            if (config_hash(config), repetition) in done:
                continue
            load = os.getloadavg()[0]
            run = executor.run_once(suite.target, config, seed=repetition)
            store.add_run(campaign_id, suite.target, run, config=config,
                          platform=suite.platform, source=executor.source, repetition=repetition,
                          details={"sample": index, "load": round(load, 2)})
            done.add((config_hash(config), repetition))
            shown = f"{run.rate_mbs:.1f} MB/s" if run.ok and run.rate_mbs else run.status
            say(progress, f"  pass {repetition + 1}/{suite.repetitions} run {len(done)}/{total}"
                          f" config {index}: {shown} (load {load:.2f})")
    return campaign_id, landscape_of(store, campaign_id, suite, configs)


def _stored_runs(store: Store, campaign_id: int) -> dict[tuple[str, int], Evaluation]:
    """The campaign's runs (real, or a twin's) by config and pass."""
    return {(row.config_hash, row.repetition): row for row in _runs(store, campaign_id)}


def _runs(store: Store, campaign_id: int) -> list[Evaluation]:
    return [row for row in store.evaluations(campaign_id) if row.source != "sim"]


def landscape_of(store: Store, campaign_id: int, suite: Suite,
                 configs: Sequence[Config]) -> Landscape:
    """The table of a measured campaign."""
    runs = _stored_runs(store, campaign_id)
    rates = [[_rate(runs.get((config_hash(c), r))) for r in range(suite.repetitions)]
             for c in configs]
    return Landscape(landscape_label(suite), list(configs), rates)


def _rate(row: Evaluation | None) -> float | None:
    return row.rate_mbs if row is not None and row.ok and row.rate_mbs else None


# -- how it was measured ------------------------------------------------------------------------

@dataclass(frozen=True)
class Conditions:
    """When and how a landscape was measured: what a reader needs to trust it."""

    started: str
    ended: str
    runs: int
    failed: int
    load: tuple[float, float, float]  # 1-min load average before each run: min, median, max
    median_spread: float  # of (max - min) / median over a config's passes
    p90_spread: float
    repeat_spearman: float  # pass 1 against pass 2
    drift: float  # median over configs of last pass / first pass - 1
    within_5: int  # configs whose median is within 5% of the optimum
    within_2: int


def conditions(store: Store, campaign_id: int, table: Landscape) -> Conditions:
    rows = _runs(store, campaign_id)
    if not rows:
        raise UserError(f"landscape campaign {campaign_id}: nothing measured yet")
    loads = sorted(float(r.details.get("load", 0.0)) for r in rows)
    noise = noise_floor([[r for r in row if r] for row in table.rates])
    firsts_lasts = [(row[0], row[-1]) for row in table.rates if row[0] and row[-1]]
    return Conditions(
        started=_when(min(r.created for r in rows)), ended=_when(max(r.created for r in rows)),
        runs=len(rows), failed=sum(not r.ok for r in rows),
        load=(loads[0], statistics.median(loads), loads[-1]),
        median_spread=noise.median_spread if noise else 0.0,
        p90_spread=noise.p90_spread if noise else 0.0,
        repeat_spearman=noise.repeat_spearman if noise else 0.0,
        drift=statistics.median(last / first - 1 for first, last in firsts_lasts),
        within_5=sum(table.within(c, 0.05) for c in table.configs),
        within_2=sum(table.within(c, 0.02) for c in table.configs))


def _when(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def conditions_page(table: Landscape, found: Conditions, command: str, where: str) -> str:
    """The Markdown page that goes with a committed table."""
    medians = table.medians()
    best = max(range(len(medians)), key=lambda i: medians[i] or 0.0)
    default = table.median_of({})
    return "\n".join([
        f"# Measured landscape: {table.label}", "",
        f"`{command}`", "",
        f"- Measured {found.started} to {found.ended} on {where}.",
        f"- {len(table.configs)} configs (the default and a stratified sample of the space) x "
        f"{max(len(r) for r in table.rates)} passes; each pass runs every config once, in a "
        f"shuffled order of its own, so that drift spreads over all configs. "
        f"{found.runs} runs, {found.failed} failed.",
        f"- 1-minute load average before each run: {found.load[0]:.2f} min, "
        f"{found.load[1]:.2f} median, {found.load[2]:.2f} max (the run before it included).",
        f"- Spread of a config's passes, (max - min) / median: {100 * found.median_spread:.0f}% "
        f"median, {100 * found.p90_spread:.0f}% 90th percentile; pass 1 ranks the configs like "
        f"pass 2 with Spearman {found.repeat_spearman:.2f}.",
        f"- Drift, last pass against first (median over configs): {100 * found.drift:+.1f}%.",
        f"- Optimum (best median): {table.optimum:.1f} MB/s, "
        f"`{settings_text(table.configs[best])}`; the default config: "
        f"{f'{default:.1f} MB/s' if default else 'not measured'}.",
        f"- Configs within 5% of the optimum: {found.within_5}; within 2%: {found.within_2}.",
        ""])
