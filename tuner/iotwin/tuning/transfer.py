"""The residuals earlier campaigns on the same platform left in the store, for a new one's prior.

A campaign's residual of a config is log(measured / simulated): how far the platform model, as
the campaign had calibrated it when the config ran, was from the machine there (what its
surrogate's residual learnt). Programs differ, and so does the level (a calibration
absorbs it), but a setting the model misjudges on a machine tends to be misjudged for the next
program too (a stripe count the model overrates, a hint it gives no cost), so each earlier
campaign's residuals, centred on their own mean, are what sim-screened learns its transferred
prior from (iotwin.search.transfer).

Only tuning campaigns (``iotwin tune``; a strategy benchmark's are another kind) that stored
the model's predictions (model-guided ones), ran on the same platform and were created before
the new one count; a store without them gives none.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from iotwin.config.types import Config
from iotwin.store.database import Evaluation, Store
from iotwin.tuning.stored_runs import is_search_run


def earlier_residuals(store: Store, campaign_id: int, platform: str
                      ) -> list[tuple[Config, float]]:
    """Each config a model-guided campaign on ``platform`` created before ``campaign_id``
    measured, with its centred residual (:func:`centred_residuals`)."""
    found: list[tuple[Config, float]] = []
    for campaign in store.campaigns(kind="tune"):
        if campaign.id < campaign_id and campaign.spec.get("platform") == platform:
            found += centred_residuals(store.evaluations(campaign.id))
    return found


def centred_residuals(rows: Sequence[Evaluation]) -> list[tuple[Config, float]]:
    """Each config one campaign's ``rows`` (oldest first) measured with a prediction: log(median
    of its search runs' rates / the model's rate for it when it first ran, as calibrated then),
    less the campaign's mean residual."""
    latest: dict[str, float] = {}  # each config's prediction so far
    measured: dict[str, tuple[Config, float, list[float]]] = {}
    for row in rows:
        if row.source == "sim":
            if row.ok and row.rate_mbs:
                latest[row.config_hash] = row.rate_mbs
        elif row.ok and row.rate_mbs and is_search_run(row) and row.config_hash in latest:
            entry = measured.setdefault(row.config_hash,
                                        (row.config, latest[row.config_hash], []))
            entry[2].append(row.rate_mbs)
    found = [(config, math.log(statistics.median(rates) / predicted))
             for config, predicted, rates in measured.values()]
    if not found:
        return []
    level = statistics.fmean(residual for _, residual in found)
    return [(config, residual - level) for config, residual in found]
