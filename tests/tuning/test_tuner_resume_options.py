"""`iotwin tune --resume ID` goes on with every option the campaign started with: killed during
its search and resumed with nothing but its id, a campaign started with --confirm 2
--confirm-runs 2 --summary-repeat 2 confirms 2 candidates with 2 runs each and measures
default and tuned 2 times each, with no search run lost or repeated."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from iotwin.core.hashing import config_hash
from iotwin.store.database import Store

BUDGET = 3


def search_rows(store_path: Path, campaign_id: int) -> list[tuple[str, int]]:
    with Store(store_path) as store:
        return [(row.config_hash, row.repetition)
                for row in store.evaluations(campaign_id, source="real")
                if "label" not in row.details]


def wait_for_search_run(store_path: Path, proc: subprocess.Popen[str]) -> int:
    """The campaign's id once its first search run is stored (the process still running)."""
    while True:
        assert proc.poll() is None, "the campaign ended before it could be killed"
        if store_path.exists():
            with Store(store_path) as store:
                campaigns = store.campaigns(kind="tune")
                if campaigns and search_rows(store_path, campaigns[0].id):
                    return campaigns[0].id
        time.sleep(0.05)


def test_a_resume_keeps_the_pipeline_options_the_campaign_started_with(scratch: Path) -> None:
    store_path = scratch / "t.db"
    started = subprocess.Popen(
        [sys.executable, "-m", "iotwin", "tune", "--store", str(store_path), "--kernel",
         "vpic-io", "--ranks", "2", "--real-budget", str(BUDGET), "--confirm", "2",
         "--confirm-runs", "2", "--confirm-max-runs", "2", "--summary-repeat", "2",
         "--set", "population=12",
         "--set", "inner_generations=1", "--", "--particles", "8192"],
        cwd=scratch, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    campaign_id = wait_for_search_run(store_path, started)
    os.killpg(started.pid, signal.SIGKILL)
    started.wait(timeout=60)
    assert 0 < len(search_rows(store_path, campaign_id)) < BUDGET

    refused = subprocess.run([sys.executable, "-m", "iotwin", "tune", "--store", str(store_path),
                              "--resume", str(campaign_id), "--confirm", "3"],
                             cwd=scratch, text=True, capture_output=True, timeout=120)
    assert refused.returncode == 2
    assert f"campaign {campaign_id} started with --confirm 2" in refused.stderr

    resumed = subprocess.run([sys.executable, "-m", "iotwin", "tune", "--store", str(store_path),
                              "--resume", str(campaign_id)],
                             cwd=scratch, text=True, capture_output=True, timeout=900)
    assert resumed.returncode == 0, resumed.stderr

    with Store(store_path) as store:
        rows = store.evaluations(campaign_id, source="real")
    by_label = Counter(row.details.get("label") for row in rows)
    assert by_label["default"] == 2 and by_label["tuned"] == 2
    confirmed = Counter(row.config_hash for row in rows if row.details.get("label") == "confirm")
    search_rates = {row.config_hash: row.rate_mbs or 0.0 for row in rows
                    if "label" not in row.details}
    best_two = sorted(search_rates, key=lambda key: search_rates[key], reverse=True)[:2]
    # the 2 best of the search, and the default config beside them, 2 runs each (no race)
    assert set(confirmed) - set(best_two) <= {config_hash({})} and set(best_two) <= set(confirmed)
    assert set(confirmed.values()) == {2}
    searched = search_rows(store_path, campaign_id)
    assert len(searched) == BUDGET and len({config for config, _ in searched}) == BUDGET
    assert "candidate 2: median" in resumed.stdout
