"""What a strategy may ask of the campaign that runs it.

Strategies see points of a :class:`~iotwin.space.parameters.BoundSpace` and rates in MB/s (higher is
better); they never see executors, the store or the simulator, so a new executor or model
changes no strategy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from iotwin.config.types import Config
from iotwin.search.trust import SearchState
from iotwin.space.parameters import BoundSpace, Point


class BudgetExhausted(Exception):
    """Raised by :meth:`Evaluator.measure` when a new point would exceed the real-run budget."""


class Evaluator(Protocol):
    space: BoundSpace

    def measure(self, points: Sequence[Point]) -> list[float | None]:
        """Measured rate of each point (None: the run failed). Points measured before are
        looked up, not re-run; new ones use the budget, in order, and BudgetExhausted is
        raised once it is spent (everything measured until then is kept)."""
        ...

    def repeat(self, points: Sequence[Point]) -> list[float | None]:
        """One more run of each measured point, each using the budget as a new point does;
        a point's rate is then the median of all its runs (returned; None: all failed)."""
        ...

    def runs_of(self, point: Point) -> list[float]:
        """The rate of each successful run of a measured point, in the order they ran."""
        ...

    def is_measured(self, point: Point) -> bool: ...

    def runs_left(self) -> int:
        """Measurements still allowed: a new point or a repeat of one uses one each."""
        ...

    def predict(self, points: Sequence[Point]) -> list[float | None]:
        """Simulated rate of each point on the current model (None: no model or it failed)."""
        ...

    def recalibrate(self) -> None:
        """Refit the model to everything measured so far."""
        ...

    def earlier_residuals(self) -> Sequence[tuple[Config, float]]:
        """Each config earlier model-guided campaigns on this platform measured, with its log
        (measured / simulated) less its campaign's mean (iotwin.tuning.transfer; none without
        a store or a model)."""
        ...

    def end_generation(self, generation: int, best_predicted: float | None = None,
                       state: SearchState | None = None) -> None:
        """Report progress (``state``: what a model-guided search tells of itself); the
        evaluator adds best measured, model error and runs used."""
        ...

    def screened(self, step: int, steps: int, best_predicted: float | None) -> None:
        """Report a step of a screening in simulation between two real batches (``step`` of
        ``steps``; the best rate predicted so far); the evaluator adds the simulations run
        and their pace."""
        ...
