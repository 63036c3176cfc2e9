"""sim-screened end to end on hopper's twin: predictions, real (twin) batches, refits, store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from iotwin.store import Store


def test_sim_screened_tunes_against_the_twin_and_beats_the_default(tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    done = subprocess.run(
        [sys.executable, "-m", "iotwin", "tune", "--store", str(store), "--kernel", "vpic-io",
         "--ranks", "64", "--platform", "hopper", "--space", "poster", "--executor", "twin",
         "--strategy", "sim-screened", "--real-budget", "6", "--set", "population=30",
         "--set", "inner_generations=2", "--summary-repeat", "3", "--json",
         "--output", str(tmp_path / "tuned.yaml"), "--", "--particles", "65536"],
        cwd=tmp_path, text=True, capture_output=True, timeout=900)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert 0 < result["runs_used"] <= 6
    assert result["speedup"] > 1  # hopper's default: 2 stripes of 1 MiB for a 64-rank file
    with Store(store) as db:
        rows = db.evaluations(result["campaign"])
        calibrations = db.calibrations("hopper")
    assert {r.source for r in rows} == {"sim", "twin"}
    assert calibrations and calibrations[-1].campaign_id == result["campaign"]
    assert "model error" in done.stderr


def test_the_twins_true_rates_are_noise_free_and_its_runs_scatter() -> None:
    from iotwin.executors.base import Target
    from iotwin.executors.twin import TwinExecutor

    twin = TwinExecutor("hopper", truth_seed=3)
    target = Target(ranks=64, kernel="vpic-io", args=("--particles", "65536"))
    config = {"lustre": {"stripe_count": 8, "stripe_size": "4MiB"}}
    true = twin.true_rates(target, [config] * 3)  # each index has its own noise seed
    assert true[0] is not None and true.count(true[0]) == 3
    runs = [twin.run_once(target, config, seed=seed).rate_mbs for seed in range(3)]
    assert len(set(runs)) == 3 and true[0] not in runs
