"""Does the confirmation's race pick better configs, judged on runs it never saw? In the
benchmark a table's config median (the truth) is taken over the same stored runs the search
and the confirmation draw, so a confirmation that draws more of them agrees with the truth
more by construction. Here each config's runs are split, per seed, into runs the campaign and
its confirmation may draw and runs held out (a third of them: 3 of vpic-io-2's 9; a table
of fewer than 7 runs a config is left out, its held-out median too rough to judge by). Each
campaign runs once (``strategy_benchmark.play``); its recommendation after every run b is
confirmed twice from the same drawn runs (``strategy_benchmark.trajectory``), without the race
(``confirm_max_runs`` = ``confirm_runs``) and with it, and where the two recommend different
configs, the held-out runs alone judge them: their medians' ratio (race over plain).

    PYTHONPATH=tuner .venv/bin/python experiments/results/held_out_race.py \\
        experiments/strategy-benchmark-race.yaml [--seeds 20] [--jobs 2] [--tables A,B]
        [--runs 20]

Prints, per table and strategy, over every seed and b up to ``--runs``: how often the two
picks differ, how often the race's has the higher held-out median, the geometric mean of the
ratios where they differ, and the seeds whose mean log ratio favours each.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import statistics
import tempfile
from multiprocessing import Pool
from pathlib import Path

import iotwin.studies.strategy_benchmark as benchmark
from iotwin.core.hashing import config_hash
from iotwin.executors.table import Landscape
from iotwin.store.database import Store

#: the fewest runs a config a table must hold to be judged (a third of them held out)
FEWEST_RUNS = 7


def split(table: Landscape, seed: int) -> tuple[Landscape, Landscape]:
    """Each config's passes shuffled by the seed: two thirds for the campaign, the rest held
    out."""
    campaign_rows, held_rows = [], []
    for config, row in zip(table.configs, table.rates, strict=True):
        drawn = len(row) - len(row) // 3
        order = list(range(len(row)))
        random.Random(f"split {seed} {config_hash(config)}").shuffle(order)
        campaign_rows.append([row[i] for i in order[:drawn]])
        held_rows.append([row[i] for i in order[drawn:]])
    return (Landscape(f"{table.label} (drawn)", table.configs, campaign_rows),
            Landscape(f"{table.label} (held out)", table.configs, held_rows))


def one_campaign(job: tuple[Path, str, str, int]) -> tuple[str, str, int, list[float]]:
    """One campaign on the drawn runs; after each of its runs, the held-out median of the
    raced recommendation over the plain one's (1: the same config)."""
    spec, table_name, strategy, seed = job
    cases, settings = benchmark.load_benchmark(spec)
    case = next(c for c in cases if c.name == table_name)
    campaign_table, held = split(case.table, seed)
    with tempfile.TemporaryDirectory() as scratch, Store(Path(scratch) / "s.db") as store:
        played = benchmark.play(dataclasses.replace(case, table=campaign_table), strategy, seed,
                                settings, store)
        plain, raced = (benchmark.trajectory(held, played.campaign, played.replay,
                                             dataclasses.replace(settings, confirm_max_runs=most)
                                             ).ratios
                        for most in (settings.confirm_runs, settings.confirm_max_runs))
    return table_name, strategy, seed, [r / p if p else math.nan
                                        for r, p in zip(raced, plain, strict=True)]


def summary(seeds: dict[int, list[float]]) -> str:
    judged = {seed: [r for r in by_b if not math.isnan(r)] for seed, by_b in seeds.items()}
    ratios = [r for by_b in judged.values() for r in by_b]
    differ = [r for r in ratios if r != 1.0]
    if not differ:
        return f"{len(seeds)} seeds, {len(ratios)} recommendations: the race changed none"
    by_seed = [statistics.fmean(math.log(r) for r in by_b if r != 1.0)
               for by_b in judged.values() if any(r != 1.0 for r in by_b)]
    return (f"{len(seeds)} seeds, {len(ratios)} recommendations, {len(differ)} differ: the "
            f"race's held out higher in {sum(r > 1 for r in differ)}, lower in "
            f"{sum(r < 1 for r in differ)}, geometric mean ratio "
            f"{math.exp(statistics.fmean(math.log(r) for r in differ)):.3f}; seeds favouring "
            f"the race {sum(m > 0 for m in by_seed)}, the plain {sum(m < 0 for m in by_seed)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("spec", type=Path)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--tables", help="comma-separated (default: every table of the spec)")
    parser.add_argument("--runs", type=int, default=20, help="the b judged: 1 to this")
    args = parser.parse_args()
    cases, settings = benchmark.load_benchmark(args.spec)
    names = args.tables.split(",") if args.tables else [c.name for c in cases]
    for case in cases:
        if case.name in names and min(len(row) for row in case.table.rates) < FEWEST_RUNS:
            print(f"{case.name}: left out, fewer than {FEWEST_RUNS} runs a config")
            names.remove(case.name)
    jobs = [(args.spec, name, strategy, seed)
            for seed in range(args.seeds) for name in names for strategy in settings.caps]
    found: dict[tuple[str, str], dict[int, list[float]]] = {}
    with Pool(args.jobs) as pool:
        for name, strategy, seed, ratios in pool.imap_unordered(one_campaign, jobs):
            found.setdefault((name, strategy), {})[seed] = ratios[:args.runs]
    for (name, strategy), seeds in sorted(found.items()):
        print(f"{name} {strategy}: {summary(seeds)}")


if __name__ == "__main__":
    main()
