"""Confirming a search's winner before it becomes the tuned config.

A search measures most configs once. On a noisy machine the highest single run is as often a
lucky draw as a better config (the winner's curse), so the tuned config is chosen from the
search's top candidates re-measured in interleaved rounds (drift hits them alike), by the
median of all their runs. Every run is stored the moment it exists; a resumed campaign counts
the stored runs and only runs the missing ones.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass
from typing import Any, TextIO

from iotwin.campaign import Campaign
from iotwin.repetitions import progress_line
from iotwin.store import config_hash


@dataclass(frozen=True)
class Confirmed:
    """A candidate after confirmation: its config and the rates of all its runs."""

    config: dict[str, Any]
    search_rate: float  # the rate that ranked it during the search
    rates: tuple[float, ...]

    @property
    def rate(self) -> float | None:
        return statistics.median(self.rates) if self.rates else None


def confirm_best(campaign: Campaign, candidates: int, runs: int,
                 progress: TextIO | None = sys.stderr) -> list[Confirmed]:
    """The search's ``candidates`` best configs, each measured ``runs`` times in all, best
    median first. With ``candidates`` < 2 or ``runs`` < 2 nothing is re-run."""
    top = sorted((m for m in campaign.measured.values() if m.rate is not None),
                 key=lambda m: m.rate or 0.0, reverse=True)[:max(candidates, 1)]
    if candidates >= 2 and runs >= 2:
        for round_index in range(runs):
            for rank, entry in enumerate(top, 1):
                _run_missing(campaign, entry.config, round_index, f"candidate {rank}", runs,
                             progress)
    found = [Confirmed(entry.config, entry.rate or 0.0, _stored_rates(campaign, entry.config))
             for entry in top]
    return sorted(found, key=lambda c: c.rate or 0.0, reverse=True)


def _run_missing(campaign: Campaign, config: dict[str, Any], round_index: int, label: str,
                 runs: int, progress: TextIO | None) -> None:
    """One more run of ``config`` if it has fewer than ``round_index + 1`` stored."""
    done = len(_stored_runs(campaign, config))
    if done > round_index:
        return
    result = campaign.run_and_store(config, done, {"label": "confirm"})
    if progress is not None:
        print(progress_line(label, round_index, runs, result), file=progress, flush=True)


def _stored_runs(campaign: Campaign, config: dict[str, Any]) -> list[Any]:
    key = config_hash(config)
    return [row for row in campaign.store.evaluations(
                campaign.id, source=campaign.executor.source)  # type: ignore[arg-type]
            if row.config_hash == key]


def _stored_rates(campaign: Campaign, config: dict[str, Any]) -> tuple[float, ...]:
    return tuple(row.rate_mbs for row in _stored_runs(campaign, config)
                 if row.ok and row.rate_mbs)
