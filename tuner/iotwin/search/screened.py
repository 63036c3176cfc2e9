"""sim-screened: a genetic search on simulated rates; only the most promising go to real runs.

Each generation evolves a large population on the current model's predictions and sends
the top-k distinct not-yet-measured candidates to the executor; the first batch adds
``explore`` candidates from the better half of the population that lie farthest from the
others, so that the first refit sees configs that differ, not k neighbours. The measured
best are fed back into the population and the model is refitted to everything measured.

It stops when the budget is spent, when the model has no unmeasured candidate left, or on
convergence: ``patience`` generations in a row in which the refitted model expects no
unmeasured candidate to beat the best measured config by more than ``tolerance`` (both
rates predicted, so the measured best's luck in the noise does not end the search). A model
is only trusted to end the search while it predicted the last real batch within
``trust_error`` (median |predicted / measured - 1|): a model that cannot represent the
machine says "no gain" wrongly. While it is not trusted, each batch also runs ``explore``
random unmeasured points, since a model cannot lead to what it does not represent.

The loop (:func:`sim_screened`), in the manner of DEAP's ``algorithms.py``::

    population <- `population` random points
    settled <- 0; trusted <- false
    while real runs are left:
        evolve population for `inner_generations` on predicted rates (crossover, mutation,
            tournament selection)
        candidates <- the `top_k` best distinct unmeasured points of population
        if no candidate: stop
        if trusted and the model expects candidates[0] to beat the best measured by less
            than `tolerance`: settled += 1, else settled <- 0
        if settled >= `patience`: stop
        first generation: candidates += `explore` points far apart from them
        model not trusted: candidates += `explore` random unmeasured points
        predicted <- model(candidates); rates <- real runs of candidates
        trusted <- median |predicted / rates - 1| <= `trust_error`
        refit the model to every measured point
        population <- population with its tail replaced by the `top_k` best measured
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from deap import base

from iotwin.core.stats import median_relative_error
from iotwin.search.evaluator import Evaluator
from iotwin.search.operators import Individual, make_toolbox, rate_fitness, vary
from iotwin.space.parameters import Point


def sim_screened(evaluator: Evaluator, rng: random.Random, settings: Mapping[str, Any]) -> None:
    toolbox = make_toolbox(evaluator.space, rng, tournament=settings["tournament"])
    population = toolbox.population(settings["population"])
    measured: dict[Point, float] = {}
    settled, generation, trusted = 0, 0, False
    while evaluator.runs_left() > 0:
        population = _evolve_on_model(evaluator, toolbox, rng, population, settings)
        candidates = _top_unmeasured(evaluator, population, settings["top_k"])
        if not candidates:
            break
        settled = settled + 1 if trusted and _expects_no_gain(
            evaluator, candidates[0], measured, settings["tolerance"]) else 0
        if settled >= settings["patience"]:
            break
        if generation == 0:
            candidates += _far_apart(evaluator, toolbox, population, candidates,
                                     settings["explore"])
        elif not trusted:
            candidates += _unmodelled(evaluator, toolbox, candidates, settings["explore"])
        predicted = evaluator.predict(candidates)
        rates = evaluator.measure(candidates)
        for point, rate in zip(candidates, rates, strict=True):
            if rate is not None:
                measured[point] = rate
        error = median_relative_error(predicted, rates)
        trusted = error is not None and error <= settings["trust_error"]
        evaluator.recalibrate()
        population = _with_measured_best(population, measured, settings["top_k"])
        evaluator.end_generation(generation, population[0].fitness.values[0]
                                 if population[0].fitness.valid else None)
        generation += 1


def _expects_no_gain(evaluator: Evaluator, candidate: Point, measured: Mapping[Point, float],
                     tolerance: float) -> bool:
    """Whether the model predicts ``candidate`` (its best unmeasured) no better than the best
    measured config, both on the current model."""
    if not measured:
        return False
    best = max(measured, key=measured.__getitem__)
    expected, reached = evaluator.predict([candidate, best])
    return expected is not None and reached is not None and expected <= reached * (1 + tolerance)


def _far_apart(evaluator: Evaluator, toolbox: base.Toolbox, ranked: list[Individual],
               chosen: list[Point], k: int) -> list[Point]:
    """Up to ``k`` unmeasured points of the better half of ``ranked``, far from ``chosen``."""
    half = [ind for ind in ranked[:max(1, len(ranked) // 2)]
            if ind.point not in chosen and not evaluator.is_measured(ind.point)]
    k = min(k, evaluator.runs_left() - len(chosen))
    return [ind.point for ind in toolbox.spread(half, k, chosen)] if k > 0 else []


def _unmodelled(evaluator: Evaluator, toolbox: base.Toolbox, chosen: list[Point],
                k: int) -> list[Point]:
    """Up to ``k`` random unmeasured points: while the model mispredicts the machine, part of
    each batch does not follow it (what the model cannot represent, it cannot lead to)."""
    k = min(k, evaluator.runs_left() - len(chosen))
    found: list[Point] = []
    for individual in toolbox.population(20 * max(k, 0)):
        if len(found) >= k:
            break
        point = individual.point
        if point not in chosen and point not in found and not evaluator.is_measured(point):
            found.append(point)
    return found


def _evolve_on_model(evaluator: Evaluator, toolbox: base.Toolbox, rng: random.Random,
                     population: list[Individual], settings: Mapping[str, Any]
                     ) -> list[Individual]:
    """``inner_generations`` GA steps on predicted rates; the result is sorted, best first."""
    _predict(evaluator, population)  # the model changed since the last generation
    size, steps = len(population), settings["inner_generations"]
    evaluator.screened(0, steps, _best_rate(population))
    for step in range(1, steps + 1):
        parents = toolbox.select(population, size)
        offspring = vary(toolbox, rng, parents, settings["crossover"], settings["mutation"])
        _predict(evaluator, offspring)
        population = toolbox.best(_distinct(population + offspring), size)  # (mu + lambda)
        immigrants = toolbox.population(size - len(population))  # keeps the population diverse
        _predict(evaluator, immigrants)
        population += immigrants
        evaluator.screened(step, steps, _best_rate(population))
    return toolbox.best(population, size)


def _best_rate(population: list[Individual]) -> float | None:
    rates = [ind.fitness.values[0] for ind in population if ind.fitness.valid]
    best = max(rates, default=None)
    return best if best is not None and best > 0 else None


def _distinct(individuals: list[Individual]) -> list[Individual]:
    unique: dict[Point, Individual] = {}
    for individual in individuals:
        unique.setdefault(individual.point, individual)
    return list(unique.values())


def _predict(evaluator: Evaluator, individuals: list[Individual]) -> None:
    rates = evaluator.predict([ind.point for ind in individuals])
    for individual, rate in zip(individuals, rates, strict=True):
        individual.fitness.values = rate_fitness(rate)


def _top_unmeasured(evaluator: Evaluator, ranked: list[Individual], k: int) -> list[Point]:
    chosen: list[Point] = []
    for individual in ranked:
        point = individual.point
        if point not in chosen and not evaluator.is_measured(point):
            chosen.append(point)
        if len(chosen) == min(k, evaluator.runs_left()):
            break
    return chosen


def _with_measured_best(population: list[Individual], measured: Mapping[Point, float],
                        k: int) -> list[Individual]:
    """The population with its tail replaced by the k best measured points (real elitism)."""
    best = sorted(measured, key=measured.__getitem__, reverse=True)[:k]
    present = {ind.point for ind in population}
    injected = [Individual(point) for point in best if point not in present]
    return population[:len(population) - len(injected)] + injected
