"""General-purpose optimisers as strategies: what a user would try instead of iotwin.

Optuna's TPE and Gaussian-process samplers and scikit-optimize's Gaussian-process Bayesian
optimisation (the approach of IOFlex-style tuners) drive the same evaluator as every other
strategy, through their ask-and-tell interfaces::

    ask_tell_search(evaluator, optimiser):
        until the budget or the space is spent:
            point  <- optimiser.ask()              # an index per gene, every gene categorical
            config <- space.repair(point)          # the space's rules (a table's configs)
            rate   <- evaluator.measure([config])  # a config measured before: looked up, free
            optimiser.tell(point, rate, new)       # the objective is rate(repair(point));
                                                   # new: repair(point) was not measured before

A failed run is told as the worst rate measured so far (0 before any): the optimiser steers
away from it without a number it could mistake for a measurement. The search ends early
when the optimiser keeps asking for configs measured already (it has converged, or a table's
configs are spent).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Protocol

from iotwin.core.errors import UserError
from iotwin.search.evaluator import Evaluator
from iotwin.space.parameters import BoundSpace, Point

_REPORT_EVERY = 10  # new runs per reported "generation"


class AskTell(Protocol):
    def ask(self) -> tuple[Any, Point]:
        """A handle for ``tell`` and the point to evaluate."""
        ...

    def tell(self, handle: Any, rate: float, new: bool) -> None:
        """``new``: the rate is a fresh measurement, not a lookup of a config measured before."""
        ...


def ask_tell_search(evaluator: Evaluator, optimiser: AskTell, stale_asks: int) -> None:
    """Ends when the budget is spent or after ``stale_asks`` asks in a row answered by
    lookups (no new run)."""
    rates: list[float] = []
    stale = runs = 0
    while stale < stale_asks and evaluator.runs_left() > 0:
        handle, point = optimiser.ask()
        repaired, _ = evaluator.space.repair(point)
        new = not evaluator.is_measured(repaired)
        [rate] = evaluator.measure([repaired])
        stale, runs = (0, runs + 1) if new else (stale + 1, runs)
        if new and runs % _REPORT_EVERY == 0:
            evaluator.end_generation(runs // _REPORT_EVERY - 1)
        rates += [rate] if rate else []
        optimiser.tell(handle, rate if rate else min(rates, default=0.0), new)


def optuna_tpe(evaluator: Evaluator, rng: random.Random, settings: Mapping[str, Any]) -> None:
    """Optuna's TPESampler, each gene a categorical parameter."""
    import optuna

    sampler = optuna.samplers.TPESampler(seed=rng.randrange(2**31),
                                         n_startup_trials=int(settings["startup"]),
                                         multivariate=bool(settings["multivariate"]))
    ask_tell_search(evaluator, _OptunaStudy(evaluator.space, sampler),
                    int(settings["stale_asks"]))


def optuna_gp(evaluator: Evaluator, rng: random.Random, settings: Mapping[str, Any]) -> None:
    """Optuna's GPSampler (Gaussian-process Bayesian optimisation; needs PyTorch), each gene a
    categorical parameter."""
    import optuna

    try:
        import torch  # noqa: F401  (GPSampler imports it on its first fit)
    except ImportError as error:
        raise UserError("strategy optuna-gp needs PyTorch: `make optuna-gp` installs it "
                        "(pip install torch; several GB)") from error
    sampler = optuna.samplers.GPSampler(seed=rng.randrange(2**31),
                                        n_startup_trials=int(settings["startup"]),
                                        deterministic_objective=False)
    ask_tell_search(evaluator, _OptunaStudy(evaluator.space, sampler),
                    int(settings["stale_asks"]))


def skopt_gp(evaluator: Evaluator, rng: random.Random, settings: Mapping[str, Any]) -> None:
    """scikit-optimize's Optimizer with a Gaussian-process surrogate, each gene categorical."""
    ask_tell_search(evaluator, _SkoptGP(evaluator.space, rng.randrange(2**31), settings),
                    int(settings["stale_asks"]))


class _OptunaStudy:
    def __init__(self, space: BoundSpace, sampler: Any) -> None:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.study = optuna.create_study(direction="maximize", sampler=sampler)
        self.genes = space.genes
        self.distributions: dict[str, optuna.distributions.BaseDistribution] = {
            gene.name: optuna.distributions.CategoricalDistribution(
                list(range(len(gene.values)))) for gene in space.genes}

    def ask(self) -> tuple[Any, Point]:
        trial = self.study.ask(self.distributions)
        return trial, tuple(int(trial.params[gene.name]) for gene in self.genes)

    def tell(self, handle: Any, rate: float, new: bool) -> None:
        self.study.tell(handle, rate)


class _SkoptGP:
    """scikit-optimize's GP as its Optimizer builds it (a Hamming kernel over categorical
    genes, noise fitted), made affordable for campaigns of 150 runs, where each fit of the
    kernel's hyperparameters from scratch took a hundred L-BFGS steps:

    - each fit starts from the previous fit's hyperparameters, with one start (``fit_restarts``
      more) instead of three;
    - a lookup (a config measured before) is told without a refit, once there is a model: the
      acquisition's next point is then the one just asked, so scikit-optimize asks a random
      point instead, as it does for any duplicate.
    """

    def __init__(self, space: BoundSpace, seed: int, settings: Mapping[str, Any]) -> None:
        from skopt import Optimizer
        from skopt.space import Categorical
        from skopt.utils import cook_estimator

        # a gene with one value (pinned) is not searched: skopt needs two categories
        self.searched = [i for i, gene in enumerate(space.genes) if len(gene.values) > 1]
        self.width = len(space.genes)
        dimensions = [Categorical(list(range(len(space.genes[i].values))))
                      for i in self.searched]
        surrogate = cook_estimator("GP", space=dimensions, random_state=seed,
                                   n_restarts_optimizer=int(settings["fit_restarts"]))
        self.optimizer = Optimizer(
            dimensions, base_estimator=surrogate, acq_func=str(settings["acquisition"]),
            n_initial_points=int(settings["initial"]), random_state=seed,
            acq_optimizer_kwargs={"n_points": int(settings["candidates"])})

    def ask(self) -> tuple[Any, Point]:
        import warnings

        with warnings.catch_warnings():  # "evaluated before, using a random point": expected
            warnings.simplefilter("ignore", UserWarning)
            asked = [int(v) for v in self.optimizer.ask()]
        point = [0] * self.width
        for index, value in zip(self.searched, asked, strict=True):
            point[index] = value
        return asked, tuple(point)

    def tell(self, handle: Any, rate: float, new: bool) -> None:
        fit = new or not self.optimizer.models  # without a model skopt cannot ask
        self.optimizer.tell(handle, -rate, fit=fit)  # skopt minimises
        if fit and self.optimizer.models:
            self._start_next_fit_from(self.optimizer.models[-1])

    def _start_next_fit_from(self, fitted: Any) -> None:
        import numpy as np

        # the fitted hyperparameters; skopt zeroes the noise term of kernel_ for prediction
        # and keeps the fitted level in noise_ (the noise term's theta comes last)
        theta = fitted.kernel_.theta.copy()
        theta[-1] = np.log(max(fitted.noise_, 1e-5))
        self.optimizer.base_estimator_.set_params(kernel=fitted.kernel.clone_with_theta(theta))
