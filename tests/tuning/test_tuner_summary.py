"""Default and tuned at the end of a tuning: interleaved rounds (ABBA...), stored as they run,
resumed without running a stored one again, and a speedup taken on the rounds' pairs, which a
drifting machine does not bias as it biases runs taken in blocks."""

from __future__ import annotations

import io
import statistics
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from iotwin.core.run_records import RunResult, Target
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.store.database import Store
from iotwin.tuning.campaign import CampaignEvaluator
from iotwin.tuning.pipeline import default_vs_tuned, summary_speedup
from iotwin.tuning.repetitions import progress_line
from iotwin.tuning.spec import CampaignSpec

TUNED = {"dataset": {"transfer_mode": "collective"}}
TRUE_SPEEDUP = 1.5
YOURS = {"dataset": {"transfer_mode": "independent"}}  # a user's own config, 1.2x the default
YOURS_SPEEDUP = 1.2


class DriftingMachine:
    """A machine that speeds up as the session goes on (a load that fades): run k of the
    session is (1 + drift * k) times faster; the tuned config is 1.5x the default, YOURS
    1.2x."""

    source = "real"

    def __init__(self, drift: float = 0.1, interrupt_at: int | None = None) -> None:
        self.drift, self.interrupt_at, self.calls = drift, interrupt_at, 0

    def run_once(self, target: Target, config: Mapping[str, Any], *, seed: int = 0) -> RunResult:
        if self.calls == self.interrupt_at:
            raise KeyboardInterrupt
        gain = YOURS_SPEEDUP if config == YOURS else TRUE_SPEEDUP if config else 1.0
        rate = 100.0 * gain * (1 + self.drift * self.calls)
        self.calls += 1
        return RunResult("ok", total_s=100.0 / rate, rate_mbs=rate, bytes=10**8)


def campaign_on(store: Store, machine: DriftingMachine, campaign_id: int | None = None
                ) -> CampaignEvaluator:
    spec = CampaignSpec(ranks=2, space="local", strategy="exhaustive", real_budget=1,
                        command=("fake",))
    if campaign_id is None:
        campaign_id = store.create_campaign("summary", kind="tune", spec=spec.to_json())
    space = load_space("local").bind(SpaceContext("ufs", ranks=2))
    return CampaignEvaluator(store, campaign_id, spec, space, machine)


def stored_labels(store: Store, campaign_id: int) -> list[tuple[str, int]]:
    return [(row.details["label"], row.details["round"])
            for row in store.evaluations(campaign_id, source="real")]


def test_summary_runs_alternate_and_a_resume_runs_only_the_missing(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        cut = campaign_on(store, DriftingMachine(interrupt_at=5))
        with pytest.raises(KeyboardInterrupt):
            default_vs_tuned(store, cut, TUNED, 4, progress=None)
        assert stored_labels(store, cut.id) == [("default", 0), ("tuned", 0), ("tuned", 1),
                                                ("default", 1), ("default", 2)]
        machine = DriftingMachine()
        summary = default_vs_tuned(store, campaign_on(store, machine, cut.id), TUNED, 4,
                                   progress=io.StringIO())
        assert machine.calls == 3
        assert stored_labels(store, cut.id) == [
            ("default", 0), ("tuned", 0), ("tuned", 1), ("default", 1),
            ("default", 2), ("tuned", 2), ("tuned", 3), ("default", 3)]
    assert [len(m.runs) for m in summary.values()] == [4, 4]
    assert summary["tuned"].config == TUNED and summary["default"].config == {}


def test_a_drifting_machine_biases_blocks_but_not_the_pairs(tmp_path: Path) -> None:
    rounds = 6
    with Store(tmp_path / "s.db") as store:
        summary = default_vs_tuned(store, campaign_on(store, DriftingMachine()), TUNED, rounds,
                                   progress=None)
    paired = summary_speedup(summary)
    assert paired is not None and paired.low is not None and paired.high is not None
    assert paired.estimate == pytest.approx(TRUE_SPEEDUP, rel=0.05)
    assert paired.low <= TRUE_SPEEDUP <= paired.high

    blocked = DriftingMachine()   # all defaults first, then all tuned, on the same machine
    default = [blocked.run_once(Target(2, command=("x",)), {}).rate_mbs for _ in range(rounds)]
    tuned = [blocked.run_once(Target(2, command=("x",)), TUNED).rate_mbs for _ in range(rounds)]
    biased = statistics.median(t or 0 for t in tuned) / statistics.median(d or 0 for d in default)
    assert biased > 1.3 * TRUE_SPEEDUP   # the drift taken for the config's gain


def test_a_users_own_config_runs_in_the_same_rounds(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        campaign = campaign_on(store, DriftingMachine(drift=0.0))
        summary = default_vs_tuned(store, campaign, TUNED, 6, progress=None, yours=YOURS)
        labels = stored_labels(store, campaign.id)
    assert list(summary) == ["default", "tuned", "yours"]
    assert summary["yours"].config == YOURS and len(summary["yours"].runs) == 6
    # every round has one run of each, the three in turn
    assert sorted(labels) == sorted((label, r) for label in summary for r in range(6))
    over_yours = summary_speedup(summary, "yours", "tuned")
    assert over_yours is not None
    assert over_yours.estimate == pytest.approx(TRUE_SPEEDUP / YOURS_SPEEDUP)
    tuned = summary_speedup(summary)
    assert tuned is not None and tuned.estimate == pytest.approx(TRUE_SPEEDUP)


def test_a_failed_runs_progress_line_ends_with_the_programs_last_words() -> None:
    error = "exit status 1\n" + "\n".join(f"stderr line {n}" for n in range(20)) + \
        "\ncannot create out/step_0.h5 (does ./out exist?)"
    line = progress_line("tuned", 0, 6, RunResult("failed", error=error))
    assert line == ("  tuned  rep 1/6: failed  exit status 1 | stderr line 18 | stderr line 19 | "
                    "cannot create out/step_0.h5 (does ./out exist?)")
