"""Why a tuned config is faster, as the platform model sees it: the default and the tuned config
of a campaign simulated side by side on its platform model and workload, each with its ceiling
(the most it could write under its placement) and the mechanism that binds it, and the best
ceiling any config of the campaign's space could reach (IOSIM.md "Ceiling and binding
mechanism"). ``iotwin tune`` prints it under its summary, and ``iotwin report`` shows it.

The model is the platform file, or the campaign's last calibration where that predicts the
summary's measured medians better: a machine whose disk writes at a third of what its file says
is explained, and its runs set against ceilings, as its own runs have shown it; a fit to a few
noisy search runs that says less about the machine than the file does not replace it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from iotwin.config.settings import settings_text
from iotwin.config.types import Config
from iotwin.config.validation import DEFAULT_CONFIG
from iotwin.model.platforms import Platform, load_platform
from iotwin.model.sim import SimResult, simulate
from iotwin.space.parameters import BoundSpace
from iotwin.store.database import Store
from iotwin.tuning.parts import program_mpi
from iotwin.tuning.spec import CampaignSpec
from iotwin.workloads.workload import kernel_workload

STRIPE_COUNT = "lustre.stripe_count"


@dataclass
class Explanation:
    """The default and tuned configs' simulations (``runs``: "default", "tuned"), the tuned
    config's settings, and the best ceiling any config of the space reaches."""

    runs: dict[str, SimResult]
    tuned_settings: str
    best_ceiling_mbs: float | None
    #: the calibrated values the simulations used, each with the platform file's: path ->
    #: (calibrated, as loaded); empty for the platform model as loaded
    calibrated: dict[str, tuple[float, float]] = field(default_factory=dict)

    def calibration_text(self) -> str:
        """How the model differs from its platform file by more than 10 % a value, for a
        summary line ("" if it does not)."""
        return ", ".join(f"{path} {value:.4g} where the file says {loaded:.4g}"
                         for path, (value, loaded) in self.calibrated.items()
                         if abs(value - loaded) > 0.1 * abs(loaded))

    def fractions(self, measured: Mapping[str, float | None]) -> dict[str, dict[str, Any]]:
        """Each measured rate as a share of its simulated ceiling and of the best ceiling."""
        out = {}
        for label, result in self.runs.items():
            rate = measured.get(label)
            out[label] = {
                "measured_mbs": rate, "ceiling_mbs": result.ceiling_mbs,
                "of_ceiling": rate / result.ceiling_mbs if rate and result.ceiling_mbs
                else None,
                "of_best_ceiling": rate / self.best_ceiling_mbs if rate and
                self.best_ceiling_mbs else None}
        return out


def most_stripes(space: BoundSpace) -> int | None:
    """The most stripes a config of the space can have (-1, every target the site allows, as
    that number); None when the space does not search the stripe count."""
    bound = space.context.max_stripe_count
    counts: list[int] = []
    for gene in space.genes:
        if STRIPE_COUNT in gene.keys:
            counts += [value for value in gene.values if isinstance(value, int) and value > 0]
            if -1 in gene.values and bound:
                counts.append(bound)
    if not counts:
        return None
    return min(max(counts), bound) if bound else max(counts)


def summary_configs(tuned: Config, yours: Config | None) -> dict[str, Config]:
    """A summary's configs by label: the default, the tuned one, and a user's own."""
    return {"default": DEFAULT_CONFIG, "tuned": tuned,
            **({"yours": yours} if yours is not None else {})}


def last_fit(store: Store, campaign_id: int) -> dict[str, float]:
    """The values of a campaign's last calibration (empty before its first)."""
    found = store.latest_calibration(campaign_id=campaign_id)
    return dict(found.parameters) if found else {}


def explain(spec: CampaignSpec, tuned: Config, space: BoundSpace | None,
            yours: Config | None = None, calibration: Mapping[str, float] | None = None,
            measured: Mapping[str, float | None] | None = None) -> Explanation | None:
    """The campaign's default and tuned configs (and ``yours``, a user's own) simulated on its
    platform model; None for a program whose workload was never captured (nothing to
    simulate). With ``calibration`` (the campaign's last fit) and ``measured`` (the summary's
    median rate by label), on whichever of the platform file and the calibration predicts
    those medians better: the fit when the machine is not what its file says, the file when a
    fit to a few noisy search runs says less about the summary's many."""
    workload = spec.workload
    if workload is None and spec.kernel is not None:
        workload = kernel_workload(spec.kernel, spec.ranks, spec.args, program_mpi(spec))
    if workload is None:
        return None
    stripes = most_stripes(space) if space is not None else None
    options = {"best_stripe_count": stripes} if stripes else None
    configs = summary_configs(tuned, yours)
    loaded = load_platform(spec.platform)

    def simulated(platform: Platform) -> dict[str, SimResult]:
        return dict(zip(configs, simulate(platform, workload, list(configs.values()),
                                          options=options), strict=True))

    runs, medians = simulated(loaded), measured or {}
    # nothing measured, nothing to judge a fit by: the file's model
    calibrated = changed_values(loaded, calibration or {}) if any(medians.values()) else {}
    if calibrated:
        fitted = simulated(loaded.with_values({path: value for path, (value, _) in
                                               calibrated.items()}))
        if _error(fitted, medians) < _error(runs, medians):
            runs = fitted
        else:
            calibrated = {}
    return Explanation(runs, settings_text(tuned), runs["tuned"].best_ceiling_mbs, calibrated)


def changed_values(platform: Platform, values: Mapping[str, float]
                   ) -> dict[str, tuple[float, float]]:
    """``values`` that differ from the platform file's: path -> (value, the file's)."""
    loaded = {path: value for path, (value, _, _) in platform.free_parameters().items()}
    return {path: (float(value), loaded[path]) for path, value in values.items()
            if path in loaded and value != loaded[path]}


def _error(runs: Mapping[str, SimResult], measured: Mapping[str, float | None]) -> float:
    """The summed absolute log error of the simulated rates against the measured medians
    (infinite when nothing can be compared: the file's model is then kept)."""
    pairs = [(predicted, rate) for label, rate in measured.items()
             if rate and label in runs and (predicted := runs[label].rate_mbs)]
    return sum(abs(math.log(p / m)) for p, m in pairs) if pairs else math.inf
