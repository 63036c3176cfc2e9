"""Confirming a search's winner before it becomes the tuned config.

A search measures most configs once. On a noisy machine the highest single run is as often a
lucky draw as a better config (the winner's curse), so the tuned config is chosen from the
search's top candidates re-measured in interleaved rounds, the order rotated from round to
round (drift and load hit them alike), by the median of these fresh runs alone: the search
run that picked a candidate is biased upward by the picking. Every run is stored the moment
it exists; a resumed campaign counts the stored runs and only runs the missing ones.

Where the first rounds cannot tell the best from the others, the candidates race (the racing
of algorithm configuration: Birattari et al., "A Racing Algorithm for Configuring
Metaheuristics", GECCO 2002, there with Friedman's test):

    confirm(candidates, runs, most_runs):
        every candidate runs `runs` rounds
        for round = runs+1 .. most_runs:
            leader <- the racing candidate of the best median
            a candidate leaves the race when its runs lie below the leader's
                (Mann-Whitney, one-sided, 5%: at three runs each, all three below)
            stop when one is left, else one more round of those still racing
        the tuned config: the best median among those still racing at the end

A config whose runs spread widely (a bimodal default, say) thus cannot win on three lucky
runs against a steady one: both race on until their runs tell them apart or `most_runs` is
reached. A clear winner costs no run more than before.
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
from iotwin.core.stats import below_p
from iotwin.tuning.campaign import CampaignEvaluator
from iotwin.tuning.repetitions import interleaved_rounds, progress_line, rotation

_LABEL = "confirm"  # details label of a confirmation run


@dataclass(frozen=True)
class Confirmed:
    """A candidate after confirmation: its config and the rates of all its runs."""

    config: Config
    search_rate: float  # the rate that ranked it during the search
    rates: tuple[float, ...]  # of its confirmation runs (the search's own without them)
    candidate: int  # its number in the confirmation's progress lines (1: the search's best)
    raced_out: bool = False  # it left the race: its runs lay below the leader's

    @property
    def rate(self) -> float | None:
        return statistics.median(self.rates) if self.rates else None


def confirm_best(campaign: CampaignEvaluator, candidates: int, runs: int,
                 progress: TextIO | None = sys.stderr, most_runs: int = 0) -> list[Confirmed]:
    """The search's ``candidates`` best configs, each run ``runs`` more times (up to
    ``most_runs`` while they race), the tuned config first. With ``candidates`` < 2 or
    ``runs`` < 1 nothing is re-run and the best single run is taken."""
    def run(config: Config, slot: int, round_index: int) -> float | None:
        repetition = search_runs(campaign, config) + round_index  # after the search's runs
        result, _ = campaign.run_and_store(config, repetition, {"label": _LABEL})
        say(progress, progress_line(f"candidate {slot + 1}", round_index,
                                    max(runs, most_runs), result))
        return result.rate_for(campaign.spec.objective) if result.ok else None

    return confirm(campaign.measured, candidates, runs, run, _stored_confirmations(campaign),
                   most_runs=most_runs)


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
            default: bool = True, most_runs: int = 0) -> list[Confirmed]:
    """:func:`confirm_best` on any search's ``measured`` configs (config hash -> an entry with
    ``config`` and ``rate``), ``run`` running each confirmation run; ``stored``: the
    confirmation runs that exist already (not run again); ``default``: the default config
    is confirmed with them (False: it cannot run, e.g. a table without it); ``most_runs``:
    the race's last round (the module's docstring; at most ``runs``: no race)."""
    top = sorted((m for m in measured.values() if m.rate is not None),
                 key=lambda m: m.rate or 0.0, reverse=True)[:max(candidates, 1)]
    if candidates < 2 or runs < 1:
        return [Confirmed(m.config, m.rate or 0.0, (m.rate or 0.0,), slot)
                for slot, m in enumerate(top, 1)]
    top = with_default(top, measured) if default else top
    rates = interleaved_rounds([config_hash(m.config) for m in top], runs, stored or {},
                               lambda slot, round_index: run(top[slot].config, slot,
                                                             round_index))
    racing = _race(rates, runs, most_runs,
                   lambda slot, round_index: run(top[slot].config, slot, round_index))
    found = [Confirmed(m.config, m.rate or 0.0, tuple(r for r in done if r), slot,
                       raced_out=slot - 1 not in racing)
             for slot, (m, done) in enumerate(zip(top, rates, strict=True), 1)]
    return sorted(found, key=lambda c: (not c.raced_out, c.rate or 0.0), reverse=True)


#: the race's test: a candidate leaves when its runs lie below the leader's at this level
RACE_LEVEL = 0.05


def _race(rates: list[list[float | None]], runs: int, most_runs: int,
          run: Callable[[int, int], float | None]) -> list[int]:
    """Rounds ``runs`` + 1 .. ``most_runs`` of the candidates still racing, each candidate's
    runs appended to ``rates`` (stored ones beyond ``runs`` are there already, and each
    round is decided on the runs before it alone: a resumed race runs as the first did).
    The candidates (indices) still racing at the end."""
    racing = list(range(len(rates)))
    if most_runs <= runs:
        return racing
    for round_index in range(runs, most_runs):
        racing = still_racing(racing, [done[:round_index] for done in rates])
        if len(racing) < 2:
            break
        for slot in rotation(racing, round_index):
            if len(rates[slot]) <= round_index:
                rates[slot].append(run(slot, round_index))
    return still_racing(racing, rates)


def still_racing(racing: Sequence[int], rates: Sequence[Sequence[float | None]]) -> list[int]:
    """The candidates of ``racing`` whose runs do not lie below the leader's (the best median
    of those that ran well): every one of them when none did."""
    ok = {slot: [r for r in rates[slot] if r] for slot in racing}
    ran = [slot for slot in racing if ok[slot]]
    if not ran:
        return list(racing)
    leader = max(ran, key=lambda slot: statistics.median(ok[slot]))
    return [slot for slot in ran
            if slot == leader or below_p(ok[slot], ok[leader]) > RACE_LEVEL]


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
