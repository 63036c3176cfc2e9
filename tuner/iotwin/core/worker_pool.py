"""Pools of worker processes started afresh ("spawn"), never forked from this process.

A fork copies this process with every lock its other threads hold at that moment, held, and
without those threads: a child that takes one waits forever, and its parent on the child. A
command's process may run threads (a pool runs three; a test runner's worker has one for its
I/O), so whether a forked child hangs depends on the moment. A spawned worker is a new
interpreter: it imports what its work needs and is sent its arguments, which must therefore be
picklable, and it starts with none of this process's memory (``initializer`` gives it what it
needs). Leaving the pool terminates its workers (SIGTERM), as on Ctrl-C.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
from collections.abc import Callable
from typing import Any


def worker_pool(workers: int, initializer: Callable[..., object] | None = None,
                initargs: tuple[Any, ...] = ()) -> multiprocessing.pool.Pool:
    """A pool of ``workers`` (at least one) fresh processes, each run ``initializer(*initargs)``
    first."""
    return multiprocessing.get_context("spawn").Pool(max(1, workers), initializer, initargs)
