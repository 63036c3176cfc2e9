"""Constants learned across machines: the family calibration's values in the sheet defaults.

A description (an IO500 record, a spec sheet) gives a machine's counts and links but not its
media rates, request costs, client limits or lock costs. ``iotwin calibrate --family`` fits
those over many machines at once (``iotwin.studies.family_fit``) and writes them, with their
leave-one-system-out error, to data/family-io500.yaml; every model built from a description
starts from them (``family_defaults``), and a what-if on such a model takes that error as its
band (``family_band``).
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import yaml

from iotwin.core import paths
from iotwin.core.dotted import dotted_get
from iotwin.core.errors import UserError
from iotwin.core.stats import spearman
from iotwin.core.yaml_files import read_yaml
from iotwin.model.calibration import F_SCALE, ParameterScale, coarse_start, log_ratios, soft_l1
from iotwin.model.platform_sheet import sheet_defaults
from iotwin.model.platforms import Platform
from iotwin.model.platforms import leaves as platform_leaves
from iotwin.model.sim import simulate

#: the fitted file shipped with the package; absent until a family calibration is written
FAMILY_FILE = "family-io500.yaml"

#: the constants a family calibration fits: paths into the sheet defaults
FAMILY_CONSTANTS = (
    "media.hdd.drive_mbs", "media.hdd.request_s", "media.nvme.drive_mbs",
    "media.nvme.request_s", "lustre_client.process_write_mbs", "filesystem.lock_conflict_s",
    "filesystem.degradation", "gpfs.token_ops_per_s",
)


def leaf_at(tree: Mapping[str, Any], path: str) -> dict[str, Any]:
    node = dotted_get(tree, path)
    if not isinstance(node, dict):
        raise UserError(f"sheet defaults: no constant {path}")
    return node


def constant_bounds(defaults: Mapping[str, Any]) -> dict[str, tuple[float, float, float]]:
    """(prior, lower, upper) of each family constant in ``defaults``."""
    out = {}
    for path in FAMILY_CONSTANTS:
        leaf = leaf_at(defaults, path)
        out[path] = (float(leaf["value"]), float(leaf["bounds"][0]), float(leaf["bounds"][1]))
    return out


def with_constants(defaults: Mapping[str, Any], values: Mapping[str, float],
                   why: str) -> dict[str, Any]:
    """``defaults`` with each constant of ``values`` set, said to be fitted (``why``), its
    earlier value kept as its prior."""
    made = copy.deepcopy(dict(defaults))
    for path, value in values.items():
        leaf = leaf_at(made, path)
        prior = leaf["value"]
        for kind in ("source", "assumption", "fitted"):
            leaf.pop(kind, None)
        low, high = leaf.get("bounds", (value, value))
        leaf.update(value=min(max(float(value), low), high), fitted=why, prior=prior)
    return made


def load_family() -> dict[str, Any] | None:
    """The shipped family calibration (its constants, errors and cases), or None."""
    path = paths.data_dir() / FAMILY_FILE
    if not path.exists():
        return None
    return read_yaml(path, "family calibration")


def family_defaults() -> dict[str, Any]:
    """The sheet defaults a model from a description starts from: the family's constants
    where a family calibration is shipped."""
    family = load_family()
    base = sheet_defaults()
    if family is None:
        return base
    return with_constants(base, family["constants"], family["fitted"])


def family_band() -> tuple[float, tuple[int, int]] | None:
    """The family's leave-one-system-out error as a factor (the 90th percentile of predicted /
    measured or its inverse over every case held out) and the ranks its cases span: the band
    of a what-if on a model built from a description."""
    family = load_family()
    if family is None:
        return None
    low, high = family["ranks"]
    return float(family["leave_one_system_out"]["all"]["p90_factor"]), (int(low), int(high))


# -- fitting across machines -----------------------------------------------------------------

@dataclass(frozen=True)
class FamilyCase:
    """One measured rate of one machine: how to build its model from sheet defaults, the
    workload measured, and the rate."""

    system: str
    label: str
    platform_of: Callable[[Mapping[str, Any]], Platform]
    workload: Mapping[str, Any]
    measured_mbs: float


#: simulated rates by what was simulated: a fit moves one constant at a time (a scan, a
#: Jacobian's columns) and most constants reach only some machines (an HDD's rate no NVMe
#: system), so most of an evaluation's models are ones simulated before; iosim answers the
#: same input alike
_RATES: dict[str, float | None] = {}
_MOST_RATES = 200_000


def _simulated_rate(platform: Platform, workload: Mapping[str, Any]) -> float | None:
    key = hashlib.sha256(json.dumps([platform.data, workload], sort_keys=True,
                                    default=str).encode()).hexdigest()
    if key not in _RATES:
        [result] = simulate(platform, dict(workload), [{}], jobs=1)
        if len(_RATES) >= _MOST_RATES:
            _RATES.clear()
        _RATES[key] = result.rate_mbs if result.ok and result.rate_mbs else None
    return _RATES[key]


def predict_cases(cases: Sequence[FamilyCase], defaults: Mapping[str, Any],
                  jobs: int = 2) -> list[float | None]:
    """Each case's simulated rate on its model built from ``defaults``."""
    def one(case: FamilyCase) -> float | None:
        return _simulated_rate(case.platform_of(defaults), case.workload)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, cases))


