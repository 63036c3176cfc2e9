"""The confirmation's race: candidates the first fresh runs cannot tell from the best run on,
a round at a time, up to ``most_runs``; a clear winner costs no run more; a resumed race runs
as the first did."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pytest
from iotwin.config.types import Config
from iotwin.core.hashing import config_hash
from iotwin.core.stats import below_p
from iotwin.tuning.confirmation import Confirmed, confirm
from iotwin.tuning.repetitions import rotation

STEADY: Config = {"lustre": {"stripe_count": 4}}
LUCKY: Config = {"lustre": {"stripe_count": 8}}


@dataclass(frozen=True)
class Searched:
    config: Config
    rate: float | None


class ScriptedRuns:
    """Each config's confirmation runs in the order given; every run asked is counted."""

    def __init__(self, script: Mapping[str, Sequence[float | None]]) -> None:
        self.script = script
        self.asked: list[tuple[str, int]] = []

    def __call__(self, config: Config, slot: int, round_index: int) -> float | None:
        key = config_hash(config)
        self.asked.append((key, round_index))
        return self.script[key][round_index]

    def runs_of(self, config: Config) -> int:
        return sum(key == config_hash(config) for key, _ in self.asked)


def measured(*entries: tuple[Config, float]) -> dict[str, Searched]:
    return {config_hash(config): Searched(config, rate) for config, rate in entries}


# The default is bimodal (fast or slow by the run), the steady config always near 0.95: on
# their first three runs the default's median is higher; its next three are slow.
BIMODAL_DEFAULT = [1.05, 0.5, 1.0, 0.45, 0.5, 1.02]
SCRIPT = {config_hash({}): BIMODAL_DEFAULT,
          config_hash(STEADY): [0.95, 0.94, 0.96, 0.95, 0.95, 0.95],
          config_hash(LUCKY): [0.4, 0.42, 0.41, 0.4, 0.4, 0.4]}
SEARCH = measured((STEADY, 1.0), (LUCKY, 1.2))


def test_three_runs_alone_take_a_lucky_bimodal_default() -> None:
    runs = ScriptedRuns(SCRIPT)
    confirmed = confirm(SEARCH, 3, 3, runs, most_runs=3)
    assert confirmed[0].config == {}  # median 1.0 of its first three against 0.95
    assert len(runs.asked) == 3 * 3


def test_the_race_runs_on_until_the_steady_config_wins() -> None:
    runs = ScriptedRuns(SCRIPT)
    confirmed = confirm(SEARCH, 3, 3, runs, most_runs=6)
    assert confirmed[0].config == STEADY
    assert confirmed[0].rate == 0.95
    # the lucky search run's config lay below the leader after three runs: out, not run again
    assert runs.runs_of(LUCKY) == 3
    assert runs.runs_of(STEADY) == runs.runs_of({}) == 6
    by_config = {config_hash(c.config): c for c in confirmed}
    assert by_config[config_hash(LUCKY)].raced_out
    assert not by_config[config_hash({})].raced_out  # its runs never lay below the steady's
    assert confirmed[-1].config == LUCKY  # those out of the race come last


def test_a_clear_winner_costs_no_run_more() -> None:
    script = {config_hash({}): [0.5] * 6, config_hash(STEADY): [0.95] * 6,
              config_hash(LUCKY): [0.4] * 6}
    runs = ScriptedRuns(script)
    confirmed = confirm(SEARCH, 3, 3, runs, most_runs=6)
    assert confirmed[0].config == STEADY
    assert len(runs.asked) == 3 * 3
    assert [c.raced_out for c in confirmed] == [False, True, True]


def test_each_extra_round_rotates_the_order_of_those_racing() -> None:
    runs = ScriptedRuns(SCRIPT)
    confirm(SEARCH, 3, 3, runs, most_runs=6)
    extra = [key for key, round_index in runs.asked if round_index >= 3]
    racing = [config_hash(STEADY), config_hash({})]  # candidates 1 and 3, in slot order
    assert extra == rotation(racing, 3) + rotation(racing, 4) + rotation(racing, 5)


def test_a_resumed_race_runs_nothing_stored_and_ends_alike() -> None:
    first_runs = ScriptedRuns(SCRIPT)
    first = confirm(SEARCH, 3, 3, first_runs, most_runs=6)
    stored: dict[str, list[float | None]] = {}
    for key, round_index in first_runs.asked:
        stored.setdefault(key, []).append(SCRIPT[key][round_index])
    again_runs = ScriptedRuns(SCRIPT)
    again = confirm(SEARCH, 3, 3, again_runs, stored, most_runs=6)
    assert again_runs.asked == []
    assert _figures(again) == _figures(first)


def test_a_race_cut_short_goes_on_from_its_stored_runs() -> None:
    stored: dict[str, list[float | None]] = {
        key: list(SCRIPT[key][:3]) for key in SCRIPT}  # the first three rounds, stored
    stored[config_hash(STEADY)].append(SCRIPT[config_hash(STEADY)][3])  # and one of round 4
    runs = ScriptedRuns(SCRIPT)
    resumed = confirm(SEARCH, 3, 3, runs, stored, most_runs=6)
    assert _figures(resumed) == _figures(confirm(SEARCH, 3, 3, ScriptedRuns(SCRIPT),
                                                 most_runs=6))
    assert (config_hash(STEADY), 3) not in runs.asked
    assert (config_hash({}), 3) in runs.asked


def test_a_candidate_whose_runs_fail_leaves_the_race() -> None:
    script = {**SCRIPT, config_hash(STEADY): [None] * 6}
    runs = ScriptedRuns(script)
    confirmed = confirm(SEARCH, 3, 3, runs, most_runs=6)
    assert confirmed[0].config == {}
    assert runs.runs_of(STEADY) == 3  # failed three times: not run again
    failed = next(c for c in confirmed if c.config == STEADY)
    assert failed.raced_out and failed.rates == ()


@pytest.mark.parametrize(("runs", "others", "expected"), [
    ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0], 0.05),   # all three below: 1 ordering of 20
    ([1.0, 5.0, 3.0], [4.0, 2.0, 6.0], 0.35),   # interleaved: 7 of 20 as low or lower
    ([4.0, 5.0, 6.0], [1.0, 2.0, 3.0], 1.0),    # all above
])
def test_below_p_is_mann_whitneys_exact_one_sided_p(runs: list[float], others: list[float],
                                                    expected: float) -> None:
    assert below_p(runs, others) == pytest.approx(expected)


def _figures(confirmed: Sequence[Confirmed]) -> list[tuple[str, tuple[float, ...], bool]]:
    return [(config_hash(c.config), c.rates, c.raced_out) for c in confirmed]
