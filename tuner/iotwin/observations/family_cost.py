"""What a family calibration (``iotwin calibrate --family``) will cost, before it starts.

Counting every evaluation of the fit times every case would overstate it many times over:
the fit moves one constant at a time (its scan, its Jacobian's columns) and most constants
reach only some machines (an HDD's rate no NVMe system), so most of an evaluation's models
were simulated before and are answered from iotwin.model.family's memo. So the distinct
simulations are counted per case from the constants that reach its model (those whose value
changes the model built from its description), each at that case's own cost as iosim
estimates it, plus the iotwin process's own work per model looked up.

The held-out refits all start from the fit over every system, so their first evaluation and
its Jacobian are the same models in each: simulated once, in the first refit that keeps the
case. Each fit is counted at the steps such fits take (data/costs.yaml,
``family_calibration``: the shipped run's), at most its cap (``--evaluations``, a held-out
refit's third): an estimate of what the run does, not a bound."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from iotwin.core.cost import Cost, Driver, Limits, constant
from iotwin.model.family import FamilyCase, constant_bounds, with_constants
from iotwin.model.sim_cost import batch_seconds, simulation_cost
from iotwin.observations.io500 import SCAN_POINTS


@dataclass(frozen=True)
class FamilyRun:
    """What a family calibration does: its cases' count, the constants it fits, the cap of
    the fit's evaluations and of each held-out refit's."""

    cases: int
    systems: int
    constants: int
    evaluations: int
    refit_evaluations: int

    @property
    def steps(self) -> int:
        """The gradient steps the fit over every system takes (each with its Jacobian)."""
        return min(self.evaluations, int(constant("family_calibration", "fit_steps")))

    @property
    def refit_steps(self) -> int:
        """The steps each held-out refit takes, its start (the fit's result) counted."""
        return min(self.refit_evaluations, int(constant("family_calibration", "refit_steps")))

    @property
    def refits(self) -> int:
        """The held-out refits each case is kept in: every system's but its own."""
        return max(self.systems - 1, 0)

    def models_per_case(self) -> float:
        """How many models each case's simulated rate is looked up for (memo or not): before,
        the scan, each of the fit's steps and its Jacobian's columns, after, and the held-out
        refits' steps with theirs, then its own system's held-out prediction."""
        per_step = 1 + self.constants
        scan = 1 + SCAN_POINTS * self.constants
        return 1 + scan + self.steps * per_step + 1 + self.refits * self.refit_steps * per_step + 1

    def simulations_of(self, reach: int) -> float:
        """The distinct simulations of a case that ``reach`` constants reach: its model before
        (the scan starts there), a scan value of each constant that reaches it, each of the
        fit's steps and the Jacobian columns of its constants, the fit's result; then the
        refits' shared start's Jacobian columns once, each refit's later steps with theirs,
        and its held-out prediction."""
        moved = 1 if reach else 0
        per_step = moved + reach
        scan = SCAN_POINTS * reach
        fit = self.steps * per_step
        shared_start = reach if self.refits else 0
        refits = self.refits * max(self.refit_steps - 1, 0) * per_step
        return 1 + scan + fit + 1 + shared_start + refits + 1


def family_run_bound(run: FamilyRun, source: str, limits: Limits) -> Cost:
    """The least a family calibration of ``run`` can cost, checked before any model is built:
    every case simulated at least before, fitted and held out, each an iosim process; the
    cases held meanwhile. A refusal names ``source`` (``--io500 TRAIN.json``)."""
    driver = Driver(source, f"{run.cases} cases", "")
    least = 3 * run.cases
    seconds = least * (batch_seconds(1) + constant("simulation", "seconds_per_config"))
    memory = _held_bytes(run.cases)
    how = f"at least {least} simulations of {run.cases} cases"
    return limits.check(Cost(seconds, memory, replace(driver, how=how), driver))


def family_cost(run: FamilyRun, cases: Sequence[FamilyCase], base: Mapping[str, Any],
                source: str, limits: Limits, jobs: int = 2) -> Cost:
    """The estimated cost of a family calibration of ``cases`` from the sheet defaults
    ``base``, refused (UserError naming ``source``, or the case whose simulation holds the
    most memory) beyond ``limits``. Building the cases is work: check
    :func:`family_run_bound` first."""
    looked_up = run.models_per_case() * len(cases)
    seconds = looked_up * constant("family_calibration", "seconds_per_model")
    simulations = 0.0
    largest: Cost | None = None
    for case, count in zip(cases, distinct_simulations(run, cases, base), strict=True):
        one = simulation_cost(case.platform_of(base), case.workload, source, [{}],
                              memory_limit=limits.memory_bytes, jobs=jobs, where=case.label)
        seconds += count * (one.seconds + batch_seconds(1))
        simulations += count
        if largest is None or one.memory_bytes > largest.memory_bytes:
            largest = one
    assert largest is not None  # a calibration has cases
    driver = Driver(source, f"{len(cases)} cases",
                    f"{simulations:.0f} distinct simulations, {run.steps} steps of the fit "
                    f"and {run.refit_steps} of each of {run.systems} held-out refits")
    held = _held_bytes(len(cases))
    return limits.check(replace(largest, seconds=seconds, time_driver=driver).holding(
        held, Driver(source, f"{len(cases)} cases")))


def _held_bytes(cases: int) -> float:
    """What a family calibration of ``cases`` holds besides its simulations."""
    return (constant("python", "process_bytes")
            + cases * constant("family_calibration", "bytes_per_case"))


def distinct_simulations(run: FamilyRun, cases: Sequence[FamilyCase],
                         base: Mapping[str, Any]) -> list[float]:
    """Each case's distinct simulations in a family calibration of ``run`` from ``base``."""
    bounds = constant_bounds(base)
    priors = {path: prior for path, (prior, _, _) in bounds.items()}
    prior_sheet = with_constants(base, priors, "prior")
    moved_sheets = [with_constants(base, {**priors, path: high if prior != high else low},
                                   "moved") for path, (prior, low, high) in bounds.items()]
    return [run.simulations_of(reach(case, prior_sheet, moved_sheets)) for case in cases]


def reach(case: FamilyCase, prior_sheet: Mapping[str, Any],
          moved_sheets: Sequence[Mapping[str, Any]]) -> int:
    """How many of the family constants change ``case``'s model when moved from their prior
    (``moved_sheets``: the sheet defaults with one constant moved each)."""
    start = case.platform_of(prior_sheet).data
    return sum(case.platform_of(moved).data != start for moved in moved_sheets)
