"""What a strategy benchmark (``iotwin landscape benchmark``) will cost, before any campaign
starts: each campaign (a table, a strategy, a seed) replays at most its strategy's cap of
runs and its confirmation's, at a measured cost per replayed run; a strategy that fits a
model of its own (optuna-tpe, skopt-gp, sim-screened's surrogate and refits) adds its
measured CPU per run of its cap, and one that asks the simulator (sim-screened) its measured
simulations per run, each at the table's own simulation cost (data/costs.yaml,
``strategy_benchmark``); the model analysis simulates every config of each table once as
loaded and once per evaluation of its refit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from iotwin.core.cost import Cost, Driver, Limits, constant, constants
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
        settings.cap(strategy, case)
        + settings.confirm * max(settings.confirm_runs, settings.confirm_max_runs)
        for case in cases for strategy in settings.caps)
    campaigns = Driver(seeds, settings.seeds, f"{replays} replayed runs")
    total = Cost(replays * constant("strategy_benchmark", "seconds_per_replay"),
                 constant("python", "process_bytes"), campaigns, campaigns)
    for case in cases:
        one = simulation_cost(load_platform(case.platform), case.model_workload(),
                              f"{spec}: {case.name}", memory_limit=limits.memory_bytes)
        total = limits.check(total.then(_strategies_own(case, settings, one, seeds)))
        if model_analysis != 0:
            total = limits.check(total.then(_model_analysis(case, one, model_analysis)))
    return total


def _strategies_own(case: TableCase, settings: BenchmarkSettings, one: Cost, seeds: str
                    ) -> Cost:
    """The strategies' own work on ``case`` over every seed: their CPU per run of their cap,
    and their simulations at ``one``'s cost."""
    own = _measured("seconds_per_run")
    asks = _measured("simulations_per_run")
    runs = {strategy: settings.seeds * settings.cap(strategy, case)
            for strategy in settings.caps}
    simulations = sum(runs[s] * asks.get(s, 0.0) for s in runs)
    driver = Driver(seeds, settings.seeds, f"{simulations:.0f} simulations and the guided "
                    f"strategies' own CPU on table {case.name}")
    seconds = sum(runs[s] * own.get(s, 0.0) for s in runs)
    if not simulations:
        return Cost(seconds, 0.0, driver, driver)
    simulated = batched(one, simulations, driver)
    return replace(simulated, seconds=simulated.seconds + seconds)


def _model_analysis(case: TableCase, one: Cost, model_analysis: int | None) -> Cost:
    """The model analysis of ``case``: every config simulated as loaded and once per
    evaluation of its refit (at most ``model_analysis`` simulations, None: the full refit)."""
    refit = RefitSettings.from_settings(strategy_settings("sim-screened"))
    configs = len(case.table.configs)
    simulations = configs * (2 + fit_evaluations(1, refit.parameters, refit.evaluations))
    if model_analysis is not None:
        simulations = min(simulations, model_analysis + 2 * configs)
    return batched(one, simulations, Driver("--model-analysis", model_analysis or "full",
                                            f"{simulations} simulations of table {case.name}"))


def _measured(name: str) -> dict[str, float]:
    """A per-strategy table of data/costs.yaml's ``strategy_benchmark``."""
    return {str(k): float(v) for k, v in constants()["strategy_benchmark"][name].items()}
