"""`iotwin calibrate --design`: a design's probes run through the twin, every run stored in a
new campaign, and the design's parameters fitted to them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml
from iotwin.store.database import Store

DESIGN = {
    "name": "tiny", "kernel": "vpic-io", "repetitions": 2,
    "probes": [
        {"name": "streaming", "excites": ["filesystem.target_mbs"], "why": "big stripes",
         "nodes": 1, "args": ["--particles", "65536", "--independent"],
         "config": {"lustre": {"stripe_count": 2, "stripe_size": "1MiB"}}},
        {"name": "many-osts", "excites": ["filesystem.target_mbs"], "why": "more OSTs",
         "nodes": 2, "args": ["--particles", "65536", "--independent"],
         "config": {"lustre": {"stripe_count": 8, "stripe_size": "1MiB"}}},
    ],
}


def calibrate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iotwin", "calibrate", *args], text=True,
                          capture_output=True, timeout=600)


def test_a_design_is_run_stored_and_fitted(tmp_path: Path) -> None:
    design = tmp_path / "tiny.yaml"
    design.write_text(yaml.safe_dump(DESIGN))
    store = tmp_path / "store.db"
    done = calibrate("--platform", "hopper", "--design", str(design), "--folds", "2",
                     "--store", str(store), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert list(result["parameters"]) == ["filesystem.target_mbs"]
    assert any(note.startswith("the twin's truth: filesystem.target_mbs")
               for note in result["notes"])
    with Store(store) as db:
        [campaign] = db.campaigns("calibrate")
        runs = db.evaluations(campaign.id)
        [calibration] = db.calibrations()
    assert len(runs) == 2 * 2 and {r.source for r in runs} == {"twin"}
    assert calibration.campaign_id == campaign.id


def test_a_bad_design_is_refused_naming_the_key(tmp_path: Path) -> None:
    design = tmp_path / "bad.yaml"
    design.write_text(yaml.safe_dump({**DESIGN, "probes": [{**DESIGN["probes"][0],
                                                           "colour": "red"}]}))
    done = calibrate("--platform", "hopper", "--design", str(design),
                     "--store", str(tmp_path / "store.db"))
    assert done.returncode == 2
    assert "colour" in done.stderr and str(design) in done.stderr
