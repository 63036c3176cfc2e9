"""Progress lines of long work: printed at once to a stream (stderr by default), or nowhere."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import TextIO


def say(progress: TextIO | None, line: str) -> None:
    """``line`` on ``progress``, at once (None: quiet), in one write: worker processes share
    their parent's stderr, and print() writes a line and its newline apart where Python runs
    unbuffered (PYTHONUNBUFFERED), so two workers' lines could run into one."""
    if progress is not None:
        progress.write(line + "\n")
        progress.flush()


@dataclass(frozen=True)
class TimedProgress:
    """Called with a line, prints it on stderr with the seconds since this was made.

    Picklable, and on the system's monotonic clock: a worker process that is sent one prints
    its lines on the same clock as the process that made it."""

    started: float = field(default_factory=time.monotonic)

    def __call__(self, text: str) -> None:
        say(sys.stderr, f"[{time.monotonic() - self.started:6.0f} s] {text}")
