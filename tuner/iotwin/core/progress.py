"""Progress lines of long work: printed at once to a stream (stderr by default), or nowhere."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import TextIO


def say(progress: TextIO | None, line: str) -> None:
    """``line`` on ``progress``, at once (None: quiet)."""
    if progress is not None:
        print(line, file=progress, flush=True)


@dataclass(frozen=True)
class TimedProgress:
    """Called with a line, prints it on stderr with the seconds since this was made.

    Picklable, and on the system's monotonic clock: a worker process that is sent one prints
    its lines on the same clock as the process that made it."""

    started: float = field(default_factory=time.monotonic)

    def __call__(self, text: str) -> None:
        print(f"[{time.monotonic() - self.started:6.0f} s] {text}", file=sys.stderr, flush=True)
