"""What a tuning campaign (``iotwin tune``) will cost, before it starts: its runs (the search's
budget x repetitions, the confirmation's, the summary's default and tuned pairs), each a
simulation on a twin or a replayed run of a table; and a model-guided strategy's screening,
a population simulated for each generation on the surrogate between two real batches.

A real run on this machine or a cluster is counted but not timed: how long the program runs
is what it measures (``--timeout`` bounds each)."""

from __future__ import annotations

import math

from iotwin.core.cost import Cost, Driver, Limits, constant
from iotwin.model.platforms import load_platform
from iotwin.model.sim_cost import batched, simulation_cost
from iotwin.search import strategy_kind, strategy_settings
from iotwin.tuning.parts import program_mpi
from iotwin.tuning.spec import TuneSpec
from iotwin.workloads.workload import kernel_workload


def tune_cost(spec: TuneSpec, limits: Limits, budget_name: str = "--real-budget") -> Cost:
    """The campaign's estimated cost, refused (UserError naming the budget as
    ``budget_name``: --real-budget, or a demo description's field) when it is beyond
    ``limits``."""
    search, pipeline = spec.search, spec.pipeline
    runs = (search.real_budget * search.repetitions
            + pipeline.confirm * max(pipeline.confirm_runs, pipeline.confirm_max_runs)
            + pipeline.summary_repeat * (2 + (pipeline.yours is not None)))
    budget = Driver(budget_name, search.real_budget, f"{runs} runs")
    total = Cost(0, constant("python", "process_bytes"), budget, budget)
    if search.executor == "table":
        total = Cost(runs * constant("strategy_benchmark", "seconds_per_replay"),
                     total.memory_bytes, budget, budget)
    simulations = runs if search.executor == "twin" else 0
    if strategy_kind(search.strategy).needs_model:
        settings = strategy_settings(search.strategy, search.settings)
        batches = math.ceil(search.real_budget / int(settings["top_k"]))
        simulations += batches * int(settings["population"]) * (
            int(settings["inner_generations"]) + 1)
    workload = search.workload or (kernel_workload(search.kernel, search.ranks,
                                                   list(search.args), program_mpi(search))
                                   if search.kernel else None)
    if simulations and workload is not None:  # a program's is captured by its first run
        one = simulation_cost(load_platform(search.platform), workload,
                              f"{search.kernel or 'the workload'} on {search.ranks} ranks",
                              memory_limit=limits.memory_bytes)
        total = total.then(batched(one, simulations, Driver(
            budget_name, search.real_budget, f"{simulations} simulations")))
    return limits.check(total)
