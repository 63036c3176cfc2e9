"""`iotwin demo`: a short sim-screened tuning on this machine, default and tuned measured."""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from iotwin.commands.demo import goal_line
from iotwin.config.validation import DEFAULT_CONFIG, load_config
from iotwin.core import paths
from iotwin.core.hashing import config_hash
from iotwin.core.run_records import RunResult, Target
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.report.mechanisms import reason
from iotwin.store.database import Store
from iotwin.tuning.explanation import Explanation
from iotwin.tuning.repetitions import Measurement
from iotwin.workloads.workload import kernel_workload

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
    tuned_rows = [row for row in rows if row.details.get("label") == "tuned"]
    # a searched config, or the default when no candidate beat it in the confirmation
    assert {row.config_hash for row in tuned_rows} <= searched | {config_hash({})}
    assert ("tuned / default: the same config (the default was the best found)"
            if tuned_rows[0].config_hash == config_hash({}) else
            "too few pairs for a 95% interval (2; 6 or more are needed)") in done.stdout
    assert done.stdout.rstrip().endswith(
        "demo goal (a tuned config faster than the default at 95%, at 50 % of its ceiling or "
        "more): not judged: the summary has no interval or no simulated ceiling")

    tuned = scratch / "tuned.yaml"
    assert f"tuned config written to {tuned.name}" in done.stdout
    shown = done.stdout.split("--config tuned.yaml`):\n", 1)[1].split("\n\ndemo goal", 1)[0]
    assert yaml.safe_load(tuned.read_text()) == yaml.safe_load(shown)  # the file, as written
    assert tuned_rows[0].config == load_config(tuned)
    checked = subprocess.run([paths.built("tests/programs/config_check"), str(tuned)],
                             capture_output=True, text=True, check=True)
    assert checked.stdout == "ok\n"  # the interposer's own parser accepts it


def test_demo_with_a_bad_option_names_the_spec_before_running(scratch: Path) -> None:
    done = demo(scratch, TINY_DEMO + "colour: blue\n")
    assert done.returncode == 2
    assert "demo.yaml: not `iotwin tune` options: colour" in done.stderr
    assert not (scratch / "tuned.yaml").exists()


@pytest.mark.parametrize("goal", ["0", "1.5", "half", "true"])
def test_demo_with_a_bad_ceiling_goal_names_it_before_running(scratch: Path, goal: str) -> None:
    done = demo(scratch, TINY_DEMO + f"ceiling_goal: {goal}\n")
    assert done.returncode == 2
    assert "demo.yaml: ceiling_goal: expected a share of the ceiling above 0 and at most 1" \
        in done.stderr
    assert not (scratch / "tuned.yaml").exists()


FILL_NEVER = {"dataset": {"fill_time": "never"}}


@pytest.fixture(scope="module")
def explained() -> Explanation:
    """gcrm-io on the local model: parallel HDF5 fills its chunks at create unless told not
    to, which costs the default a copy into the page cache of every byte (the data then lands
    on the fill's dirty pages: the disk takes it once)."""
    workload = kernel_workload("gcrm-io", 2, ["--resolution", "4"])
    runs = dict(zip(("default", "tuned"), simulate(load_platform("local"), workload,
                                                   [DEFAULT_CONFIG, FILL_NEVER]), strict=True))
    return Explanation(runs, "dataset.fill_time=never", runs["tuned"].best_ceiling_mbs)


def summary_of(default_mbs: list[float], tuned_mbs: list[float]) -> dict[str, Measurement]:
    target = Target(2, kernel="gcrm-io")
    return {label: Measurement(target, config, [RunResult("ok", rate_mbs=rate) for rate in rates])
            for label, config, rates in (("default", {}, default_mbs),
                                         ("tuned", FILL_NEVER, tuned_mbs))}


AIM = "demo goal (a tuned config faster than the default at 95%, at 50 % of its ceiling or more)"
DEFAULT_MBS = [200.0, 210.0, 190.0, 205.0, 195.0, 200.0]


def test_goal_met_when_faster_and_at_half_the_ceiling_or_more(explained: Explanation) -> None:
    ceiling = explained.runs["tuned"].ceiling_mbs
    assert ceiling
    tuned = [0.6 * ceiling * factor for factor in (1.0, 1.02, 0.98, 1.01, 0.99, 1.0)]
    line = goal_line(summary_of(DEFAULT_MBS, tuned), explained, 0.5, (0.3, 0.4), 2)
    assert line.startswith(f"{AIM}: met: tuned ")
    assert "at 60 % of its" in line


def test_goal_not_met_below_half_the_ceiling_on_a_loaded_machine_says_so(
        explained: Explanation) -> None:
    tuned = [rate * 1.5 for rate in DEFAULT_MBS]
    summary = summary_of(DEFAULT_MBS, tuned)
    loaded = goal_line(summary, explained, 0.5, (28.3, 30.0), 2)
    assert loaded.startswith(f"{AIM}: not met: tuned 1.50x the default (95% interval 1.50-1.50x)")
    assert loaded.endswith(
        "the machine was loaded (load average 28.3 when the demo started, 30.0 when it ended, "
        "on 2 cores): the ranks shared their cores, so both rates fall short of the device; "
        "their ratio, taken in interleaved pairs, holds")
    quiet = goal_line(summary, explained, 0.5, (0.2, 0.3), 2)
    assert quiet.endswith(f": the model sees it as {reason('tuned', explained.runs['tuned'])}")
    assert "binds it at" in quiet and "loaded" not in quiet


def test_goal_not_met_when_no_config_beat_the_default(explained: Explanation) -> None:
    tuned = [rate * factor for rate, factor in zip(DEFAULT_MBS, (1.1, 0.9, 1.05, 0.95, 1.2, 0.85),
                                                     strict=True)]
    line = goal_line(summary_of(DEFAULT_MBS, tuned), explained, 0.5, (28.0, 29.0), 2)
    assert line.startswith(f"{AIM}: not met: ")
    assert (": no searched config was shown faster than the default at 95% (its paired interval "
            "reaches 1), which the model sees as default: ") in line


def test_goal_not_judged_without_an_interval(explained: Explanation) -> None:
    line = goal_line(summary_of(DEFAULT_MBS[:2], DEFAULT_MBS[:2]), explained, 0.5, (1, 1), 2)
    assert line == f"{AIM}: not judged: the summary has no interval or no simulated ceiling"
