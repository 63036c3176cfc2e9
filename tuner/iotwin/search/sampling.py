"""The two non-evolutionary baselines: random sampling and exhaustive enumeration."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import Any

from iotwin.search.evaluator import Evaluator
from iotwin.space.parameters import BoundSpace, Point

_BATCH = 10  # points per reported "generation"


def random_search(evaluator: Evaluator, rng: random.Random, settings: Mapping[str, Any]) -> None:
    """Distinct random points (after repair), until the budget or the space is spent."""
    _measure_in_batches(evaluator, _distinct_random_points(evaluator.space, rng))


def exhaustive(evaluator: Evaluator, rng: random.Random, settings: Mapping[str, Any]) -> None:
    """Every distinct point of the (discretised) space, in order, until the budget is spent."""
    _measure_in_batches(evaluator, _distinct(evaluator.space.points(), evaluator.space))


def _distinct(points: Iterator[Point], space: BoundSpace) -> Iterator[Point]:
    seen: set[Point] = set()
    for point in points:
        canonical, _ = space.repair(point)
        if canonical not in seen:
            seen.add(canonical)
            yield canonical


def _distinct_random_points(space: BoundSpace, rng: random.Random) -> Iterator[Point]:
    seen: set[Point] = set()
    misses = 0
    while misses < 1000:  # a long run of repeats: the space is (nearly) spent
        point, _ = space.repair(space.random_point(rng))
        if point in seen:
            misses += 1
            continue
        misses = 0
        seen.add(point)
        yield point


def _measure_in_batches(evaluator: Evaluator, points: Iterator[Point]) -> None:
    """Ends when the points run out or ``measure`` raises BudgetExhausted."""
    generation = 0
    batch: list[Point] = []
    for point in points:
        batch.append(point)
        if len(batch) == _BATCH:
            evaluator.measure(batch)
            evaluator.end_generation(generation)
            generation, batch = generation + 1, []
    if batch:
        evaluator.measure(batch)
        evaluator.end_generation(generation)
