"""The records every layer shares about a run: what to run (:class:`Target`), what one run
measured (:class:`RunResult`), and what produced a stored measurement (:data:`Source`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from iotwin.core.text import printable

#: what produced a stored measurement: the simulator, a real run, or the twin executor
Source = Literal["sim", "real", "twin"]

Status = Literal["ok", "failed", "timeout"]

#: what a tuning makes faster: the program's I/O (its bytes over its time inside I/O calls, the
#: region the model simulates) or its whole run (its bytes over the launcher's wall time)
Objective = Literal["io", "wall"]
OBJECTIVES: tuple[Objective, ...] = ("io", "wall")


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
        """The program and the ranks, as one printable line: ``vpic-io x4``."""
        what = self.kernel if self.kernel else " ".join(self.command)
        return f"{printable(what)} x{self.ranks}"


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

    def rate_for(self, objective: Objective) -> float | None:
        """The run's rate as ``objective`` counts it: ``io``, its rate (bytes over its time
        inside I/O calls); ``wall``, its bytes over its wall time (None without one)."""
        if objective == "io":
            return self.rate_mbs
        wall = self.phases.get("wall_s")
        return self.bytes / 1e6 / wall if self.bytes and wall else None
