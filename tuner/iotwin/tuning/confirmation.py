"""Confirming a search's winner before it becomes the tuned config.

A search measures most configs once. On a noisy machine the highest single run is as often a
lucky draw as a better config (the winner's curse), so the tuned config is chosen from the
search's top candidates re-measured in interleaved rounds, the order rotated from round to
round (drift and load hit them alike), by the median of these fresh runs alone: the search
run that picked a candidate is biased upward by the picking. Every run is stored the moment
it exists; a resumed campaign counts the stored runs and only runs the missing ones.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from iotwin.config.types import Config
from iotwin.core.hashing import config_hash
from iotwin.core.progress import say
from iotwin.tuning.campaign import CampaignEvaluator
from iotwin.tuning.repetitions import interleaved_rounds, progress_line

_LABEL = "confirm"  # details label of a confirmation run


@dataclass(frozen=True)
class Confirmed:
    """A candidate after confirmation: its config and the rates of all its runs."""

    config: Config
    search_rate: float  # the rate that ranked it during the search
    rates: tuple[float, ...]  # of its confirmation runs (the search's own without them)
    candidate: int  # its number in the confirmation's progress lines (1: the search's best)

    @property
    def rate(self) -> float | None:
        return statistics.median(self.rates) if self.rates else None


def confirm_best(campaign: CampaignEvaluator, candidates: int, runs: int,
                 progress: TextIO | None = sys.stderr) -> list[Confirmed]:
    """The search's ``candidates`` best configs, each run ``runs`` more times, best median
    of those runs first. With ``candidates`` < 2 or ``runs`` < 1 nothing is re-run and the
    best single run is taken."""
    def run(config: Config, slot: int, round_index: int) -> float | None:
        repetition = search_runs(campaign, config) + round_index  # after the search's runs
        result, _ = campaign.run_and_store(config, repetition, {"label": _LABEL})
        say(progress, progress_line(f"candidate {slot + 1}", round_index, runs, result))
        return result.rate_for(campaign.spec.objective) if result.ok else None

    return confirm(campaign.measured, candidates, runs, run, _stored_confirmations(campaign))


def search_runs(campaign: CampaignEvaluator, config: Config) -> int:
    """How many runs of ``config`` the search took (its repetitions and repeats; the
    campaign's repetitions for a config it did not measure, the default): its confirmation
    runs come after them, so none repeats one of the search's (a twin's noise is seeded by
    the repetition)."""
    entry = campaign.measured.get(config_hash(config))
    return len(entry.runs) if entry is not None else campaign.spec.repetitions


#: runs one confirmation run: (config, candidate slot, round) -> its rate (None: it failed)
ConfirmationRun = Callable[[Config, int, int], float | None]


def confirm(measured: Mapping[str, Any], candidates: int, runs: int, run: ConfirmationRun,
            stored: Mapping[str, Sequence[float | None]] | None = None, *,
            default: bool = True) -> list[Confirmed]:
    """:func:`confirm_best` on any search's ``measured`` configs (config hash -> an entry with
    ``config`` and ``rate``), ``run`` running each confirmation run; ``stored``: the
    confirmation runs that exist already (not run again); ``default``: the default config
    is confirmed with them (False: it cannot run, e.g. a table without it)."""
    top = sorted((m for m in measured.values() if m.rate is not None),
                 key=lambda m: m.rate or 0.0, reverse=True)[:max(candidates, 1)]
    if candidates < 2 or runs < 1:
        return [Confirmed(m.config, m.rate or 0.0, (m.rate or 0.0,), slot)
                for slot, m in enumerate(top, 1)]
    top = with_default(top, measured) if default else top
    rates = interleaved_rounds([config_hash(m.config) for m in top], runs, stored or {},
                               lambda slot, round_index: run(top[slot].config, slot,
                                                             round_index))
    found = [Confirmed(m.config, m.rate or 0.0, tuple(r for r in done if r), slot)
             for slot, (m, done) in enumerate(zip(top, rates, strict=True), 1)]
    return sorted(found, key=lambda c: c.rate or 0.0, reverse=True)


@dataclass(frozen=True)
class _Default:
    config: Config
    rate: float | None


def with_default(top: list[Any], measured: Mapping[str, Any]) -> list[Any]:
    """The candidates and the default config (no settings), so that the tuned config is
    never one measured worse than the default in the same rounds."""
    if any(config_hash(m.config) == config_hash({}) for m in top):
        return top
    default = measured.get(config_hash({}))
    return [*top, _Default({}, default.rate if default else None)]


def _stored_confirmations(campaign: CampaignEvaluator) -> dict[str, list[float | None]]:
    """Config hash -> the rate of each stored confirmation run (None: it failed)."""
    stored: dict[str, list[float | None]] = {}
    for row in campaign.store.evaluations(
            campaign.id, source=campaign.executor.source):
        if row.details.get("label") == _LABEL:
            rate = row.run_result().rate_for(campaign.spec.objective) if row.ok else None
            stored.setdefault(row.config_hash, []).append(rate or None)
    return stored
