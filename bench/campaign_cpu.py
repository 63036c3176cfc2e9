"""sim-screened's own CPU per campaign: user + system time of one strategy-benchmark campaign,
the campaign's process and every iosim it started (RUSAGE_SELF + RUSAGE_CHILDREN, each
campaign in a fresh process), against a table of a benchmark spec, with its runs and what it
found. Run on a quiet machine; prints figures, asserts nothing.

    PYTHONPATH=tuner IOTWIN_BUILD=build .venv/bin/python bench/campaign_cpu.py \\
        [--spec experiments/strategy-benchmark-race.yaml] [--tables vpic-io-4,hopper-twin-2048]
        [--strategy sim-screened] [--seeds 0,1] [--rounds 2]

Campaigns run one at a time, the tables rotated round by round.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
from pathlib import Path

import iotwin.studies.strategy_benchmark as benchmark
from iotwin.core.worker_pool import worker_pool
from iotwin.model.iosim_process import close_servers
from iotwin.store.database import Store
from iotwin.tuning.repetitions import rotation

#: the suite's run (tests/bench): one campaign on a small table
SMOKE_ARGS = ["--tables", "block3d-2", "--seeds", "0", "--rounds", "1"]


def one_campaign(job: tuple[Path, str, str, int]) -> tuple[float, int, int]:
    """CPU seconds, configs in the table and runs of one campaign (in this process)."""
    spec, table_name, strategy, seed = job
    cases, settings = benchmark.load_benchmark(spec)
    case = next(c for c in cases if c.name == table_name)
    with tempfile.TemporaryDirectory() as scratch, Store(Path(scratch) / "s.db") as store:
        trajectory = benchmark.run_one(case, strategy, seed, settings, store, progress=None)
    close_servers()  # its iosim servers reaped: RUSAGE_CHILDREN counts only children waited for
    cpu = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        cpu += usage.ru_utime + usage.ru_stime
    return cpu, len(case.table.configs), trajectory.runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spec", type=Path,
                        default=Path("experiments/strategy-benchmark-race.yaml"))
    parser.add_argument("--tables", default="vpic-io-4,hopper-twin-2048")
    parser.add_argument("--strategy", default="sim-screened")
    parser.add_argument("--seeds", default="0,1")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    tables = args.tables.split(",")
    seeds = [int(s) for s in args.seeds.split(",")]
    for round_index in range(args.rounds):
        for name in rotation(tables, round_index):
            for seed in seeds:
                # a fresh process (its RUSAGE counts this campaign alone), as the benchmark's
                with worker_pool(1) as pool:
                    cpu, configs, runs = pool.apply(
                        one_campaign, ((args.spec, name, args.strategy, seed),))
                print(f"round {round_index} {name} ({configs} configs) {args.strategy} seed "
                      f"{seed}: {cpu:.1f} s CPU, {runs} runs", flush=True)


if __name__ == "__main__":
    main()
