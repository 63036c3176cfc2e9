"""`iotwin demo`: a short sim-screened tuning on this machine, default and tuned measured."""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
from pathlib import Path

import yaml
from iotwin.config.validation import load_config
from iotwin.core import paths
from iotwin.core.hashing import config_hash
from iotwin.store.database import Store

SUMMARY_REPEAT = 2
TINY_DEMO = f"""
kernel: vpic-io
ranks: 2
platform: local
space: local
strategy: sim-screened
real_budget: 2
summary_repeat: {SUMMARY_REPEAT}
set: {{population: 12, inner_generations: 1}}
args: ["--particles", "8192"]
"""


def demo(scratch: Path, spec: str) -> subprocess.CompletedProcess[str]:
    (scratch / "demo.yaml").write_text(spec)
    return subprocess.run([sys.executable, "-m", "iotwin", "demo", "--spec", "demo.yaml",
                           "--store", "d.db", "--output", "tuned.yaml"], cwd=scratch,
                          text=True, capture_output=True, check=False)


def printed_median(stdout: str, label: str) -> float:
    found = re.search(rf"^  {label}\s+([0-9.e+]+) MB/s \(.*n={SUMMARY_REPEAT}\)$", stdout, re.M)
    assert found, stdout
    return float(found.group(1))


def test_demo_tunes_then_prints_stored_default_and_tuned_medians(scratch: Path) -> None:
    done = demo(scratch, TINY_DEMO)
    assert done.returncode == 0, done.stderr
    assert "iotwin tune --store d.db --output tuned.yaml --kernel vpic-io" in done.stdout
    assert re.search(r"^gen +\d+ +runs +2/2 ", done.stderr, re.M), done.stderr

    with Store(scratch / "d.db") as store:
        (campaign,) = store.campaigns(kind="tune")
        rows = store.evaluations(campaign.id)
    assert campaign.spec["strategy"] == "sim-screened" and campaign.spec["real_budget"] == 2
    assert any(row.source == "sim" for row in rows)  # candidates screened in simulation
    searched = {row.config_hash for row in rows if row.source == "real"
                and "label" not in row.details}
    assert len(searched) == 2
    for label in ("default", "tuned"):
        rates = [row.rate_mbs for row in rows if row.details.get("label") == label]
        assert len(rates) == SUMMARY_REPEAT and all(rates)
        assert printed_median(done.stdout, label) == float(f"{statistics.median(rates):.3g}")

    summary = [(row.details["label"], row.details["round"]) for row in rows
               if row.details.get("label") in ("default", "tuned")]
    assert summary == [("default", 0), ("tuned", 0), ("tuned", 1), ("default", 1)]  # pairs
    assert "(pseudo-median of the 2 pairs' tuned/default ratios)" not in done.stdout
    assert "too few pairs for a 95% interval (2; 6 or more are needed)" in done.stdout

    tuned = scratch / "tuned.yaml"
    assert f"tuned config written to {tuned.name}" in done.stdout
    assert yaml.safe_load(tuned.read_text()) == yaml.safe_load(
        done.stdout.split("--config tuned.yaml`):\n", 1)[1])  # the file, shown as written
    tuned_rows = [row for row in rows if row.details.get("label") == "tuned"]
    # a searched config, or the default when no candidate beat it in the confirmation
    assert {row.config_hash for row in tuned_rows} <= searched | {config_hash({})}
    assert tuned_rows[0].config == load_config(tuned)
    checked = subprocess.run([paths.built("tests/programs/config_check"), str(tuned)],
                             capture_output=True, text=True, check=True)
    assert checked.stdout == "ok\n"  # the interposer's own parser accepts it


def test_demo_with_a_bad_option_names_the_spec_before_running(scratch: Path) -> None:
    done = demo(scratch, TINY_DEMO + "colour: blue\n")
    assert done.returncode == 2
    assert "demo.yaml: not `iotwin tune` options: colour" in done.stderr
    assert not (scratch / "tuned.yaml").exists()
