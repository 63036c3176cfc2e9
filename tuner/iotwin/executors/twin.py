"""The twin executor: a platform's hidden "truth" model stands in for the machine.

``Platform.truth(seed)`` perturbs the model's free parameters and adds run-to-run noise, so
a strategy tuned against the twin meets what it would meet on a machine: a model that is
wrong by an unknown amount and measurements that scatter. It implements the same interface
as the local executor, so strategies cannot tell which one runs (source = twin).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from iotwin.executors.base import RunResult, Target
from iotwin.platforms import Platform, load_platform
from iotwin.sim import SimResult, simulate
from iotwin.workload import kernel_workload


class TwinExecutor:
    source = "twin"

    def __init__(self, platform: str | Platform, *, truth_seed: int = 0) -> None:
        model = load_platform(platform) if isinstance(platform, str) else platform
        self.truth = model.truth(truth_seed)
        self._workloads: dict[Target, dict[str, Any]] = {}

    def run_once(self, target: Target, config: Mapping[str, Any], *, seed: int = 0) -> RunResult:
        if target.kernel is None:
            return RunResult("failed", error="the twin runs kernels only: a program has no "
                                             "workload to simulate")
        try:
            workload = self.workload(target)
        except Exception as error:  # a bad kernel argument is a failed run, not a crash
            return RunResult("failed", error=f"cannot describe {target.label}: {error}")
        return _as_run(simulate(self.truth, workload, [config], noise_seed=seed, jobs=1)[0])

    def true_rates(self, target: Target, configs: Sequence[Mapping[str, Any]], *,
                   jobs: int = 2) -> list[float | None]:
        """Noise-free rates of the truth: what an infinitely repeated measurement converges to.

        The noise is switched off on the platform itself: ``simulate`` adds a truth platform's
        noise whatever the seed, and the maximum of thousands of noisy rates overstates the
        optimum by several sigma."""
        results = simulate(replace(self.truth, noise=0.0), self.workload(target), configs,
                           jobs=jobs)
        return [r.rate_mbs if r.ok else None for r in results]

    def workload(self, target: Target) -> dict[str, Any]:
        if target not in self._workloads:
            assert target.kernel is not None
            self._workloads[target] = kernel_workload(target.kernel, target.ranks, target.args)
        return self._workloads[target]


def _as_run(result: SimResult) -> RunResult:
    if not result.ok:
        return RunResult("failed", error=result.error or "the simulation failed")
    return RunResult("ok", total_s=result.time_s, rate_mbs=result.rate_mbs,
                     phases=dict(result.phases))
