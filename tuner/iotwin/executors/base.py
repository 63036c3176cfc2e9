"""The one small interface every executor implements.

An executor measures one run of a target under a tuning config. Repetitions, storage and
search live above it, so a new executor (Slurm, another machine) is one new module that
touches no strategy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from iotwin.store.source import Source

Status = Literal["ok", "failed", "timeout"]


@dataclass(frozen=True)
class Target:
    """What to run: a kernel of kernels/ with its arguments, or any HDF5 program."""

    ranks: int
    kernel: str | None = None
    args: tuple[str, ...] = ()
    command: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if (self.kernel is None) == (not self.command):
            raise ValueError("a Target names either a kernel or a command, not both")
        if self.ranks < 1:
            raise ValueError(f"ranks must be >= 1, got {self.ranks}")

    @property
    def label(self) -> str:
        what = self.kernel if self.kernel else " ".join(self.command)
        return f"{what} x{self.ranks}"


@dataclass
class RunResult:
    """One repetition: what it measured, or why it failed."""

    status: Status
    total_s: float | None = None
    rate_mbs: float | None = None
    bytes: int | None = None
    phases: dict[str, float] = field(default_factory=dict)
    reports: list[dict[str, Any]] = field(default_factory=list)  # interposer, one per file
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class Executor(Protocol):
    """Runs a target once under a config."""

    #: the store's `source` for what this executor measures: "real" or "twin"
    source: Source

    def run_once(self, target: Target, config: Mapping[str, Any], *, seed: int = 0) -> RunResult:
        """Measure one repetition. Never raises for a failing run: returns status failed/timeout."""
        ...


class JobExecutor(Executor, Protocol):
    """An executor whose runs are scheduler jobs: a batch is submitted at once, then each job is
    followed and collected. A campaign stores every handle the moment it has it, so that a
    resume collects the jobs a killed campaign left queued instead of submitting them again.
    ``queues_jobs`` says whether the runs are jobs right now (inside an allocation the Slurm
    executor runs job steps, one at a time, through ``run_once``)."""

    queues_jobs: bool

    def submit(self, target: Target, config: Mapping[str, Any], *,
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
