"""Measuring a config R times, or two configs in R alternating pairs: each run is stored the
moment it exists.

Used by ``iotwin run`` (``--compare``: pairs), ``iotwin tune``'s summary (pairs) and the
calibration probes; the result summarises the repetitions as a median and spread of time and
rate, and a pair of configs' speedup on their pairs (iotwin.core.stats).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO, TypeVar

from iotwin.config.types import Config
from iotwin.core.progress import say
from iotwin.core.run_records import Objective, RunResult, Target
from iotwin.core.stats import Speedup, Summary, format_mbs, paired_speedup, summarize
from iotwin.executors.base import Executor
from iotwin.store.database import Evaluation, Store


@dataclass
class Measurement:
    """The repetitions of one target under one config, and their ids in the store."""

    target: Target
    config: Config
    runs: list[RunResult] = field(default_factory=list)
    evaluation_ids: list[int] = field(default_factory=list)
    objective: Objective = "io"  # what its rate counts (iotwin.core.run_records.Objective)

    @property
    def ok_runs(self) -> list[RunResult]:
        return [run for run in self.runs if run.ok]

    @property
    def time(self) -> Summary | None:
        return self._summary(lambda run: run.total_s)

    @property
    def rate(self) -> Summary | None:
        """The runs' rates as the objective counts them."""
        return self._summary(lambda run: run.rate_for(self.objective))

    @property
    def io_rate(self) -> Summary | None:
        """The runs' I/O rates: their bytes over their time inside I/O calls."""
        return self._summary(lambda run: run.rate_mbs)

    def phase(self, name: str) -> Summary | None:
        """The runs' seconds in one phase (``wall_s``, ``compute_s``...), where they have it."""
        return self._summary(lambda run: run.phases.get(name))

    def _summary(self, figure: Callable[[RunResult], float | None]) -> Summary | None:
        values = [value for run in self.ok_runs if (value := figure(run)) is not None]
        return summarize(values) if values else None

    @property
    def reports(self) -> list[dict[str, Any]]:
        """The interposer's reports of the last successful repetition (settings do not vary),
        else of the last one (what it says of a config it refused, say)."""
        runs = self.ok_runs or self.runs
        return runs[-1].reports if runs else []


V = TypeVar("V")

#: one repetition run and stored: (repetition) -> (the run, its id in the store)
RunAndStore = Callable[[int], tuple[RunResult, int]]


def run_then_store(executor: Executor, target: Target, config: Config, *,
                   store: Store, campaign_id: int | None, platform: str,
                   label: str = "") -> RunAndStore:
    """Each repetition: one ``executor.run_once``, then a row of the store."""
    def run_and_store(repetition: int) -> tuple[RunResult, int]:
        run = executor.run_once(target, config, seed=repetition)
        return run, store.add_run(campaign_id, target, run, config=config, platform=platform,
                                  source=executor.source, repetition=repetition,
                                  details={"label": label} if label else None)
    return run_and_store


def measure(target: Target, config: Config, run_and_store: RunAndStore, *,
            repeat: int, label: str = "", progress: TextIO | None = sys.stderr,
            stored: Sequence[Evaluation] = ()) -> Measurement:
    """Run ``target`` ``repeat`` times under ``config`` through ``run_and_store`` (which
    stores every repetition: `run_then_store`, or a campaign's runs, which follow scheduler
    jobs); the ``stored`` repetitions of a run cut short count, and only the missing ones
    run."""
    measurement = Measurement(target, config, [row.run_result() for row in stored[:repeat]],
                              [row.id for row in stored[:repeat]])
    for repetition in range(len(measurement.runs), repeat):
        run, evaluation_id = run_and_store(repetition)
        measurement.runs.append(run)
        measurement.evaluation_ids.append(evaluation_id)
        say(progress, progress_line(label or target.label, repetition, repeat, run))
    return measurement


