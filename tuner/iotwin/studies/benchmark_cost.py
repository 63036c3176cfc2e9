"""What a strategy benchmark (``iotwin landscape benchmark``) will cost, before any campaign
starts: each campaign (a table, a strategy, a seed) replays at most its strategy's cap of
runs and its confirmation's, at a measured cost per replayed run; the model analysis
simulates every config of each table once as loaded and once per evaluation of its refit.

A model-guided strategy's own simulations (sim-screened's screening) are not counted: how
many it makes depends on what its campaign measures."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from iotwin.core.cost import Cost, Driver, Limits, constant
from iotwin.model.calibration import RefitSettings, fit_evaluations
from iotwin.model.platforms import load_platform
from iotwin.model.sim_cost import batched, simulation_cost
from iotwin.search import strategy_settings
from iotwin.studies.strategy_benchmark import BenchmarkSettings, TableCase


def benchmark_cost(cases: Sequence[TableCase], settings: BenchmarkSettings, spec: Path,
                   seeds: str, model_analysis: int | None, limits: Limits) -> Cost:
    """The benchmark's estimated cost, refused (UserError naming the input that drives it)
    when it is beyond ``limits``. ``seeds`` names where the seed count comes from (the spec's
    ``seeds`` or ``--seeds``); ``model_analysis``: 0 none, None the full refit, else at most
    this many simulations for it."""
    replays = settings.seeds * sum(
        settings.cap(strategy, case) + settings.confirm * settings.confirm_runs
        for case in cases for strategy in settings.caps)
    campaigns = Driver(seeds, settings.seeds, f"{replays} replayed runs")
    total = Cost(replays * constant("strategy_benchmark", "seconds_per_replay"),
                 constant("python", "process_bytes"), campaigns, campaigns)
    if model_analysis == 0:
        return limits.check(total)
    refit = RefitSettings.from_settings(strategy_settings("sim-screened"))
    for case in cases:
        configs = len(case.table.configs)
        simulations = configs * (2 + fit_evaluations(1, refit.parameters, refit.evaluations))
        if model_analysis is not None:
            simulations = min(simulations, model_analysis + 2 * configs)
        one = simulation_cost(load_platform(case.platform), case.model_workload(),
                              f"{spec}: {case.name}", memory_limit=limits.memory_bytes)
        total = limits.check(total.then(batched(
            one, simulations, Driver("--model-analysis", model_analysis or "full",
                                f"{simulations} simulations of table {case.name}"))))
    return total