@dataclass(frozen=True)
class FamilyFit:
    constants: dict[str, float]
    predicted: list[float | None]
    evaluations: int


def fit_family(cases: Sequence[FamilyCase], base: Mapping[str, Any], *,
               start: Mapping[str, float] | None = None, max_evaluations: int = 40,
               scan_points: int = 0, jobs: int = 2,
               progress: Callable[[str], None] | None = None) -> FamilyFit:
    """The family constants that best predict ``cases`` (soft-L1 on log rate, within each
    constant's bounds, as a platform calibration fits: ``iotwin.model.calibration``)."""
    bounds = constant_bounds(base)
    scale = ParameterScale(bounds, start)
    measured = [c.measured_mbs for c in cases]
    count = [0]

    def residuals(x: np.ndarray) -> np.ndarray:
        count[0] += 1
        rates = predict_cases(cases, with_constants(base, scale.values(x), "trial"), jobs)
        errors = log_ratios(rates, measured)
        if progress:
            progress(f"evaluation {count[0]}: median factor "
                     f"{math.exp(float(np.median(np.abs(errors)))):.2f}x")
        return errors

    begin = scale.start
    if scan_points > 1:
        begin, _ = coarse_start(lambda x: soft_l1(residuals(x)), scale.start, scale.lower,
                                scale.upper, scan_points)
    from scipy.optimize import least_squares  # scipy.optimize takes ~2 s to load: only when fitting

    solution = least_squares(residuals, begin, bounds=(scale.lower, scale.upper),
                             loss="soft_l1", f_scale=F_SCALE, diff_step=0.05,
                             max_nfev=max_evaluations)
    constants = scale.values(solution.x)
    predicted = predict_cases(cases, with_constants(base, constants, "fit"), jobs)
    return FamilyFit(constants, predicted, count[0])


def leave_one_system_out(cases: Sequence[FamilyCase], base: Mapping[str, Any],
                         fitted: Mapping[str, float], *, max_evaluations: int = 12,
                         jobs: int = 2, progress: Callable[[str], None] | None = None
                         ) -> list[float | None]:
    """Each case predicted by constants fitted without its system (every submission of the
    same system held out together), each refit starting from the all-systems fit."""
    predicted: list[float | None] = [None] * len(cases)
    systems = sorted({c.system for c in cases})
    for k, system in enumerate(systems):
        kept = [c for c in cases if c.system != system]
        held = [i for i, c in enumerate(cases) if c.system == system]
        if progress:
            progress(f"leave-one-system-out {k + 1}/{len(systems)}: {system}")
        refit = fit_family(kept, base, start=fitted, max_evaluations=max_evaluations, jobs=jobs)
        rates = predict_cases([cases[i] for i in held],
                              with_constants(base, refit.constants, "refit"), jobs)
        for i, rate in zip(held, rates, strict=True):
            predicted[i] = rate
    return predicted


def accuracy(predicted: Sequence[float | None], measured: Sequence[float]) -> dict[str, float]:
    """Within 2x, the median factor off and the rank correlation across cases."""
    ratios = np.exp(np.abs(log_ratios(predicted, measured)))
    pairs = [(p, m) for p, m in zip(predicted, measured, strict=True) if p]
    rho = spearman([p for p, _ in pairs], [m for _, m in pairs]) if len(pairs) > 2 else math.nan
    return {"cases": len(measured), "within_2x": round(float(np.mean(ratios <= 2.0)), 4),
            "median_factor": round(float(np.median(ratios)), 4),
            "p90_factor": round(float(np.percentile(ratios, 90)), 4),
            "spearman": round(float(rho), 4)}


def is_family_model(platform: Platform) -> bool:
    """Whether the model was built on the family's constants (a model from a description)."""
    return any(str(leaf.get("fitted", "")).startswith("family calibration")
               for _, leaf in platform_leaves(platform.tree))


def render_family(document: Mapping[str, Any]) -> str:
    header = ("# Constants learned across machines (`iotwin calibrate --family`): the values that\n"
              "# models built from descriptions start from, and how well they predict each\n"
              "# system held out (leave_one_system_out). Written by the command; not by hand.\n")
    return header + yaml.safe_dump(dict(document), sort_keys=False, width=100)


def family_summary(document: Mapping[str, Any]) -> str:
    """The fit in a few lines: constants prior -> fitted, accuracy before, fitted and held
    out, per phase."""
    lines = [document["fitted"]]
    for path, value in document["constants"].items():
        lines.append(f"  {path:36s} {document['priors'][path]:12.4g} -> {value:12.4g}")
    lines.append(f"{'':22s} {'within 2x':>10s} {'median x':>9s} {'Spearman':>9s}")
    for name in ("before", "fitted_all", "leave_one_system_out"):
        for phase, acc in document[name].items():
            lines.append(f"  {name:20s} {phase:10s} {100 * acc['within_2x']:5.0f} % "
                         f"{acc['median_factor']:8.2f}x {acc['spearman']:8.2f}")
    return "\n".join(lines)
