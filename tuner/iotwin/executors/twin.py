"""The twin executor: a platform's hidden "truth" model stands in for the machine.

``Platform.truth(seed)`` perturbs the model's free parameters and adds run-to-run noise, so
a strategy tuned against the twin meets what it would meet on a machine: a model that is
wrong by an unknown amount and measurements that scatter. It implements the same interface
as the local executor, so strategies cannot tell which one runs (source = twin).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from iotwin.config.settings import flat_settings
from iotwin.config.types import Config
from iotwin.core.hashing import config_hash
from iotwin.core.run_records import RunResult, Source, Target
from iotwin.model.platforms import Platform, load_platform
from iotwin.model.sim import SimResult, simulate, with_noise
from iotwin.workloads.types import Workload
from iotwin.workloads.workload import kernel_workload


class TwinExecutor:
    source: Source = "twin"

    def __init__(self, platform: str | Platform, *, truth_seed: int = 0,
                 truth: Platform | None = None,
                 setting_factors: Mapping[str, float] | None = None) -> None:
        """The twin of ``platform``'s truth ``truth_seed``, or of ``truth`` when given (a truth
        whose parameters a test or a study has set itself). ``setting_factors``: a truth that
        differs from the model in structure, not only in parameters: each config's rate is
        multiplied by the factor of every setting it holds ("mpiio.cb_nodes=4": 0.8), an
        effect no parameter of the model can produce."""
        model = load_platform(platform) if isinstance(platform, str) else platform
        self.truth = truth if truth is not None else model.truth(truth_seed)
        self.setting_factors = dict(setting_factors or {})
        self._workloads: dict[Target, Workload] = {}
        self._answers: dict[tuple[Target, str], SimResult] = {}

    def run_once(self, target: Target, config: Config, *, seed: int = 0) -> RunResult:
        if target.kernel is None:
            return RunResult("failed", error="the twin runs kernels only: a program has no "
                                             "workload to simulate")
        try:
            workload = self.workload(target)
        except Exception as error:  # a bad kernel argument is a failed run, not a crash
            return RunResult("failed", error=f"cannot describe {target.label}: {error}")
        result = self._noise_free(target, workload, config)
        noise_seed = _noise_seed(self.truth.name, target, config, seed)
        return _as_run(with_noise(self._structural(result, config), self.truth.noise,
                                  noise_seed))

    def _noise_free(self, target: Target, workload: Mapping[str, Any],
                    config: Config) -> SimResult:
        """The truth's noise-free answer to ``config``, simulated once: repetitions of a run
        differ only by their noise, as iosim answers a config alike bit for bit."""
        key = (target, config_hash(config))
        if key not in self._answers:
            [self._answers[key]] = self.noise_free_results(workload, [config], jobs=1)
        return replace(self._answers[key])  # a copy: with_noise sets its fields

    def true_rates(self, target: Target, configs: Sequence[Config], *,
                   jobs: int = 2) -> list[float | None]:
        """Noise-free rates of the truth: what an infinitely repeated measurement converges to.

        The noise is switched off on the platform itself: ``simulate`` adds a truth platform's
        noise whatever the seed, and the maximum of thousands of noisy rates overstates the
        optimum by several sigma."""
        results = self.noise_free_results(self.workload(target), configs, jobs=jobs)
        return [self._structural(r, c).rate_mbs if r.ok else None
                for r, c in zip(results, configs, strict=True)]

    def _structural(self, result: SimResult, config: Config) -> SimResult:
        if not (self.setting_factors and result.ok and result.rate_mbs and result.time_s):
            return result

        factor = math.prod(self.setting_factors.get(s, 1.0) for s in flat_settings(config))
        return replace(result, rate_mbs=result.rate_mbs * factor, time_s=result.time_s / factor)

    def noise_free_results(self, workload: Mapping[str, Any],
                           configs: Sequence[Config], *, jobs: int
                           ) -> list[SimResult]:
        """The truth's simulation of each config, its straggler OSTs applied, without noise."""
        results = simulate(replace(self.truth, noise=0.0), dict(workload), configs, jobs=jobs)
        return [with_stragglers(r, self.truth.data) for r in results]

    def workload(self, target: Target) -> Workload:
        if target not in self._workloads:
            assert target.kernel is not None
            self._workloads[target] = kernel_workload(target.kernel, target.ranks, target.args)
        return self._workloads[target]


def with_stragglers(result: SimResult, truth: Mapping[str, Any]) -> SimResult:
    """``result`` with its write phase stretched to what the truth's slowest straggler OST
    needs for its share of the bytes: its slowdown times the time a model OST is busy with
    them (bytes at ``target_mbs``, plus its share of the RPCs at ``rpc_overhead_s``). That busy
    time leaves out degradation and each two-phase round's wait for its slowest OST, so the
    stretch is a lower bound; a phase with enough slack on the straggler is not stretched."""
    stragglers = truth.get("twin", {}).get("stragglers", [])
    per_target = result.breakdown.get("bytes_per_target", [])
    total = sum(per_target)
    if not (result.ok and stragglers and total and result.time_s):
        return result
    fs = truth["filesystem"]
    rpc_s_per_byte = result.breakdown.get("rpcs", 0) * fs["rpc_overhead_s"] / total
    needed = max(factor * per_target[int(target)] * (1 / (fs["target_mbs"] * 1e6)
                                                      + rpc_s_per_byte)
                 for target, factor in stragglers)
    extra = needed - result.phases.get("write", 0.0)
    if extra <= 0:
        return result
    time_s = result.time_s + extra
    return replace(result, time_s=time_s, phases={**result.phases,
                                                  "write": result.phases["write"] + extra},
                   rate_mbs=result.rate_mbs * result.time_s / time_s if result.rate_mbs else None)


def _noise_seed(truth: str, target: Target, config: Config, seed: int) -> int:
    """The run's noise stream: its seed mixed with the machine and what runs, so that callers
    numbering repetitions 0, 1, 2 for every config (``iotwin run``, calibration designs) do not
    give every config, on every truth, the same noise factors, which would cancel out of any
    comparison."""
    what = f"{truth} {target.label} {' '.join(target.args)} {config_hash(config)}"
    return (seed * 1_000_003 + int(hashlib.sha256(what.encode()).hexdigest()[:8], 16)) % 2**31


def _as_run(result: SimResult) -> RunResult:
    if not result.ok:
        return RunResult("failed", error=result.error or "the simulation failed")
    return RunResult("ok", total_s=result.time_s, rate_mbs=result.rate_mbs,
                     phases=dict(result.phases))
