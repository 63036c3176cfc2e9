"""sim-screened: a genetic search on simulated rates; only the most promising go to real runs.

Each generation evolves a large population on the current model's predictions, sends the
top-k distinct not-yet-measured candidates to the executor, feeds the measured best back
into the population and refits the model to everything measured. It stops when the budget
is spent, when the model has no unmeasured candidate left to propose, or when ``patience``
real batches in a row did not improve the best measured rate by more than ``tolerance``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from deap import base

from iotwin.search.evaluator import Evaluator
from iotwin.search.operators import Individual, make_toolbox, rate_fitness, vary
from iotwin.space import Point


def sim_screened(evaluator: Evaluator, rng: random.Random, settings: Mapping[str, Any]) -> None:
    toolbox = make_toolbox(evaluator.space, rng, tournament=settings["tournament"])
    population = toolbox.population(settings["population"])
    measured_best: dict[Point, float] = {}
    stalled, best_so_far, generation = 0, 0.0, 0
    while evaluator.runs_left() > 0 and stalled < settings["patience"]:
        population = _evolve_on_model(evaluator, toolbox, rng, population, settings)
        candidates = _top_unmeasured(evaluator, population, settings["top_k"])
        if not candidates:
            break
        for point, rate in zip(candidates, evaluator.measure(candidates), strict=True):
            if rate is not None:
                measured_best[point] = rate
        evaluator.recalibrate()
        population = _with_measured_best(population, measured_best, settings["top_k"])
        best = max(measured_best.values(), default=0.0)
        stalled = 0 if best > best_so_far * (1 + settings["tolerance"]) else stalled + 1
        best_so_far = max(best, best_so_far)
        evaluator.end_generation(generation, population[0].fitness.values[0]
                                 if population[0].fitness.valid else None)
        generation += 1


def _evolve_on_model(evaluator: Evaluator, toolbox: base.Toolbox, rng: random.Random,
                     population: list[Individual], settings: Mapping[str, Any]
                     ) -> list[Individual]:
    """``inner_generations`` GA steps on predicted rates; the result is sorted, best first."""
    _predict(evaluator, population)  # the model changed since the last generation
    size = len(population)
    for _ in range(settings["inner_generations"]):
        parents = toolbox.select(population, size)
        offspring = vary(toolbox, rng, parents, settings["crossover"], settings["mutation"])
        _predict(evaluator, offspring)
        population = toolbox.best(_distinct(population + offspring), size)  # (mu + lambda)
        immigrants = toolbox.population(size - len(population))  # keeps the population diverse
        _predict(evaluator, immigrants)
        population += immigrants
    return toolbox.best(population, size)


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
