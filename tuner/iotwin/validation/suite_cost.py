"""What a suite's real runs cost (``validate local``, ``landscape measure``), before the first
starts: its configs times its passes, and the confirmation's rounds of its top configs, each
a run of the suite's program on its ranks (iotwin.executors.program_cost). The suite's fits
simulate a few ranks of the local model: small beside its runs, not counted."""

from __future__ import annotations

from iotwin.core.cost import Cost, Driver, Limits
from iotwin.executors.program_cost import program_cost
from iotwin.validation.local import Suite


def suite_runs_cost(suite: Suite, origin: str, limits: Limits) -> Cost:
    """The cost of ``suite``'s runs (read from ``origin``), refused beyond ``limits`` naming
    its ``samples`` for the time, its ``ranks`` for the memory."""
    runs = suite.samples * suite.repetitions + suite.confirm_top * suite.confirm_rounds
    driver = Driver(f"{origin}: samples", suite.samples,
                    f"{runs} runs of {suite.ranks} processes")
    return program_cost(suite.ranks, limits, runs, driver, ranks_name=f"{origin}: ranks")
