"""Search strategies over a parameter space, sharing one set of DEAP-style operators.

A strategy is a function ``(evaluator, rng, settings) -> None`` that asks its
:class:`~iotwin.search.evaluator.Evaluator` to measure and predict points until it is done or
the budget is spent. Its settings come from ``strategies.yaml`` (overridable per campaign).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from iotwin.errors import UserError
from iotwin.search.evaluator import BudgetExhausted, Evaluator
from iotwin.search.genetic import h5evolve
from iotwin.search.sampling import exhaustive, random_search
from iotwin.search.screened import sim_screened

Strategy = Callable[[Evaluator, random.Random, Mapping[str, Any]], None]

STRATEGIES: dict[str, Strategy] = {
    "h5evolve": h5evolve,
    "sim-screened": sim_screened,
    "random": random_search,
    "exhaustive": exhaustive,
}

#: strategies that need a model (the simulator) to predict rates
NEEDS_MODEL = {"sim-screened"}


def strategy_settings(name: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The strategy's settings from strategies.yaml, with ``overrides`` applied and checked."""
    defaults = yaml.safe_load((Path(__file__).parent / "strategies.yaml").read_text())
    if name not in STRATEGIES:
        raise UserError(f"unknown strategy {name!r}: choose one of {', '.join(STRATEGIES)}")
    settings = dict(defaults.get(name) or {})
    for key, value in (overrides or {}).items():
        if key not in settings:
            raise UserError(f"strategy {name}: no setting {key!r} (settings: "
                            f"{', '.join(settings) or 'none'})")
        settings[key] = type(settings[key])(value)
    return settings


def run_strategy(name: str, evaluator: Evaluator, seed: int,
                 settings: Mapping[str, Any]) -> None:
    """Run a strategy to its end or to the end of the real-run budget."""
    with contextlib.suppress(BudgetExhausted):
        STRATEGIES[name](evaluator, random.Random(seed), settings)


__all__ = ["NEEDS_MODEL", "STRATEGIES", "BudgetExhausted", "Evaluator", "run_strategy",
           "strategy_settings"]
