"""How far a platform model's predictions are known to be off, for what-if answers.

The paper validation (``validation/paper/results.json``) measured each fitted platform model on
published rows it was not fitted to: leave-one-out (each row held out) and, where a platform
has rows at two scales, leave-one-scale-out (a whole scale held out). A prediction carries the
90th percentile of those held-out errors as a band, log-symmetric (a rate r is shown as
r / f .. r x f with f = 1 + that error), and the core counts the model was checked at. Outside
them the band is the error *at the validated scales*, and the answer says so and how far out it
lies; a platform no published row validates gets no band and a plain warning.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from iotwin.core import paths
from iotwin.model.family import family_band, is_family_model
from iotwin.model.platforms import Platform
from iotwin.store.database import Calibration
from iotwin.validation.paper.results import PaperValidation

#: the held-out errors a band is made of (paper validation's row fields)
HELD_OUT = ("loo", "scale_out")
BAND_PERCENTILE = 90


@dataclass(frozen=True)
class ValidatedError:
    platform: str
    rows: int
    band_error: float  # the 90th percentile of |held-out predicted / published - 1|
    loo_median_error: float
    scale_out_error: float | None  # 90th percentile over the leave-one-scale-out rows
    cores_checked: tuple[int, int]
    source: str = "the paper validation"  # where the held-out errors were measured

    @property
    def factor(self) -> float:
        return 1 + self.band_error

    def band(self, rate: float | None) -> tuple[float, float] | None:
        return (rate / self.factor, rate * self.factor) if rate else None

    def scale_warning(self, ranks: int) -> str:
        """Empty inside the checked core counts; else how far outside they lie."""
        low, high = self.cores_checked
        if low <= ranks <= high:
            return ""
        side, ratio = (("above", ranks / high) if ranks > high else ("below", low / ranks))
        checked = f"{low}" if low == high else f"{low}-{high}"
        return (f"{ranks} ranks is {ratio:.0f}x {side} the {checked} cores {self.platform} "
                f"was checked at by {self.source}: the band is its error there, not at this "
                f"scale")


def results_path() -> Path:
    return paths.repo_root() / "validation" / "paper" / "results.json"


@cache
def validated_errors(path: Path | None = None) -> Mapping[str, ValidatedError]:
    """Per platform model: its held-out errors from the paper validation's run of record."""
    source = path or results_path()
    if not source.exists():
        return {}

    rows = PaperValidation.from_json(json.loads(source.read_text())).rows
    found = {}
    for model in sorted({row.model for row in rows}):
        mine = [row for row in rows if row.model == model]
        errors = {which: [abs(e) for e in (row.error(which) for row in mine) if e is not None]
                  for which in HELD_OUT}
        if not errors["loo"]:
            continue
        cores = [row.cores for row in mine]
        found[model] = ValidatedError(
            model, len(mine),
            float(np.percentile(errors["loo"] + errors["scale_out"], BAND_PERCENTILE)),
            float(np.median(errors["loo"])),
            float(np.percentile(errors["scale_out"], BAND_PERCENTILE))
            if errors["scale_out"] else None,
            (min(cores), max(cores)))
    return found


def unvalidated_warning(platform: str) -> str:
    return (f"no published measurement validates the {platform} model: no error band; "
            f"treat its rates as the mechanisms' estimate, not a measured accuracy")


def calibrated_errors(calibrations: Sequence[Calibration]) -> dict[str, ValidatedError]:
    """Per platform, the newest calibration to a published table (``iotwin calibrate
    --measurements``) as the error its answers carry: its held-out errors (k-fold and each
    scale held out), at the scales it was fitted to."""
    found = {}
    for calibration in sorted(calibrations, key=lambda c: c.created):
        details = calibration.details
        if "measurements" not in details or "band_error" not in details:
            continue
        low, high = details["scales"]
        scale_out = list(details.get("scale_out", {}).values())
        found[calibration.platform] = ValidatedError(
            calibration.platform, int(details["cases"]), float(details["band_error"]),
            float(calibration.heldout_error or 0.0),
            float(np.percentile(scale_out, BAND_PERCENTILE)) if scale_out else None,
            (int(low), int(high)),
            f"calibration {calibration.id} to {Path(details['measurements']).name}")
    return found


def family_error(platform: Platform) -> ValidatedError | None:
    """A model built from a description on the family's constants (``platform new --io500``)
    carries the family calibration's leave-one-system-out error: what a machine nobody
    measured should expect."""
    band = family_band()
    if band is None or not is_family_model(platform):
        return None
    factor, ranks = band
    return ValidatedError(platform.name, 0, factor - 1, factor - 1, None, ranks,
                          "the family calibration, each system held out")