def measure_pairs(target: Target, configs: Mapping[str, Config],
                  run_and_store: Mapping[str, RunAndStore], *, rounds: int,
                  progress: TextIO | None = sys.stderr,
                  stored: Mapping[str, Sequence[Evaluation]] | None = None,
                  objective: Objective = "io") -> dict[str, Measurement]:
    """Two (or more) configs by label, in ``rounds`` rounds of one run each, the order
    alternating from round to round (:func:`interleaved_rounds`): run i of each is round i's,
    so that a comparison takes the rounds as pairs (:func:`pair_speedup`). ``run_and_store``
    runs and stores a label's run of a round; the ``stored`` runs of a comparison cut short
    count, and only the missing ones run. ``objective``: what the measurements' rates count."""
    labels = list(configs)
    done_before = {label: [(row.run_result(), row.id) for row in (stored or {}).get(label, [])]
                   for label in labels}

    def run(slot: int, round_index: int) -> tuple[RunResult, int]:
        result, evaluation_id = run_and_store[labels[slot]](round_index)
        say(progress, progress_line(labels[slot], round_index, rounds, result))
        return result, evaluation_id

    done = interleaved_rounds(labels, rounds, done_before, run)
    return {label: Measurement(target, configs[label], [result for result, _ in runs[:rounds]],
                               [evaluation_id for _, evaluation_id in runs[:rounds]], objective)
            for label, runs in zip(labels, done, strict=True)}


def pair_speedup(first: Measurement, second: Measurement) -> Speedup | None:
    """``second`` over ``first`` on their pairs (run i of each: :func:`measure_pairs`), with
    the paired interval (core.stats.paired_speedup); None without a pair of successful runs."""
    def rates(measurement: Measurement) -> list[float | None]:
        return [run.rate_for(measurement.objective) if run.ok else None
                for run in measurement.runs]

    return paired_speedup(rates(first), rates(second))


PROGRESS_TAIL = 3  # lines of a failed run's output in its progress line


def progress_line(label: str, repetition: int, repeat: int, run: RunResult) -> str:
    """One repetition in a line; a failed one with why (its error's first line: the exit
    status) and the last lines of what the program said."""
    head = f"  {label}  rep {repetition + 1}/{repeat}: {run.status}"
    if not run.ok:
        lines = [line for line in (run.error or "").strip().splitlines() if line.strip()]
        return f"{head}  {' | '.join(lines[:1] + lines[1:][-PROGRESS_TAIL:])}"
    rate = f"  {format_mbs(run.rate_mbs)} MB/s" if run.rate_mbs is not None else ""
    time = f"  {run.total_s:.3f} s" if run.total_s is not None else ""  # a replay has no time
    return f"{head}{time}{rate}"


def rotated_rounds(count: int, rounds: int) -> Iterator[tuple[int, int]]:
    """(round, item) for ``rounds`` rounds of one run of each of ``count`` items, the order
    rotated by one each round: drift and load during a round hit every item alike, and no
    item always runs first (two items: ABBAAB...)."""
    for round_index in range(rounds):
        for item in rotation(range(count), round_index):
            yield round_index, item


def rotation(items: Sequence[V], round_index: int) -> list[V]:
    """The items in the order of round ``round_index`` of :func:`rotated_rounds`: the first
    of them moved to the back once a round."""
    return [items[(position + round_index) % len(items)] for position in range(len(items))]


def interleaved_rounds(keys: Sequence[str], rounds: int, stored: Mapping[str, Sequence[V]],
                       run: Callable[[int, int], V]) -> list[list[V]]:
    """``rounds`` rounds of one run of each item (by key), the order rotated from round to
    round. ``stored``: each item's runs that exist already, in the order they ran (round 0
    first), which are not run again; ``run`` (item, round) runs and stores one. Each item's
    runs by round (and any stored beyond ``rounds``)."""
    done = {key: list(stored.get(key, ())) for key in keys}
    for round_index, slot in rotated_rounds(len(keys), rounds):
        runs = done[keys[slot]]
        if len(runs) <= round_index:
            runs.append(run(slot, round_index))
    return [done[key] for key in keys]


def measured_io_rates(summary: Mapping[str, Measurement]) -> dict[str, float | None]:
    """The summary's median I/O rate of each label: what the model's ceilings bound, whatever
    the objective."""
    return {label: (rate.median if (rate := m.io_rate) else None)
            for label, m in summary.items()}
