"""Refitting a campaign's model to what it has measured, each fit stored as a calibration with
the error the model made on the batch just measured (its held-out error: that batch was
predicted before it ran). A resumed campaign reuses the fit stored after the same number of
measurements (a config's first, or a repeat) instead of fitting again, so its replay predicts
exactly as the first pass did."""

from __future__ import annotations

from collections.abc import Sequence

from iotwin.config.types import Config
from iotwin.core.errors import UserError
from iotwin.core.text import printable
from iotwin.model.protocol import Model
from iotwin.store.database import Store
from iotwin.tuning.stored_runs import StoredRuns

#: what a stored calibration's held-out error is, in its details
HELDOUT = "prediction error on the real batch before this fit"


def recalibrate(model: Model, store: Store, campaign_id: int, stored: StoredRuns,
                measured: int, observed: Sequence[tuple[Config, float]],
                batch_error: float | None) -> int:
    """The id of the calibration ``model`` now uses, fitted to ``observed`` (config, median
    rate) after ``measured`` measurements (new configs and repeats), or the one stored for
    that point of the campaign."""
    found = stored.calibration_after(measured)
    if found is not None:
        calibration_id, parameters = found
        try:
            model.use(parameters)
        except ValueError as error:
            raise UserError(f"{store.path}: calibration {calibration_id}: parameters."
                            f"{printable(str(error))}") from None
        return calibration_id
    fit = model.fit(observed)
    return store.add_calibration(
        model.platform_name, fit.parameters, fit_error=fit.fit_error, heldout_error=batch_error,
        campaign_id=campaign_id, details={**fit.details, "measured": measured, "heldout": HELDOUT})
