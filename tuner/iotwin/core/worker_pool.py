"""Pools of worker processes started afresh ("spawn"), never forked from this process.

A fork copies this process with every lock its other threads hold at that moment, held, and
without those threads: a child that takes one waits forever, and its parent on the child. A
command's process may run threads (a pool runs three; a test runner's worker has one for its
I/O), so whether a forked child hangs depends on the moment. A spawned worker is a new
interpreter: it imports what its work needs and is sent its arguments, which must therefore be
picklable, and it starts with none of this process's memory (``initializer`` gives it what it
needs). Leaving the pool terminates its workers (SIGTERM), as on Ctrl-C.

A worker runs its BLAS and OpenMP libraries on one thread: the workers already share the
cores, and the matrices of a campaign's surrogates are as small as its runs, so a library's
own threads only wait for one another (scikit-optimize's GP campaign on vpic-io-4: 58 s of CPU
with OpenBLAS's default threads, 31 s with one, the same wall time and the same runs).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import os
from collections.abc import Callable
from typing import Any

from iotwin.core.library_threads import LIBRARY_THREAD_VARIABLES


def worker_pool(workers: int, initializer: Callable[..., object] | None = None,
                initargs: tuple[Any, ...] = ()) -> multiprocessing.pool.Pool:
    """A pool of ``workers`` (at least one) fresh processes, each run ``initializer(*initargs)``
    first, its numerical libraries on one thread."""
    return multiprocessing.get_context("spawn").Pool(max(1, workers), _start_worker,
                                                     (initializer, initargs))


def _start_worker(initializer: Callable[..., object] | None, initargs: tuple[Any, ...]) -> None:
    """Before the worker's work imports numpy (a spawned worker has not): the libraries read
    their thread counts once, when they load."""
    for name in LIBRARY_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")  # a user's own setting is kept
    if initializer is not None:
        initializer(*initargs)
