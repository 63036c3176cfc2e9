"""`iotwin demo`: contrasting configs measured for real and compared as ratios of medians."""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
from pathlib import Path

from iotwin.store import Store

SMALL_DEMO = """
kernel: vpic-io
ranks: 2
args: ["--particles", "8192"]
repeat: 2
configs:
  - name: baseline-cfg
    config: {}
  - name: independent-cfg
    config: {dataset: {transfer_mode: independent}}
"""


def demo(scratch: Path, spec: str) -> subprocess.CompletedProcess[str]:
    (scratch / "demo.yaml").write_text(spec)
    return subprocess.run([sys.executable, "-m", "iotwin", "demo", "--spec", "demo.yaml",
                           "--store", "d.db"], cwd=scratch, text=True, capture_output=True,
                          check=False)


def test_demo_prints_each_config_with_its_ratio_to_the_baseline(scratch: Path) -> None:
    done = demo(scratch, SMALL_DEMO)
    assert done.returncode == 0, done.stderr
    with Store(scratch / "d.db") as store:
        rows = store.evaluations()
    assert len(rows) == 4 and all(row.ok for row in rows)
    medians = {label: statistics.median(row.rate_mbs for row in rows
                                        if row.details["label"] == label and row.rate_mbs)
               for label in ("baseline-cfg", "independent-cfg")}
    printed = re.search(r"independent-cfg\s+rate .* x([0-9.]+) vs baseline", done.stdout)
    assert printed, done.stdout
    expected = medians["independent-cfg"] / medians["baseline-cfg"]
    assert float(printed.group(1)) == round(expected, 2)
    assert {row.config_hash for row in rows if row.details["label"] == "independent-cfg"} != {
        row.config_hash for row in rows if row.details["label"] == "baseline-cfg"}


def test_demo_with_a_bad_config_names_it_before_running(scratch: Path) -> None:
    done = demo(scratch, SMALL_DEMO.replace("transfer_mode: independent", "transfer_mode: often"))
    assert done.returncode == 2
    assert "configs[1].config" in done.stderr and "transfer_mode" in done.stderr
    assert not (scratch / "d.db").exists()
