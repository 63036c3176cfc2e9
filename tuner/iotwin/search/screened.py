"""sim-screened: a genetic search on a grey-box surrogate; only the most promising go to real runs.

The surrogate (iotwin.search.surrogate) believes a config's log rate to be the simulator's
prediction, calibrated to the campaign's runs, plus a residual learnt from those runs over the
config's settings: the simulator leads where nothing was run, the runs where they were. Each
generation evolves a large population on an upper confidence bound of those beliefs (mean +
``belief_z`` standard deviations: what a config may still turn out to be) and takes its
``pool`` best distinct unmeasured configs as candidates; from them and the measured contenders
(a repeat) it chooses the batch by the knowledge gradient (iotwin.search.acquisition), which
trades a new config against one more run of a contender when the top lies within the noise.
The noise is the campaign's own (iotwin.search.noise): until its repeats have told
``noise_dof`` degrees of freedom, each batch repeats the contender it believes best.

The first batch has no run of its own to learn from: it is the surrogate's prior, the
calibrated simulator times what earlier campaigns on the same platform transfer (their
residuals as a factor per setting, iotwin.search.transfer; none in a store without them), with
the prior's own uncertainty. It takes the ``first_batch`` best configs by the upper bound, each
differing from every one taken before in at least ``first_differ`` settings: a model's top is
often k near-copies that differ only in settings it gives no cost, and one run of them teaches
what all would. Then ``first_probes`` random configs, run after them (the top's runs come
first), so that the first fit sees configs the prior ranks apart and can tell a prior that
ranks the machine backwards. While the surrogate is not trusted (it did not predict the last
batch within its own uncertainty and the noise: median |z| above ``trust_z``), each later
batch also runs ``explore`` random unmeasured points, since a model cannot lead to what it
does not represent.

The simulator leads only as far as the runs say it orders the machine's configs: the
surrogate weighs it against the same surrogate without it by their evidence (the prior's
weight, iotwin.search.surrogate), so that a model that ranks the machine backwards hands the
search to a model-free Bayesian optimisation instead of leading it away from the best.

It stops when the budget is spent, when no candidate is left, or when the user's target is
met: the beliefs give less than 1 - ``confidence`` that any candidate or other measured config
beats the best measured by more than ``target`` (iotwin.search.trust), ``patience``
generations in a row while the surrogate is trusted, once its repeats have told
``noise_dof`` degrees of freedom of noise and once the best measured config's own runs give its
rate within ``target`` at ``confidence`` (the noise over the square root of its runs). The
surrogate pools configs it holds alike, and where runs spread far more than the target it may
hold a whole table alike; the best's own runs do not pool. On a machine whose runs spread 38%
a 5% target takes some 100 runs of the best: the campaign runs to its budget and says so. Each
generation reports the prior's weight and why, and the chance that the target is missed; the
last says how the campaign ended (the budget before the target, plainly, when it did, and how
many runs of the best the noise asked for when its own runs were too few).

The loop (:func:`sim_screened`), in the manner of DEAP's ``algorithms.py``::

    population <- `population` random points
    beliefs <- the simulator times the factors earlier campaigns' residuals give each
        setting (nothing measured)
    settled <- 0; trusted <- false
    while real runs are left:
        evolve population for `inner_generations` on the beliefs' upper bound (crossover,
            mutation, tournament selection)
        candidates <- the `top_k` * `pool` best distinct unmeasured points of population
        if nothing is left to run: stop
        if trusted, the noise known (`noise_dof`), the best measured's rate known to
            `target` from its own runs and the chance that a candidate or measured
            config beats the best by `target` below 1 - `confidence`:
            settled += 1, else settled <- 0
        if settled >= `patience`: stop
        first generation: batch <- the `first_batch` best unmeasured points of population
              by the upper bound, each differing from every one before it in at least
              `first_differ` settings (fewer when too few do), then `first_probes`
              random unmeasured points
        else: batch <- `top_k` of candidates and measured contenders by knowledge gradient
              (one repeat of the believed best while the noise is barely known)
              model not trusted: batch += `explore` random unmeasured points
        run the batch (new configs and repeats); trusted <- it came back within belief
        refit the platform model (once the measured configs have grown `refit_growth`-
            fold since its last refit), the noise and the surrogate to every run
        population <- population with its tail replaced by the `top_k` best measured
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from deap import base

from iotwin.search.acquisition import choose_runs
from iotwin.search.evaluator import BudgetExhausted, Evaluator
from iotwin.search.noise import Noise, estimate
from iotwin.search.operators import Individual, make_toolbox, rate_fitness, vary
from iotwin.search.surrogate import GreyBox
from iotwin.search.transfer import SettingFactors
from iotwin.search.trust import SearchState, measured_order
from iotwin.space.parameters import Point

_DRAWS = 4000  # joint draws of the beliefs that judge the stop (a chance of 10%: +-0.5%)


def sim_screened(evaluator: Evaluator, rng: random.Random, settings: Mapping[str, Any]) -> None:
    toolbox = make_toolbox(evaluator.space, rng, tournament=settings["tournament"])
    population = toolbox.population(settings["population"])
    beliefs = Beliefs(evaluator, GreyBox(evaluator.space, settings), settings)
    settled, generation, trusted = 0, 0, False
    candidates: list[Point] = []
    ended, screened = "budget", 0  # screened: the last generation whose screening ran
    try:
        while evaluator.runs_left() > 0:
            population = _evolve(beliefs, toolbox, rng, population, settings)
            screened = generation
            candidates = _top_unmeasured(evaluator, population,
                                         settings["top_k"] * settings["pool"])
            if not candidates and not beliefs.measured:
                ended = "space"
                break
            settled = settled + 1 if trusted and beliefs.settled(candidates) else 0
            if settled >= settings["patience"]:
                ended = "target"
                break
            if generation == 0:
                ranked = _top_unmeasured(evaluator, population, len(population))
                new = beliefs.diverse_top(ranked, settings["first_batch"],
                                          settings["first_differ"])
                new += _unmodelled(evaluator, toolbox, new, settings["first_probes"])
                repeats: list[Point] = []
            else:
                new, repeats = beliefs.choose(candidates, settings["top_k"])
                if not trusted:
                    new += _unmodelled(evaluator, toolbox, new, settings["explore"])
            trusted = beliefs.run(new, repeats)
            population = _with_measured_best(population,
                                             beliefs.best_measured(settings["top_k"]))
            evaluator.end_generation(generation, beliefs.best_expected(candidates),
                                     beliefs.state(candidates))
            generation += 1
    except BudgetExhausted:
        beliefs.refit()  # to the runs the budget let the last batch make
    if ended == "budget" and beliefs.settled(candidates):
        ended = "target"  # met with the budget's last runs
    # the last report says how the campaign ended: a generation of its own when its screening
    # ran (a stop, or a batch the budget cut short), else the last batch's again
    evaluator.end_generation(screened, None, beliefs.state(candidates, ended))


@dataclass(frozen=True)
class _Belief:
    mean: float  # of the log rate
    sd: float


class Beliefs:
    """What the campaign believes of configs' rates: the grey-box surrogate over the evaluator's
    simulated rates, refitted with the noise model after every batch of runs."""

    def __init__(self, evaluator: Evaluator, surrogate: GreyBox,
                 settings: Mapping[str, Any]) -> None:
        self.evaluator, self.surrogate, self.settings = evaluator, surrogate, settings
        self.measured: list[Point] = []  # successfully, in order
        self._calibrated_on = 0  # measured configs when the platform model was last refitted
        self.noise = self._noise()
        self.transfer = SettingFactors.fitted(evaluator.earlier_residuals(),
                                              settings["transfer_shrink"])
        self._transferred: dict[Point, float] = {}  # each point's factor, once

    @classmethod
    def fitted_to(cls, evaluator: Evaluator, measured: Sequence[Point],
                  settings: Mapping[str, Any]) -> Beliefs:
        """The beliefs once ``measured`` (the evaluator's measured points) have run: what
        sim-screened believes at the end of a campaign that ran them."""
        beliefs = cls(evaluator, GreyBox(evaluator.space, settings), settings)
        beliefs.measured = [point for point in measured if evaluator.runs_of(point)]
        beliefs.refit()
        return beliefs

    # -- what it believes -----------------------------------------------------------------------

    def prior(self, points: Sequence[Point]) -> list[float | None]:
        """Each point's prior rate: the simulator's, times the factor earlier campaigns on the
        platform transfer to its settings (iotwin.search.transfer; none: the simulator's)."""
        simulated = self.evaluator.predict(points)
        if not self.transfer.factors:
            return simulated
        return [rate * math.exp(self._transfer_of(point)) if rate else rate
                for point, rate in zip(points, simulated, strict=True)]

    def _transfer_of(self, point: Point) -> float:
        found = self._transferred.get(point)
        if found is None:
            found = self._transferred[point] = self.transfer.of(
                self.evaluator.space.config(point))
        return found

    def marginals(self, points: Sequence[Point]) -> list[_Belief | None]:
        """Each point's belief (None: the simulator has no rate for it)."""
        simulated = self.prior(points)
        known = [i for i, rate in enumerate(simulated) if rate]
        found: list[_Belief | None] = [None] * len(points)
        if known:
            mean, sd = self.surrogate.marginals([points[i] for i in known],
                                                [simulated[i] or 0.0 for i in known])
            for i, m, s in zip(known, mean, sd, strict=True):
                found[i] = _Belief(float(m), float(s))
        return found

    def upper_bound(self, points: Sequence[Point]) -> list[float | None]:
        """exp(mean + belief_z sd) of each point's log rate: what it may still turn out to be
        (before any run, the prior's rate times the same factor for every config)."""
        z = self.settings["belief_z"]
        return [math.exp(b.mean + z * b.sd) if b else None for b in self.marginals(points)]

    def best_measured(self, count: int) -> list[Point]:
        """The ``count`` measured points believed best."""
        means = [b.mean if b else -math.inf for b in self.marginals(self.measured)]
        ranked = sorted(range(len(self.measured)), key=lambda i: -means[i])
        return [self.measured[i] for i in ranked[:count]]

    def best_expected(self, candidates: Sequence[Point]) -> float | None:
        """The best rate the beliefs' means expect of the candidates (progress only)."""
        means = [b.mean for b in self.marginals(candidates) if b]
        return math.exp(max(means)) if means else None

    @property
    def noise_known(self) -> bool:
        """Whether the campaign's repeats have told ``noise_dof`` degrees of freedom of noise."""
        return self.noise.dof >= self.settings["noise_dof"]

    def chance_missed(self, candidates: Sequence[Point]) -> float | None:
        """The beliefs' chance that some candidate or other measured config beats the best
        measured by more than ``target`` (None: nothing measured): the share of joint draws
        from the beliefs in which one does. Configs that share settings share their doubt, so
        the draws count a plateau of alike configs about once, where a sum over them (a union
        bound) counted each, and a campaign on a plateau could never stop."""
        others = list(dict.fromkeys([*self.measured, *candidates]))
        simulated = self.prior(others)
        known = [i for i, rate in enumerate(simulated) if rate]
        points = [others[i] for i in known]
        measured = [i for i, point in enumerate(points) if point in self.measured]
        if not measured:
            return None
        mean, cov = self.surrogate.beliefs(points, [simulated[i] or 0.0 for i in known])
        best = max(measured, key=lambda i: mean[i])
        # each config's lead over the best: mean and covariance of (x_i - x_best)
        lead = np.eye(len(points)) - np.eye(len(points))[best]
        lead_mean, lead_cov = lead @ mean, lead @ cov @ lead.T
        draws = np.random.default_rng(0).multivariate_normal(
            lead_mean, lead_cov, size=_DRAWS, method="eigh", check_valid="ignore")
        return float(np.mean(draws.max(axis=1) > math.log1p(self.settings["target"])))

    def settled(self, candidates: Sequence[Point]) -> bool:
        """Whether the user's target is met: less than 1 - ``confidence`` that a candidate or
        another measured config beats the best measured by more than ``target``. Never before
        the campaign's repeats have told the noise (the prior alone would say how far a
        measured mean may be from the config's rate), nor before the best measured config's
        own runs know its rate to the target."""
        if not (self.noise_known and self.best_known()):
            return False
        chance = self.chance_missed(candidates)
        return chance is not None and chance <= 1 - self.settings["confidence"]

    def best_known(self) -> bool:
        """Whether the runs of the best measured config give its rate within ``target`` at
        ``confidence`` (iotwin.search.noise.Noise.runs_to_know). What the beliefs say of the
        other configs is relative to it, and they may pool configs they hold alike."""
        runs, needed = self.best_runs()
        return runs > 0 and runs >= needed

    def best_runs(self) -> tuple[int, int]:
        """The runs of the best measured config (0: none measured), and the runs that give
        its rate within ``target`` at ``confidence`` at the campaign's noise."""
        best = self.best_measured(1)
        runs = len(self.evaluator.runs_of(best[0])) if best else 0
        return runs, self.noise.runs_to_know(self.settings["target"],
                                             self.settings["confidence"])

    def state(self, candidates: Sequence[Point], ended: str | None = None) -> SearchState:
        """What the campaign tells of itself: the prior's weight and why, and its target."""
        simulated = self.evaluator.predict(self.measured)
        pairs = [(math.log(sim), math.log(statistics.median(self.evaluator.runs_of(p))))
                 for p, sim in zip(self.measured, simulated, strict=True) if sim]
        return SearchState(self.surrogate.weight, self.surrogate.log_bayes_factor,
                           measured_order([x for x, _ in pairs], [y for _, y in pairs]),
                           self.settings["target"], self.settings["confidence"],
                           self.chance_missed(candidates), ended, self.transfer.configs,
                           self.best_runs(), self.noise.sd)

    # -- what it asks for -----------------------------------------------------------------------

    def diverse_top(self, ranked: Sequence[Point], count: int, differ: int) -> list[Point]:
        """Up to ``count`` of ``ranked`` (best first), each the best that differs from every one
        taken before in at least ``differ`` settings; the rule relaxed one setting at a time
        when too few do (a space of few settings)."""
        count = min(count, self.evaluator.runs_left())
        chosen: list[Point] = []
        for needed in range(differ, -1, -1):
            for point in ranked:
                if len(chosen) >= count:
                    return chosen
                if point not in chosen and all(self.surrogate.differing(point, other) >= needed
                                               for other in chosen):
                    chosen.append(point)
        return chosen

    def choose(self, candidates: Sequence[Point], count: int) -> tuple[list[Point], list[Point]]:
        """``count`` runs by knowledge gradient: new points and repeats of measured ones."""
        everything = [*self.measured, *candidates]
        simulated = self.prior(everything)
        known = [i for i, rate in enumerate(simulated) if rate]
        points = [everything[i] for i in known]
        mean, cov = self.surrogate.beliefs(points, [simulated[i] or 0.0 for i in known])
        measured = [i for i, point in enumerate(points) if point in self.measured]
        repeats: list[Point] = []
        if not self.noise_known and measured:
            repeats = self.best_measured(1)
        options = [i for i, point in enumerate(points) if point not in repeats]
        chosen = choose_runs(mean, cov, measured, options, count - len(repeats),
                             self.noise.variance)
        repeats += [points[i] for i in chosen if i in measured]
        return [points[i] for i in chosen if i not in measured], repeats

    def run(self, new: Sequence[Point], repeats: Sequence[Point]) -> bool:
        """Run the batch and refit to everything measured; whether its runs came back within
        the beliefs held before they ran (and the noise of a run)."""
        before = self.marginals([*new, *repeats])
        runs_before = [len(self.evaluator.runs_of(p)) for p in repeats]
        try:
            rates = self.evaluator.measure(new)
            self.evaluator.repeat(repeats)
        finally:  # the budget may end within the batch: what ran is measured
            self.measured += [p for p in new
                              if self.evaluator.runs_of(p) and p not in self.measured]
        fresh = [*rates, *(self._run_since(p, done)
                           for p, done in zip(repeats, runs_before, strict=True))]
        z = [abs(math.log(rate) - b.mean) / math.sqrt(b.sd ** 2 + self.noise.variance)
             for b, rate in zip(before, fresh, strict=True) if b and rate]
        if len(self.measured) >= self.settings["refit_growth"] * self._calibrated_on:
            self.evaluator.recalibrate()
            self._calibrated_on = len(self.measured)
        self.refit()
        return bool(z) and statistics.median(z) <= self.settings["trust_z"]

    def _run_since(self, point: Point, runs_before: int) -> float | None:
        """The rate of the run a repeat added to ``point`` (None: it failed or did not run)."""
        runs = self.evaluator.runs_of(point)
        return runs[-1] if len(runs) > runs_before else None

    def refit(self) -> None:
        """The noise and the surrogate fitted to every run of the measured points."""
        self.noise = self._noise()
        simulated = self.prior(self.measured)
        known = [i for i, rate in enumerate(simulated) if rate]
        self.surrogate.fit([self.measured[i] for i in known],
                           [simulated[i] or 0.0 for i in known],
                           [self.evaluator.runs_of(self.measured[i]) for i in known], self.noise)

    def _noise(self) -> Noise:
        return estimate((self.evaluator.runs_of(p) for p in self.measured),
                        self.settings["noise_sd"], self.settings["noise_weight"])


def _unmodelled(evaluator: Evaluator, toolbox: base.Toolbox, chosen: list[Point],
                k: int) -> list[Point]:
    """Up to ``k`` random unmeasured points: the part of a batch that does not follow the model
    (the first batch's probes of its order; while it mispredicts the machine, part of each
    batch, as what the model cannot represent, it cannot lead to)."""
    k = min(k, evaluator.runs_left() - len(chosen))
    found: list[Point] = []
    for individual in toolbox.population(20 * max(k, 0)):
        if len(found) >= k:
            break
        point = individual.point
        if point not in chosen and point not in found and not evaluator.is_measured(point):
            found.append(point)
    return found


def _evolve(beliefs: Beliefs, toolbox: base.Toolbox, rng: random.Random,
            population: list[Individual], settings: Mapping[str, Any]) -> list[Individual]:
    """``inner_generations`` GA steps on the beliefs' upper bound; the result is sorted, best
    first. Each step is reported with the best rate the beliefs expected so far of the configs
    the population ranked first (its fitness is an upper bound: what is hoped, not expected)."""
    _score(beliefs, population)  # the beliefs changed since the last generation
    size, steps = len(population), settings["inner_generations"]
    leaders = settings["top_k"] * settings["pool"]
    best = _Best()
    beliefs.evaluator.screened(0, steps, best.of(beliefs, toolbox.best(population, leaders)))
    for step in range(1, steps + 1):
        parents = toolbox.select(population, size)
        offspring = vary(toolbox, rng, parents, settings["crossover"], settings["mutation"])
        _score(beliefs, offspring)
        population = toolbox.best(_distinct(population + offspring), size)  # (mu + lambda)
        immigrants = toolbox.population(size - len(population))  # keeps the population diverse
        _score(beliefs, immigrants)
        population += immigrants
        beliefs.evaluator.screened(step, steps,
                                   best.of(beliefs, toolbox.best(population, leaders)))
    return toolbox.best(population, size)


@dataclass
class _Best:
    """The best rate the beliefs' means expected of the leaders seen so far in a screening."""

    rate: float | None = None

    def of(self, beliefs: Beliefs, leaders: list[Individual]) -> float | None:
        found = beliefs.best_expected([ind.point for ind in leaders])
        if found is not None and (self.rate is None or found > self.rate):
            self.rate = found
        return self.rate


def _distinct(individuals: list[Individual]) -> list[Individual]:
    unique: dict[Point, Individual] = {}
    for individual in individuals:
        unique.setdefault(individual.point, individual)
    return list(unique.values())


def _score(beliefs: Beliefs, individuals: list[Individual]) -> None:
    rates = beliefs.upper_bound([ind.point for ind in individuals])
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


def _with_measured_best(population: list[Individual], best: Sequence[Point]
                        ) -> list[Individual]:
    """The population with its tail replaced by the ``best`` measured points (elitism)."""
    present = {ind.point for ind in population}
    injected = [Individual(point) for point in best if point not in present]
    return population[:len(population) - len(injected)] + injected

