"""The one small interface every executor implements.

An executor measures one run of a target under a tuning config. Repetitions, storage and
search live above it, so a new executor (Slurm, another machine) is one new module that
touches no strategy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from iotwin.config.types import Config
from iotwin.core.run_records import RunResult, Source, Target


class Executor(Protocol):
    """Runs a target once under a config."""

    #: the store's `source` for what this executor measures: "real" or "twin"
    source: Source

    def run_once(self, target: Target, config: Config, *, seed: int = 0) -> RunResult:
        """Measure one repetition. Never raises for a failing run: returns status failed/timeout."""
        ...


class JobExecutor(Executor, Protocol):
    """An executor whose runs are scheduler jobs: a batch is submitted at once, then each job is
    followed and collected. A campaign stores every handle the moment it has it, so that a
    resume collects the jobs a killed campaign left queued instead of submitting them again.
    ``queues_jobs`` says whether the runs are jobs right now (inside an allocation the Slurm
    executor runs job steps, one at a time, through ``run_once``)."""

    queues_jobs: bool

    def submit(self, target: Target, config: Config, *,
               seed: int = 0) -> dict[str, Any]:
        """Hand one run to the scheduler; its handle (JSON: what ``collect`` needs)."""
        ...

    def collect(self, target: Target, handle: Mapping[str, Any],
                on_resubmit: Callable[[dict[str, Any]], None]) -> RunResult:
        """Wait for the job of ``handle`` and return its run. A job the machine lost (node
        failure, preemption) is submitted once more; ``on_resubmit`` gets the new handle."""
        ...

    def cancel(self, handle: Mapping[str, Any]) -> None:
        """Cancel the job of ``handle`` (an interrupted campaign does not leave it running)."""
        ...


def queues_jobs(executor: Executor) -> bool:
    return bool(getattr(executor, "queues_jobs", False))
