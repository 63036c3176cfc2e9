"""Progress lines of long work: printed at once to a stream (stderr by default), or nowhere."""

from __future__ import annotations

from typing import TextIO


def say(progress: TextIO | None, line: str) -> None:
    """``line`` on ``progress``, at once (None: quiet)."""
    if progress is not None:
        print(line, file=progress, flush=True)
