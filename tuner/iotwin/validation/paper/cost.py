"""What the paper validation (``iotwin validate paper``) will cost, before any simulation: per
platform, its fit's evaluations at their caps (cases.yaml ``fit``: rounds of at most
``evaluations_per_round`` steps, each with its Jacobian, the first from a coarse scan), the
sensitivity scan (every bounded parameter at both bounds), and with leave-one-out a refit
without each row and without each scale; each evaluation simulates every row of the
platform (a row of identical steps its first step and its first two), a model-optimum row
every config of its sample, at the cost iosim estimates for the platform's largest workload
(iotwin.model.sim_cost.fit_cost)."""

from __future__ import annotations

from collections.abc import Sequence

from iotwin.core.cost import Cost, Driver, Limits
from iotwin.model.calibration import Observation, fit_evaluations
from iotwin.model.sim_cost import fit_cost
from iotwin.validation.paper.leave_out import scale_groups
from iotwin.validation.paper.selection import PlatformCases
from iotwin.validation.paper.settings import Settings


def paper_cost(platforms: Sequence[PlatformCases], settings: Settings,
               loo: bool, selected: str, limits: Limits) -> Cost:
    """The validation of each platform's cases, one after another, refused (UserError naming
    ``selected``: the --platforms chosen) beyond ``limits``."""
    total: Cost | None = None
    for selected_part in platforms:
        platform, cases = selected_part.platform, selected_part.cases
        fits = 1 + (len(cases) + len(scale_groups(cases)) if loo else 0)
        bounded = len(platform.free_parameters())
        fitted = min(bounded, max(1, len(cases) // settings.selection.rows_per_parameter))
        fit = settings.fit
        per_fit = (fit_evaluations(fit.max_rounds, fitted, fit.evaluations_per_round)
                   + fit.scan_points * fitted)
        evaluations = 2 * bounded + fits * per_fit
        observations = [Observation(simulated, c.config, c.published_mbs)
                        for c in cases for _ in range(max(1, len(c.candidates)))
                        for simulated in c.workload.get("step_workloads", [c.workload])]
        driver = Driver("--platforms", selected, f"{platform.name}: {len(cases)} rows, "
                        f"{fits} fits of {per_fit} evaluations")
        part = fit_cost(platform, observations, driver, evaluations=evaluations,
                        memory_limit=limits.memory_bytes)
        total = limits.check(part if total is None else total.then(part))
    assert total is not None  # the rows selected are not empty (run_paper_validation)
    return total
