"""One block3d-io run's write time on this machine, as the benchmarks that measure one cost of
the local platform model by varying one thing run it (bench/write_call_cost.py,
bench/collective_buffer_size.py): after the landscape tables' 512 MiB warm-up of the page cache,
its file removed after."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from iotwin.core import paths
from iotwin.executors import launch
from iotwin.executors.local import warm_up_page_cache

WARM_UP_BYTES = 512 << 20
T = TypeVar("T")


def write_seconds(args: Sequence[str], ranks: int, folder: Path,
                  env: Mapping[str, str] | None = None) -> float:
    """block3d-io ARGS on `ranks` ranks writing into `folder`: its own write time."""
    warm_up_page_cache(folder / ".warm-up", WARM_UP_BYTES)
    target = folder / "block3d.out"
    done = launch.run_mpi(ranks, [paths.kernel_binary("block3d-io"), *args, "--file",
                                  str(target)], env=env, timeout=300)
    target.unlink(missing_ok=True)
    if done.returncode != 0:
        raise SystemExit(f"block3d-io {' '.join(args)} ({dict(env or {})}) failed:\n"
                         f"{done.stderr.strip()}")
    return float(json.loads(done.stdout.strip().splitlines()[-1])["write_s"])


def rotated(items: Sequence[T], by: int) -> list[T]:
    """`items` starting at `by` (mod their count): repetition r's order."""
    shift = by % len(items)
    return [*items[shift:], *items[:shift]]
