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
