"""The landscape benchmark's README table from its progress lines: the figures of a run cut
short (each table and strategy over the seeds it finished), in the benchmark's own format.

    iotwin landscape benchmark SPEC ... 2> progress.log      # stopped before its last seed
    python experiments/results/benchmark_progress.py SPEC progress.log [more.log ...]

Each campaign's line says its search runs to each target and the runs with its confirmation;
they are all the table needs (iotwin.report.benchmark.markdown, a miss counted as the cap).
Below the table, sim-screened's prior weight after each real batch, per table and seed.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

from iotwin.report.benchmark import TableBenchmark, markdown
from iotwin.studies.strategy_benchmark import StrategyFigures, Trajectory, load_benchmark
from iotwin.studies.table_resolution import resolution

_LINE = re.compile(r"^\s+(\S+) (\S+) seed (\d+): (\d+) runs; search runs to (.*)$")
_TARGET = re.compile(r"([\d.]+)%: (\d+|missed) \((\d+|-) with its confirmation\)")
_WEIGHTS = "; prior weight per batch "


def campaign(runs: int, reached: str) -> Trajectory:
    """A trajectory with the campaign's first recommendation within each target it reached:
    all the benchmark's summary reads of it."""
    found = sorted((int(searched), int(cost), 1 - float(percent) / 100)
                   for percent, searched, cost in _TARGET.findall(reached)
                   if searched != "missed")
    return Trajectory([cost for _, cost, _ in found], [ratio for _, _, ratio in found], runs,
                      [searched for searched, _, _ in found])


def read_progress(logs: list[Path]) -> tuple[dict[tuple[str, str], dict[int, Trajectory]],
                                             dict[tuple[str, int], str]]:
    """Per (table, strategy), each seed's trajectory; per (table, seed), sim-screened's prior
    weights."""
    found: dict[tuple[str, str], dict[int, Trajectory]] = defaultdict(dict)
    weights: dict[tuple[str, int], str] = {}
    for log in logs:
        for line in log.read_text().splitlines():
            match = _LINE.match(line)
            if not match:
                continue
            table, strategy, seed, runs, rest = match.groups()
            reached, _, prior = rest.partition(_WEIGHTS)
            found[table, strategy][int(seed)] = campaign(int(runs), reached)
            if prior:
                weights[table, int(seed)] = prior.strip()
    return found, weights


def main(spec: Path, logs: list[Path]) -> None:
    cases, settings = load_benchmark(spec)
    found, weights = read_progress(logs)
    results = [TableBenchmark(case, [StrategyFigures(strategy, settings.cap(strategy, case),
                                                     [seeds[s] for s in sorted(seeds)])
                                     for strategy in settings.caps
                                     if (seeds := found.get((case.name, strategy)))],
                              None, resolution(case.table))
               for case in cases]
    print(markdown([r for r in results if r.figures], settings))
    print()
    for (table, seed), text in sorted(weights.items()):
        print(f"- {table} seed {seed}: sim-screened's prior weight per batch {text}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    main(Path(sys.argv[1]), [Path(arg) for arg in sys.argv[2:]])
