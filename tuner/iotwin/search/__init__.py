"""Search strategies over a parameter space, sharing one set of DEAP-style operators.

A strategy is a function ``(evaluator, rng, settings) -> None`` that asks its
:class:`~iotwin.search.evaluator.Evaluator` to measure and predict points until it is done or
the budget is spent. Its settings come from ``strategies.yaml`` (overridable per campaign).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotwin.core.errors import UserError
from iotwin.core.yaml_files import read_shipped
from iotwin.search.ask_tell import optuna_gp, optuna_tpe, skopt_gp
from iotwin.search.evaluator import BudgetExhausted, Evaluator
from iotwin.search.genetic import h5evolve
from iotwin.search.sampling import exhaustive, random_search
from iotwin.search.screened import sim_screened

Strategy = Callable[[Evaluator, random.Random, Mapping[str, Any]], None]


@dataclass(frozen=True)
class StrategyKind:
    """One search strategy and what it can do (as IOR's aiori records carry theirs)."""

    name: str
    run: Strategy
    #: it predicts rates with a model (the simulator) besides the real runs it asks for
    needs_model: bool
    #: a search in simulation only (what-if) may use it: it asks nothing but rates of points
    runs_in_simulation: bool
    #: it stops on its own before the budget (a converged population) and so leaves runs over
    may_stop_early: bool
    #: it may run a measured config again (Evaluator.repeat), so a config may have several
    #: search runs
    repeats: bool = False


REGISTRY: tuple[StrategyKind, ...] = (
    StrategyKind("h5evolve", h5evolve, needs_model=False, runs_in_simulation=True,
                 may_stop_early=True),
    StrategyKind("sim-screened", sim_screened, needs_model=True, runs_in_simulation=False,
                 may_stop_early=True, repeats=True),
    StrategyKind("random", random_search, needs_model=False, runs_in_simulation=True,
                 may_stop_early=False),
    StrategyKind("exhaustive", exhaustive, needs_model=False, runs_in_simulation=True,
                 may_stop_early=False),
    StrategyKind("optuna-tpe", optuna_tpe, needs_model=False, runs_in_simulation=True,
                 may_stop_early=True),
    StrategyKind("optuna-gp", optuna_gp, needs_model=False, runs_in_simulation=True,
                 may_stop_early=True),
    StrategyKind("skopt-gp", skopt_gp, needs_model=False, runs_in_simulation=True,
                 may_stop_early=True),
)

STRATEGIES: dict[str, StrategyKind] = {kind.name: kind for kind in REGISTRY}


def strategy_kind(name: str) -> StrategyKind:
    """The strategy called ``name``; UserError naming the choices if there is none."""
    if name not in STRATEGIES:
        raise UserError(f"unknown strategy {name!r}: choose one of {', '.join(STRATEGIES)}")
    return STRATEGIES[name]


def strategy_settings(name: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The strategy's settings from strategies.yaml, with ``overrides`` applied and checked."""
    strategy_kind(name)
    defaults = read_shipped(Path(__file__).parent / "strategies.yaml")
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
        strategy_kind(name).run(evaluator, random.Random(seed), settings)


__all__ = ["REGISTRY", "STRATEGIES", "BudgetExhausted", "Evaluator", "StrategyKind", "run_strategy",
           "strategy_settings"]
