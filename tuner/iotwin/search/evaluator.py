"""What a strategy may ask of the campaign that runs it.

Strategies see points of a :class:`~iotwin.space.parameters.BoundSpace` and rates in MB/s (higher is
better); they never see executors, the store or the simulator, so a new executor or model
changes no strategy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

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

    def is_measured(self, point: Point) -> bool: ...

    def runs_left(self) -> int:
        """Distinct points that may still be measured."""
        ...

    def predict(self, points: Sequence[Point]) -> list[float | None]:
        """Simulated rate of each point on the current model (None: no model or it failed)."""
        ...

    def recalibrate(self) -> None:
        """Refit the model to everything measured so far."""
        ...

    def end_generation(self, generation: int, best_predicted: float | None = None) -> None:
        """Report progress; the evaluator adds best measured, model error and runs used."""
        ...

    def screened(self, step: int, steps: int, best_predicted: float | None) -> None:
        """Report a step of a screening in simulation between two real batches (``step`` of
        ``steps``; the best rate predicted so far); the evaluator adds the simulations run
        and their pace."""
        ...
