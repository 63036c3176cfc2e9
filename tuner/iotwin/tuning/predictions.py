"""The model's predictions in a campaign: each config's rate once per calibration, restored
from the store on a resume, else simulated (the missing ones of a call in one batch) and
stored as a ``sim`` row the moment it exists."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from iotwin.config.types import Config
from iotwin.model.protocol import Model
from iotwin.store.database import Store, workload_of
from iotwin.tuning.spec import CampaignSpec
from iotwin.tuning.stored_runs import StoredRuns


class Predictions:
    def __init__(self, model: Model, store: Store, campaign_id: int, spec: CampaignSpec,
                 stored: StoredRuns) -> None:
        self.model, self.store, self.campaign_id, self.spec = model, store, campaign_id, spec
        self.stored = stored
        self.calibration_id = 0  # 0: the platform model as loaded
        self._rates: dict[str, float | None] = {}
        self.simulated = 0  # configs simulated so far (not restored from the store)

    def rates(self, configs: Sequence[Config], keys: Sequence[str]) -> list[float | None]:
        """The rate of each config (``keys``: their hashes)."""
        missing = {k: c for k, c in zip(keys, configs, strict=True)
                   if k not in self._rates and not self._restore(k)}
        if missing:
            rates = self.model.predict(list(missing.values()))
            self.simulated += len(missing)
            self._rates.update(zip(missing, rates, strict=True))
            self.store.add_evaluations(self._row(config, rate) for config, rate
                                       in zip(missing.values(), rates, strict=True))
        return [self._rates[key] for key in keys]

    def known(self, key: str) -> float | None:
        """The rate predicted for a config (by hash) on the current calibration, if any."""
        return self._rates.get(key)

    def on_calibration(self, calibration_id: int) -> None:
        """Predictions from now on are the model's as refitted by ``calibration_id``."""
        self.calibration_id = calibration_id
        self._rates = {}

    def _restore(self, key: str) -> bool:
        found, rate = self.stored.prediction(self.calibration_id, key)
        if found:
            self._rates[key] = rate
        return found

    def _row(self, config: Config, rate: float | None) -> dict[str, Any]:
        ok = rate is not None and math.isfinite(rate) and rate > 0
        return dict(
            campaign_id=self.campaign_id, config=config,
            workload=workload_of(self.spec.target), ranks=self.spec.ranks,
            platform=self.model.platform_name, source="sim", status="ok" if ok else "failed",
            rate_mbs=rate if ok else None, details={"calibration": self.calibration_id})
