"""The keys of the store's ``details`` columns (evaluations and calibrations), declared once.

A resume finds what was done by these keys (a confirmation run by its ``label``, a prediction
by its ``calibration``, a calibration by ``measured``), so a mistyped key is an error, when
it is written (:func:`checked`) and when it is read (:class:`StoredDetails`), rather than a
resume that silently runs everything again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict


class Details(TypedDict, total=False):
    # -- an evaluation's ------------------------------------------------------------------------
    label: str  # a run outside the search: confirm, default, tuned, capture
    calibration: int  # a prediction: the calibration it was made with (0: the platform as loaded)
    generation: int  # the search generation that asked for it
    measured_index: int  # a search run: how many configs were measured before it
    sample: int  # validate local, landscape: the sampled config's index
    load: float  # landscape: the machine's 1-min load average when the run started
    confirm_round: int  # validate local: the confirmation round of a run
    round: int  # tune: the round of a default or tuned summary run (its pair's)
    fold: int  # validate local: the cross-validation fold of a prediction or calibration
    search: str  # experiment: the entry whose search measured it
    cell: str  # experiment: the config entry (cell) it measures
    x: Any  # experiment: the swept value (or the seed) of the cell
    campaign: int  # experiment: the child tuning campaign of the cell
    tuning: dict[str, Any]  # experiment: how a tuned cell was found
    workload_label: str  # experiment: the workload's name
    summary: bool  # experiment: a run of a child campaign's best config, not a search run
    # -- a calibration's ------------------------------------------------------------------------
    measured: int  # measurements (configs, repeats) when the campaign refitted (resume key)
    heldout: str  # what its held-out error means
    observations: int  # runs it was fitted to
    evaluations: int  # optimiser steps
    scan_evaluations: int  # of which the coarse start before the gradient fit
    loss: str
    prior_sigma: float | None
    parameters: Any  # the parameters refitted (or why none)
    folds: int
    held: int  # validate local: the runs held out of the fold
    heldout_p90: float  # the 90th percentile of the k-fold held-out errors
    band_error: float  # calibrate --measurements: the band a what-if answer carries (p90 of all
    #                    held-out errors, k-fold and each scale held out)
    scales: list[int]  # calibrate --measurements: the smallest and largest scale fitted
    measurements: str  # calibrate --measurements: the published table it was fitted to
    rate: str  # calibrate --measurements: the rows' rate used, max or mean
    cases: int  # calibrate --measurements: the published cases fitted
    scale_out: dict[str, float]  # calibrate --measurements: each held-out scale's median error


DETAIL_KEYS = frozenset(Details.__annotations__)


class UndeclaredDetailError(KeyError):
    """A ``details`` key that :class:`Details` does not declare (a typo, or a new key to add)."""


def check_key(key: str) -> None:
    if key not in DETAIL_KEYS:
        raise UndeclaredDetailError(f"details key {key!r} is not declared in "
                                    f"iotwin.store.details.Details")


def checked(details: Mapping[str, Any] | None) -> dict[str, Any]:
    """``details`` as stored; UndeclaredDetailError for a key that is not declared."""
    for key in details or {}:
        check_key(key)
    return dict(details or {})


class StoredDetails(dict[str, Any]):
    """A row's details: reading a key that is not declared is an error, not a silent miss."""

    def __getitem__(self, key: str) -> Any:
        check_key(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        check_key(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        check_key(str(key))
        return super().__contains__(key)
