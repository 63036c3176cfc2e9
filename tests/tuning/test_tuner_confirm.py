"""The tuned config is the search's best candidate by the median of re-measured runs, not
the highest single run: a lucky first run must not win; a confirmation taken again runs
nothing twice."""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from iotwin.core.hashing import config_hash
from iotwin.core.run_records import RunResult, Target
from iotwin.search import run_strategy
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.store.database import Store
from iotwin.tuning.campaign import CampaignEvaluator
from iotwin.tuning.confirmation import confirm_best
from iotwin.tuning.spec import CampaignSpec

# Only the transfer mode and the fill time vary: four configs.
FIXED = {"romio_cb_write": "enable", "cb_nodes": 1, "cb_buffer_size": None, "alignment": None,
         "chunk_size": None, "meta_block_size": None, "collective_metadata": False}
TRUE_RATES = {("collective", "ifset"): 200.0, ("collective", "never"): 240.0,
              ("independent", "ifset"): 100.0, ("independent", "never"): 120.0,
              (None, None): 150.0}  # the default config (no settings): a candidate too


class LuckyFirstRunExecutor:
    """Each config's rate is fixed, except that an independent config's first run is 3x
    faster: the search's best single run is a fluke."""

    source = "real"

    def __init__(self, rates: Mapping[tuple[Any, Any], float] = TRUE_RATES) -> None:
        self.runs: Counter[str] = Counter()
        self.rates = rates

    def run_once(self, target: Target, config: Mapping[str, Any], *, seed: int = 0) -> RunResult:
        dataset = config.get("dataset", {})
        mode, fill = dataset.get("transfer_mode"), dataset.get("fill_time")
        rate = self.rates[(mode, fill)]
        key = config_hash(config)
        if mode == "independent" and self.runs[key] == 0:
            rate *= 3
        self.runs[key] += 1
        return RunResult(status="ok", total_s=100.0 / rate, rate_mbs=rate, bytes=10**8)


def searched_campaign(store: Store, executor: LuckyFirstRunExecutor) -> CampaignEvaluator:
    space = load_space("local").bind(SpaceContext("ufs", ranks=4), FIXED)
    spec = CampaignSpec(ranks=4, platform="local", space="local", strategy="exhaustive",
                        executor="local", real_budget=4, command=("fake",))
    campaign_id = store.create_campaign("confirm", kind="tune", spec=spec.to_json())
    campaign = CampaignEvaluator(store, campaign_id, spec, space, executor)
    run_strategy("exhaustive", campaign, seed=0, settings={})
    return campaign


def test_confirmation_rejects_a_lucky_single_run(tmp_path: Path) -> None:
    executor = LuckyFirstRunExecutor()
    with Store(tmp_path / "store.db") as store:
        campaign = searched_campaign(store, executor)
        best_single = campaign.best()
        assert best_single is not None
        assert best_single.config["dataset"]["transfer_mode"] == "independent"  # the fluke

        confirmed = confirm_best(campaign, candidates=3, runs=3, progress=io.StringIO())
        assert [len(c.rates) for c in confirmed] == [3, 3, 3, 3]  # the top 3 and the default
        winner = confirmed[0]
        assert winner.config["dataset"] == {"transfer_mode": "collective", "fill_time": "never"}
        assert winner.rate == 240.0
        # medians: the flukes are out, and the default is measured in the same rounds
        assert [(c.config, c.rate) for c in confirmed[1:]] == [
            ({}, 150.0), (confirmed[2].config, 120.0), (confirmed[3].config, 100.0)]


def test_each_candidate_keeps_the_number_of_its_progress_lines(tmp_path: Path) -> None:
    progress = io.StringIO()
    with Store(tmp_path / "store.db") as store:
        confirmed = confirm_best(searched_campaign(store, LuckyFirstRunExecutor()),
                                 candidates=3, runs=3, progress=progress)
    shown: dict[int, list[float]] = {}
    for line in progress.getvalue().splitlines():
        found = re.search(r"candidate (\d+) .* ([0-9.]+) MB/s$", line)
        assert found, line
        shown.setdefault(int(found[1]), []).append(float(found[2]))
    assert sorted(c.candidate for c in confirmed) == [1, 2, 3, 4]
    for candidate in confirmed:   # the numbers the progress lines gave them, the same runs
        assert sorted(shown[candidate.candidate]) == sorted(candidate.rates)
    assert confirmed[0].candidate != 1   # the search's best single run was a fluke


def test_the_default_wins_when_no_candidate_beats_it(tmp_path: Path) -> None:
    executor = LuckyFirstRunExecutor({**TRUE_RATES, (None, None): 500.0})
    with Store(tmp_path / "store.db") as store:
        campaign = searched_campaign(store, executor)
        confirmed = confirm_best(campaign, candidates=3, runs=3, progress=io.StringIO())
        assert confirmed[0].config == {} and confirmed[0].rate == 500.0


def test_confirmation_taken_again_runs_nothing_new(tmp_path: Path) -> None:
    executor = LuckyFirstRunExecutor()
    with Store(tmp_path / "store.db") as store:
        campaign = searched_campaign(store, executor)
        first = confirm_best(campaign, candidates=3, runs=3, progress=io.StringIO())
        runs_before = sum(executor.runs.values())
        again = confirm_best(campaign, candidates=3, runs=3, progress=io.StringIO())
        assert sum(executor.runs.values()) == runs_before == 4 + 4 * 3
        assert [c.config for c in again] == [c.config for c in first]


def test_without_confirmation_the_best_single_run_is_taken(tmp_path: Path) -> None:
    executor = LuckyFirstRunExecutor()
    with Store(tmp_path / "store.db") as store:
        campaign = searched_campaign(store, executor)
        confirmed = confirm_best(campaign, candidates=1, runs=3, progress=io.StringIO())
        assert sum(executor.runs.values()) == 4
        assert len(confirmed) == 1 and confirmed[0].rate == 360.0
