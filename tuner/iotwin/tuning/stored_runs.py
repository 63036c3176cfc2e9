"""What the store already holds of a campaign, found again when it resumes.

A strategy is deterministic given its seed and the rates it is told, so a resumed campaign
replays it from the start. Whatever the replay asks for that the campaign had before it was
killed is answered from here, not run or simulated again: a config's search repetitions by
its canonical hash (a config whose repetitions were cut short gets only the missing ones),
a prediction by the calibration it was made on and the config's hash, a calibration by the
number of measurements it was fitted after.
"""

from __future__ import annotations

from collections.abc import Sequence

from iotwin.core.run_records import Source
from iotwin.store.database import Evaluation, Store


class StoredRuns:
    def __init__(self, store: Store, campaign_id: int, source: Source) -> None:
        self.store, self.campaign_id = store, campaign_id
        self._repetitions = _by_hash([row for row in store.evaluations(campaign_id, source=source)
                                      if is_search_run(row)])
        self._predictions = {(row.details.get("calibration", 0), row.config_hash): row.rate_mbs
                             for row in store.evaluations(campaign_id, source="sim")}

    def repetitions(self, config_hash: str) -> list[Evaluation]:
        """The stored search repetitions of a config, in the order they ran."""
        return self._repetitions.get(config_hash, [])

    def prediction(self, calibration_id: int, config_hash: str) -> tuple[bool, float | None]:
        """(whether it is stored, the predicted rate) of a config on a calibration."""
        key = (calibration_id, config_hash)
        return key in self._predictions, self._predictions.get(key)

    def calibration_after(self, measured: int) -> tuple[int, dict[str, float]] | None:
        """(id, parameters) of the calibration fitted after ``measured`` measurements, if
        stored."""
        for calibration in self.store.calibrations(campaign_id=self.campaign_id):
            if calibration.details.get("measured") == measured:
                return calibration.id, calibration.parameters
        return None


def is_search_run(row: Evaluation) -> bool:
    """A repetition that counts for a config's search rate: one the search ran; not the
    capture run of the default (capture's own work at each close, its collectives and
    records, slows a program of many small file sessions by up to 1.7x: no measure of the
    default's rate), a confirmation or a summary."""
    return "measured_index" in row.details


def _by_hash(rows: Sequence[Evaluation]) -> dict[str, list[Evaluation]]:
    grouped: dict[str, list[Evaluation]] = {}
    for row in rows:
        grouped.setdefault(row.config_hash, []).append(row)
    return grouped
