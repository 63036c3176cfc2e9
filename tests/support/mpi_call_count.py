"""The MPI calls that make ranks wait for each other, counted per rank by
tests/programs/libmpi_call_count.so preloaded in front of a run's own LD_PRELOAD: what the
interposer's tests assert and bench/interposer_overhead.py and bench/preload_cost.py print."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

from iotwin.core import paths
from iotwin.executors.launch import Completed

COUNTER = "tests/programs/libmpi_call_count.so"
#: the counter's name of a call's count inside file sessions (tests/programs/mpi_call_count.c)
IN_SESSION = " in a file session"


def split_sessions(counts: Mapping[str, float]) -> tuple[dict[str, float], dict[str, float]]:
    """``counts`` by the counter's names as (every call's count, the counts inside file
    sessions by their call's own name)."""
    outside = {name: n for name, n in counts.items() if not name.endswith(IN_SESSION)}
    inside = {name.removesuffix(IN_SESSION): n for name, n in counts.items()
              if name.endswith(IN_SESSION)}
    return outside, inside


def counted_calls(run: Callable[[dict[str, str]], Completed], env: Mapping[str, str],
                  folder: Path) -> list[dict[str, int]]:
    """Each rank's counts by MPI function, of one ``run`` given ``env`` with the counter
    preloaded (its output file in ``folder``); RuntimeError with the run's stderr if it fails."""
    out = folder / "calls.jsonl"
    out.unlink(missing_ok=True)
    preload = ":".join(filter(None, [str(paths.built(COUNTER)), env.get("LD_PRELOAD")]))
    done = run({**env, "LD_PRELOAD": preload, "MPI_CALL_COUNT": str(out)})
    if done.returncode != 0:
        raise RuntimeError(f"the counted run failed ({done.returncode}): {done.stderr.strip()}")
    ranks = [json.loads(line) for line in out.read_text().splitlines()]
    return [{name: n for name, n in rank.items() if name != "rank"} for rank in ranks]
