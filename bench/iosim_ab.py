"""Two iosim binaries on the screening benchmark's batch (bench/sim_throughput.py's configs for
vpic-io on hopper): the CPU seconds of ``iosim --jobs 1`` on the same input, the two alternated
run by run (A B, then B A, ...), their medians, and B's speed-up over A as the tuning pipeline
states a tuned config's (iotwin.core.stats.paired_speedup: the pseudo-median of the pairs' CPU
ratios, its exact Wilcoxon interval). A change to iosim's speed is judged by this, not by single
wall-clock runs: this machine's speed drifts by a third from one minute to the next, and a
pair's two runs see the same drift. Both binaries must answer the input byte for byte alike
(a change that moves answers is not a speed-up); the script stops where they do not.

    IOTWIN_BUILD=build .venv/bin/python bench/iosim_ab.py --base OLD/iosim [--new NEW/iosim]
        [--ranks 2048] [--configs 80] [--pairs 30]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
from pathlib import Path

from iotwin.core import paths
from iotwin.core.stats import paired_speedup
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulator_input
from sim_throughput import child_cpu_s, random_configs, vpic_workload


def run(binary: Path, input_path: Path) -> tuple[float, bytes]:
    """One batch: its CPU seconds and its answer."""
    start = child_cpu_s()
    done = subprocess.run([str(binary), "--jobs", "1", str(input_path)], capture_output=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"{binary} failed on the batch: {done.stderr.decode()[-2000:]}")
    return child_cpu_s() - start, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    built = paths.build_dir() / "sim-models" / "iosim"
    parser.add_argument("--base", type=Path, default=built, help="binary A (default: the build's)")
    parser.add_argument("--new", type=Path, default=built, help="binary B (default: the build's)")
    parser.add_argument("--ranks", type=int, default=2048)
    parser.add_argument("--configs", type=int, default=80)
    parser.add_argument("--pairs", type=int, default=30)
    args = parser.parse_args()
    payload = simulator_input(load_platform("hopper"), vpic_workload(args.ranks, 8 * 2**20),
                              random_configs(args.configs), None)
    with tempfile.TemporaryDirectory() as scratch:
        input_path = Path(scratch) / "batch.json"
        input_path.write_text(json.dumps(payload))
        binaries = {"A": args.base, "B": args.new}
        cpu: dict[str, list[float]] = {"A": [], "B": []}
        for pair in range(args.pairs):
            answers = {}
            for role in ("A", "B") if pair % 2 == 0 else ("B", "A"):
                seconds, answers[role] = run(binaries[role], input_path)
                cpu[role].append(seconds)
            if answers["A"] != answers["B"]:
                raise SystemExit(f"the two binaries answer the batch differently (pair {pair + 1})")
    # as rates (configs a CPU second), so that the speed-up is A's CPU over B's
    speedup = paired_speedup([1 / t for t in cpu["A"]], [1 / t for t in cpu["B"]])
    assert speedup is not None
    print(f"hopper vpic-io {args.ranks} ranks, {args.configs} configs: CPU medians "
          f"A {statistics.median(cpu['A']):.3f} s, B {statistics.median(cpu['B']):.3f} s; "
          f"{speedup.text('A', 'B')}")

#: the suite's run of it (tests/bench/test_bench_scripts.py): the build's binary against itself
SMOKE_ARGS = ["--ranks", "4", "--configs", "2", "--pairs", "2"]

if __name__ == "__main__":
    main()
