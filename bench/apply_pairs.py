"""An independent check of a tuned config's speedup: the program's own rate under two configs
applied as a user applies them (`iotwin apply CONFIG -- LAUNCHER ...`, the interposer on the
ranks only), in alternating pairs.

Each pair runs the command once under `--first` and once under `--second`, the order
alternating from pair to pair (ABBA...), and reads the rate the program prints itself (the
first group of `--rate`, a regular expression matched line by line in its stdout; by
default the bw(MiB/s) of IOR's first `write` result row): no figure of iotwin's own reports
enters it. The speedup of the second over the first is the Hodges-Lehmann pseudo-median of
the pairs' rate ratios, with Wilcoxon's exact signed-rank interval on their logarithms
(iotwin.core.stats.paired_speedup, whose comments say why this interval); `--within X` says
whether X (a summary's speedup) lies in it.

    .venv/bin/python bench/apply_pairs.py --first default.yaml --second tuned.yaml --pairs 8 \\
        [--rate REGEX] [--within 2.5] [--workdir DIR] -- mpiexec.mpich -n 2 ior -a MPIIO ...

An empty config (`{}`) is the default: the interposer loaded, nothing set. Files the program
leaves in the working directory (default: a new temporary one) are removed after each run.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from iotwin.core.stats import paired_speedup

IOR_WRITE = r"^write\s+([0-9.]+)\s"
#: the suite's run of it (tests/bench/test_bench_scripts.py): two empty configs, a program that
#: prints a rate
SMOKE_ARGS = ["--first", "{}", "--second", "{}", "--pairs", "2", "--rate", r"rate ([0-9.]+)",
              "--", "mpiexec.mpich", "-n", "1", "sh", "-c", "echo rate 1.5"]


def run(config: Path, command: list[str], rate: re.Pattern[str], workdir: Path) -> float:
    """One run of ``command`` under ``config`` through `iotwin apply`: the rate it printed."""
    done = subprocess.run([sys.executable, "-m", "iotwin", "apply", str(config), "--", *command],
                          cwd=workdir, capture_output=True, text=True, timeout=3600, check=False)
    for leftover in workdir.iterdir():
        (shutil.rmtree if leftover.is_dir() else Path.unlink)(leftover)
    found = rate.search(done.stdout)
    if done.returncode != 0 or not found:
        raise SystemExit(f"run under {config} failed ({done.returncode}) or printed no rate "
                         f"matching {rate.pattern!r}:\n{done.stdout[-1500:]}{done.stderr[-1500:]}")
    return float(found[1])


def config_file(text: str, folder: Path, name: str) -> Path:
    """A config given as a path, or inline as YAML text (`{}`: no settings)."""
    path = Path(text)
    if path.is_file():
        return path.resolve()
    inline = folder / f"{name}.yaml"
    inline.write_text(text + "\n")
    return inline


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", required=True, help="config A (a file, or {} for none)")
    parser.add_argument("--second", required=True, help="config B (a file, or {} for none)")
    parser.add_argument("--pairs", type=int, default=8, help="alternating pairs (6 or more "
                        "for a 95%% interval)")
    parser.add_argument("--rate", default=IOR_WRITE,
                        help="regular expression whose first group is the program's rate")
    parser.add_argument("--within", type=float, help="a speedup to check against the interval")
    parser.add_argument("--workdir", type=Path, help="where the program runs (default: a new "
                        "temporary folder)")
    parser.add_argument("command", nargs="+", help="the launch command, after --")
    args = parser.parse_args()
    rate = re.compile(args.rate, re.MULTILINE)
    with tempfile.TemporaryDirectory(prefix="iotwin-pairs-") as scratch:
        folder = Path(scratch)
        workdir = (args.workdir or folder / "run").resolve()
        workdir.mkdir(parents=True, exist_ok=True)
        configs = {"first": config_file(args.first, folder, "first"),
                   "second": config_file(args.second, folder, "second")}
        rates: dict[str, list[float]] = {"first": [], "second": []}
        for i in range(args.pairs):
            order = ("first", "second") if i % 2 == 0 else ("second", "first")
            for side in order:
                rates[side].append(run(configs[side], args.command, rate, workdir))
            print(f"pair {i + 1}: first {rates['first'][-1]:.2f}, second "
                  f"{rates['second'][-1]:.2f}, ratio {rates['second'][-1] / rates['first'][-1]:.3f}"
                  f" ({order[0]} ran first)", flush=True)
    speedup = paired_speedup(rates["first"], rates["second"])
    if speedup is None:
        raise SystemExit("no pair of two rates")
    print(f"second / first: {speedup.text('first', 'second')}")
    if args.within is not None and speedup.low is not None and speedup.high is not None:
        inside = speedup.low <= args.within <= speedup.high
        print(f"{args.within:.2f}x is {'inside' if inside else 'OUTSIDE'} the interval "
              f"{speedup.low:.2f}-{speedup.high:.2f}x")


if __name__ == "__main__":
    main()
