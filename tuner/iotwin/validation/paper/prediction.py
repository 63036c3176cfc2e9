"""Simulated rates of the paper validation's cases: steps extrapolated, simulations remembered.

A workload of T identical steps costs the simulator T times one step; its first step (which
also pays the file's create, open and close) and its first two give the rest when the steps
are identical: T steps take t1 + (T - 1)(t2 - t1). validation/paper/README.md quantifies it
against full simulations. The simulator is deterministic: a (platform, workload, config)
simulated before in this process is not simulated again (leave-one-out refits start from the
same point as the fit), nor one logged in a ``partial`` directory by the same simulator (an
interrupted run resumes; a rebuilt iosim simulates again).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iotwin.config.types import Config
from iotwin.model import calibration as calibrate
from iotwin.model.calibration import Observation
from iotwin.model.platforms import Platform
from iotwin.model.sim_memo import simulator_identity
from iotwin.validation.paper.cases import STEPS_KEY, Case, workload_bytes


@dataclass
class SimulationMemo:
    """The rates simulated so far, by digest of (platform, workload, config), and the log in
    which they are kept for a later run."""

    rates: dict[str, float | None] = field(default_factory=dict)
    log: Path | None = None  # where new simulations are appended (``partial``)
    logged: set[str] = field(default_factory=set)  # the keys that log holds

    def keep_in(self, directory: Path | None) -> None:
        """Reuse the simulations logged in ``directory`` and log this process's new ones there
        (``simulated-PID.jsonl``: processes sharing the directory do not write the same file),
        so that an interrupted run resumes without simulating again. None: log nothing."""
        self.log = None
        self.logged.clear()
        if directory is None:
            return
        for log in sorted(directory.glob("simulated-*.jsonl")):
            for line in log.read_text().splitlines():
                if line.endswith("}"):  # a line cut by an interruption is skipped
                    entry = json.loads(line)
                    self.rates[entry["key"]] = entry["rate_mbs"]
                    self.logged.add(entry["key"])
        directory.mkdir(parents=True, exist_ok=True)
        self.log = directory / f"simulated-{os.getpid()}.jsonl"

    def simulated(self, platform: Platform, queries: Sequence[Observation], jobs: int
                  ) -> list[float | None]:
        """Each query's simulated rate, simulating only those not simulated before."""
        model = json.dumps([simulator_identity(), platform.data, platform.free_parameters()],
                           sort_keys=True)
        keys = [hashlib.sha1((model + json.dumps([q.workload, q.config], sort_keys=True))
                             .encode()).hexdigest() for q in queries]
        missing = {key: query for key, query in zip(keys, queries, strict=True)
                   if key not in self.rates}
        rates = calibrate.predict(platform, list(missing.values()), jobs) if missing else []
        self.rates.update(zip(missing, rates, strict=True))
        self._append_to_log(keys)
        return [self.rates[key] for key in keys]

    def _append_to_log(self, keys: Sequence[str]) -> None:
        if self.log is None:
            return
        unlogged = {key: self.rates[key] for key in keys if key not in self.logged}
        with self.log.open("a") as stream:
            stream.writelines(json.dumps({"key": key, "rate_mbs": rate}) + "\n"
                              for key, rate in unlogged.items())
        self.logged.update(unlogged)


#: this process's simulations (its worker processes start with them: start_worker_memo)
MEMO = SimulationMemo()


def worker_memo_args() -> tuple[dict[str, float | None], Path | None]:
    """What a worker process's memo starts from (start_worker_memo's arguments): this
    process's simulations, and the directory of its log."""
    return dict(MEMO.rates), MEMO.log.parent if MEMO.log else None


def start_worker_memo(rates: dict[str, float | None], directory: Path | None) -> None:
    """A worker process's MEMO: its parent's simulations, its new ones logged beside the
    parent's log, in a file of its own."""
    MEMO.rates.update(rates)
    MEMO.keep_in(directory)


def predict_rates(platform: Platform, observations: Sequence[Observation],
                  jobs: int = 2) -> list[float | None]:
    """:func:`iotwin.model.calibration.predict`, with T identical steps timed as
    t1 + (T - 1)(t2 - t1), and remembered in :data:`MEMO`."""
    queries: list[Observation] = []
    starts = []
    for obs in observations:
        starts.append(len(queries))
        parts = obs.workload.get("step_workloads", [obs.workload])
        queries.extend(Observation(part, obs.config, obs.rate_mbs) for part in parts)
    rates = MEMO.simulated(platform, queries, jobs)
    return [_extrapolated(obs.workload, rates[at], rates[at + 1]) if STEPS_KEY in obs.workload
            else rates[at] for obs, at in zip(observations, starts, strict=True)]


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
    """A case's simulated rate, and the config it was simulated with."""

    config: Config
    rate_mbs: float | None


def predict_cases(platform: Platform, cases: Sequence[Case]) -> list[Predicted]:
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
