"""h5evolve: the paper's genetic search on real runs only — the baseline."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from iotwin.search.evaluator import Evaluator
from iotwin.search.operators import Individual, make_toolbox, rate_fitness, vary


def h5evolve(evaluator: Evaluator, rng: random.Random, settings: Mapping[str, Any]) -> None:
    toolbox = make_toolbox(evaluator.space, rng, tournament=settings["tournament"])
    population = toolbox.population(settings["population"])
    _measure(evaluator, population)
    evaluator.end_generation(0)
    for generation in range(1, settings["generations"]):
        elite = [toolbox.clone(ind) for ind in toolbox.best(population, settings["elite"])]
        parents = toolbox.select(population, len(population) - len(elite))
        offspring = vary(toolbox, rng, parents, settings["crossover"], settings["mutation"])
        _measure(evaluator, offspring)
        population = elite + offspring
        evaluator.end_generation(generation)


def _measure(evaluator: Evaluator, individuals: list[Individual]) -> None:
    rates = evaluator.measure([ind.point for ind in individuals])
    for individual, rate in zip(individuals, rates, strict=True):
        individual.fitness.values = rate_fitness(rate)
