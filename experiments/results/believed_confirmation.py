"""What if the confirmation took the configs sim-screened believes best? For each table of a
benchmark spec and each seed, sim-screened's campaign as the benchmark runs it, and its search
runs to each target under two rules for the confirmation's candidates: the benchmark's (the
three best measured rates) and the campaign's beliefs (the three measured configs its
surrogate's posterior mean ranks best, as of its last refit at or before run b, then the best
measured rates). The same confirmation runs (the table's next repetitions) decide both.

    PYTHONPATH=tuner .venv/bin/python experiments/results/believed_confirmation.py \\
        experiments/strategy-benchmark-found.yaml [SEEDS]

An experiment, not a strategy: it records the beliefs by wrapping ``Beliefs.state`` (called
once a generation, after the refit) and replays the confirmation beside the benchmark's own
(``strategy_benchmark.trajectory``) on the same played campaign.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import iotwin.search.screened as screened
import iotwin.studies.strategy_benchmark as benchmark
from iotwin.core.hashing import config_hash
from iotwin.store.database import Store
from iotwin.tuning.confirmation import confirm

TARGETS = (0.1, 0.05, 0.02)
CAP = 40

# (runs measured when the beliefs were fitted, the hashes of the three believed best)
_beliefs: list[tuple[int, list[str]]] = []


def _recording_state(original: Any) -> Any:
    def state(self: screened.Beliefs, candidates: Sequence[Any], ended: str | None = None) -> Any:
        runs = sum(len(self.evaluator.runs_of(p)) for p in self.measured)
        best = [config_hash(self.evaluator.space.config(p)) for p in self.best_measured(3)]
        _beliefs.append((runs, best))
        return original(self, candidates, ended)
    return state


def _ratios_by_beliefs_rule(table: Any, campaign: Any, replay: Any, settings: Any) -> list[float]:
    """After each run b, the recommended config's median over the optimum, its candidates
    taken from the beliefs (benchmark.trajectory's confirmation otherwise)."""
    run = benchmark.confirmation_run(campaign, replay)
    has_default = table.rates_of({}) is not None
    ratios = []
    for b in range(1, len(campaign.order) + 1):
        measured = benchmark.measured_after(campaign, b)
        fitted = [best for runs, best in _beliefs if runs <= b]
        believed = [key for key in (fitted[-1] if fitted else []) if key in measured]
        by_rate = sorted((key for key in measured
                          if key not in believed and measured[key].rate is not None),
                         key=lambda key: measured[key].rate or 0.0, reverse=True)
        chosen = (believed + by_rate)[:settings.confirm]
        confirmed = confirm({key: measured[key] for key in chosen}, settings.confirm,
                            settings.confirm_runs, run, default=has_default)
        ratios.append((table.median_of(confirmed[0].config) or 0.0) / table.optimum
                      if confirmed else 0.0)
    return ratios


def _runs_to(ratios: Sequence[float], fraction: float) -> int | None:
    return next((b for b, r in enumerate(ratios, 1) if r >= 1 - fraction), None)


def _summary(runs: Sequence[int | None]) -> str:
    median = statistics.median([r if r is not None else CAP for r in runs])
    return f"median {median:g}, misses {sum(r is None for r in runs)}"


def main() -> None:
    spec, seeds = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 20
    screened.Beliefs.state = _recording_state(  # type: ignore[method-assign]  # recording
        screened.Beliefs.state)
    cases, settings = benchmark.load_benchmark(spec)
    for case in cases:
        by_rates: dict[float, list[int | None]] = {f: [] for f in TARGETS}
        by_beliefs: dict[float, list[int | None]] = {f: [] for f in TARGETS}
        for seed in range(seeds):
            _beliefs.clear()
            with tempfile.TemporaryDirectory() as scratch, Store(Path(scratch) / "s.db") as store:
                played = benchmark.play(case, "sim-screened", seed, settings, store)
                judged = benchmark.trajectory(case.table, played.campaign, played.replay,
                                              settings)
                by_beliefs_ratios = _ratios_by_beliefs_rule(case.table, played.campaign,
                                                            played.replay, settings)
            for f in TARGETS:
                by_rates[f].append(judged.search_runs_to(f))
                by_beliefs[f].append(_runs_to(by_beliefs_ratios, f))
            print(f"{case.name} seed {seed}: to 10% {by_rates[0.1][-1]} by rates, "
                  f"{by_beliefs[0.1][-1]} by beliefs", flush=True)
        for f in TARGETS:
            print(f"{case.name} to {f:.0%}: by rates {_summary(by_rates[f])}; "
                  f"by beliefs {_summary(by_beliefs[f])}")


if __name__ == "__main__":
    main()
