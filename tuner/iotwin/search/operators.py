"""The operators every strategy shares, registered on a DEAP toolbox.

Individuals are lists of value indices, one per gene of the space, so crossover and
mutation cannot leave the space; ``repair`` maps an individual onto the canonical point of
its config (constraints clamped, inactive genes reset). The operators draw from the
strategy's own ``random.Random`` so that a seed reproduces a campaign exactly (DEAP's
``tools`` use the global generator).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from deap import base

from iotwin.space.parameters import BoundSpace, Point


class RateFitness(base.Fitness):
    weights = (1.0,)  # maximise the write rate


class Individual(list[int]):
    def __init__(self, genes: Sequence[int] = ()) -> None:
        super().__init__(genes)
        self.fitness = RateFitness()

    @property
    def point(self) -> Point:
        return tuple(self)


def rate_fitness(rate: float | None) -> tuple[float]:
    """A failed or unpredicted evaluation ranks below every real rate."""
    return (rate if rate is not None else 0.0,)


def mate_uniform(rng: random.Random, a: Individual, b: Individual,
                 indpb: float) -> tuple[Individual, Individual]:
    for i in range(len(a)):
        if rng.random() < indpb:
            a[i], b[i] = b[i], a[i]
    return a, b


def mutate_uniform(rng: random.Random, individual: Individual, upper: Sequence[int],
                   indpb: float) -> tuple[Individual]:
    """Each gene with probability ``indpb`` takes another value; at least one gene changes."""
    mutable = [i for i, top in enumerate(upper) if top > 0]
    if not mutable:
        return (individual,)
    chosen = [i for i in mutable if rng.random() < indpb] or [rng.choice(mutable)]
    for i in chosen:
        other = rng.randrange(upper[i])
        individual[i] = other if other < individual[i] else other + 1
    return (individual,)


def select_tournament(rng: random.Random, individuals: Sequence[Individual], k: int,
                      tournsize: int) -> list[Individual]:
    return [max(rng.sample(list(individuals), min(tournsize, len(individuals))),
                key=lambda ind: ind.fitness)
            for _ in range(k)]


def select_best(individuals: Sequence[Individual], k: int) -> list[Individual]:
    return sorted(individuals, key=lambda ind: ind.fitness, reverse=True)[:k]


def repair(space: BoundSpace, individual: Individual) -> Individual:
    point, _ = space.repair(individual.point)
    individual[:] = point
    return individual


def make_toolbox(space: BoundSpace, rng: random.Random, *, mutation_indpb: float | None = None,
                 crossover_indpb: float = 0.5, tournament: int = 3) -> base.Toolbox:
    """init, population, mate, mutate, select, best, repair, clone — bound to one
    space."""
    toolbox = base.Toolbox()
    gene_indpb = mutation_indpb if mutation_indpb is not None else 1.0 / max(1, len(space.genes))
    toolbox.register("individual", lambda: repair(space, Individual(space.random_point(rng))))
    toolbox.register("population", lambda n: [toolbox.individual() for _ in range(n)])
    toolbox.register("mate", mate_uniform, rng, indpb=crossover_indpb)
    toolbox.register("mutate", mutate_uniform, rng, upper=space.upper, indpb=gene_indpb)
    toolbox.register("select", select_tournament, rng, tournsize=tournament)
    toolbox.register("best", select_best)
    toolbox.register("repair", repair, space)
    return toolbox


def vary(toolbox: base.Toolbox, rng: random.Random, parents: Sequence[Individual],
         cxpb: float, mutpb: float) -> list[Individual]:
    """Offspring of ``parents``: cloned, mated in pairs, mutated, repaired (DEAP's varAnd)."""
    offspring = [toolbox.clone(p) for p in parents]
    for i in range(1, len(offspring), 2):
        if rng.random() < cxpb:
            toolbox.mate(offspring[i - 1], offspring[i])
            del offspring[i - 1].fitness.values, offspring[i].fitness.values
    for child in offspring:
        if rng.random() < mutpb:
            toolbox.mutate(child)
            del child.fitness.values
    return [toolbox.repair(child) for child in offspring]
