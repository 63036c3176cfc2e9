"""The default against a tuned config in blocks (every default run, then every tuned one: the
tune summary before it paired its runs) and in alternating pairs (the summary now), in one
session on this machine: how much of a blocked speedup is the machine's drift.

    .venv/bin/python bench/summary_order.py --config TUNED.yaml [--ranks 4] [--repeat 6]
        [--sessions 2] (--kernel vpic-io [-- KERNEL ARGS] | -- PROGRAM ARGS)

e.g. after `make demo`: --config runs/demo-tuned.yaml --kernel vpic-io -- --particles 1048576.
Each session runs both orders, one after the other (which one goes first alternates from
session to session). For each order it prints the runs as they went, the ratio of the medians,
and the speedup with the paired signed-rank interval (core.stats.paired_speedup; run i of the
defaults and run i of the tuned as a pair, which in blocks lie ``repeat`` runs apart). Needs a
quiet machine: it prints figures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from failures import stop_on_failures
from iotwin.config.types import Config
from iotwin.config.validation import load_config
from iotwin.core.run_records import Target
from iotwin.executors.local import LocalExecutor
from iotwin.tuning.repetitions import (
    Measurement,
    RunAndStore,
    measure,
    measure_pairs,
    pair_speedup,
)


def unstored(executor: LocalExecutor, target: Target, config: Config) -> RunAndStore:
    """A config's runs, kept in memory only (this bench stores nothing)."""
    return lambda repetition: (executor.run_once(target, config, seed=repetition), 0)


def blocked(executor: LocalExecutor, target: Target, configs: dict[str, Config],
            repeat: int) -> dict[str, Measurement]:
    return {label: measure(target, config, unstored(executor, target, config), repeat=repeat,
                           label=label) for label, config in configs.items()}


def paired(executor: LocalExecutor, target: Target, configs: dict[str, Config],
           repeat: int) -> dict[str, Measurement]:
    return measure_pairs(target, configs, {label: unstored(executor, target, config)
                                           for label, config in configs.items()}, rounds=repeat)


def report(order: str, measured: dict[str, Measurement]) -> None:
    def rates(label: str) -> list[float]:
        return [run.rate_mbs for run in measured[label].runs if run.ok and run.rate_mbs]

    default, tuned = rates("default"), rates("tuned")
    if not default or not tuned:
        print(f"{order}: a config failed every run", flush=True)
        return
    speedup = pair_speedup(measured["default"], measured["tuned"])
    print(f"{order}: medians {statistics.median(default):.1f} and {statistics.median(tuned):.1f} "
          f"MB/s, ratio {statistics.median(tuned) / statistics.median(default):.2f}x; "
          f"{speedup.text() if speedup else 'no pair'}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", required=True, type=Path, help="the tuned config")
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=6, help="runs of each config per order")
    parser.add_argument("--sessions", type=int, default=2)
    parser.add_argument("--kernel", help="a kernel of kernels/ (else the program after --)")
    parser.add_argument("rest", nargs="*")
    args = parser.parse_args()
    target = (Target(args.ranks, kernel=args.kernel, args=tuple(args.rest)) if args.kernel
              else Target(args.ranks, command=tuple(args.rest)))
    configs = {"default": {}, "tuned": load_config(args.config)}
    executor = LocalExecutor()
    for session in range(args.sessions):
        orders = [("blocks", blocked), ("pairs", paired)]
        for order, run in orders if session % 2 == 0 else orders[::-1]:
            print(f"session {session + 1}, {order}:", flush=True)
            measured = run(executor, target, configs, args.repeat)
            stop_on_failures(f"session {session + 1}, {order}",
                             (None if r.ok else f"{label}: {r.status}: {r.error}"
                              for label, m in measured.items() for r in m.runs))
            report(f"session {session + 1}, {order}", measured)
    return 0


#: the suite's run of it (tests/bench/test_bench_scripts.py): every path at the smallest size
SMOKE_ARGS = ["--config", "bench/smoke-config.yaml", "--ranks", "2", "--repeat", "1",
              "--sessions", "1", "--kernel", "vpic-io", "--", "--particles", "4096"]

if __name__ == "__main__":
    sys.exit(main())
