"""A table measured elsewhere brought in from a CSV of runs: values mapped to the space's grid
(the mapping reported), unequal repeats kept, no default config assumed; and benchmarked."""

from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import yaml
from iotwin.core.hashing import config_hash
from iotwin.executors.table import read_table
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.studies.strategy_benchmark import timed_region
from iotwin.studies.table_import import import_runs
from support.programs import REPO_ROOT

SPEC = REPO_ROOT / "experiments" / "landscape" / "vpic-io-4.yaml"
ENV = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "tuner")}


def write_runs(path: Path) -> None:
    """Runs a site might send: cb_buffer_size in bytes, some off the space's grid; configs
    run 1-4 times; a column that is not a setting; no run of the default config."""
    rng = random.Random(0)
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["romio_cb_write", "cb_buffer_size", "transfer_mode", "when",
                         "bandwidth"])
        for mode in ("enable", "disable", "automatic"):
            for size, rate in ((1048576, 100.0), (3_000_000, 150.0), (16777216, 220.0),
                               (60_000_000, 180.0)):
                for _ in range(rng.randint(1, 4)):
                    writer.writerow([mode, size, "collective", "2026-11-28",
                                     f"{rate * rng.lognormvariate(0, 0.1):.1f}"])


def test_a_csv_of_runs_becomes_a_table_of_the_space_with_its_mapping(tmp_path: Path) -> None:
    runs = tmp_path / "site-runs.csv"
    write_runs(runs)
    spec = tmp_path / "site.yaml"
    spec.write_text(SPEC.read_text())
    done = subprocess.run(
        [sys.executable, "-m", "iotwin", "landscape", "import", str(runs), str(spec), "--rate",
         "bandwidth", "--ignore", "when"], capture_output=True, text=True, env=ENV,
        timeout=300)
    assert done.returncode == 0, done.stderr
    table = read_table(spec.with_suffix(".csv"))
    # 3 modes x 4 buffer sizes, but the buffer is inactive with collective buffering off:
    # those rows are one config, their runs pooled
    assert len(table.configs) == 9
    assert config_hash({}) not in {config_hash(c) for c in table.configs}
    counts = {sum(1 for r in row if r) for row in table.rates}
    assert len(counts) > 1  # unequal repeats kept
    page = spec.with_suffix(".md").read_text()
    assert "cb_buffer_size = 3000000 -> 4194304 (snapped: 40% away)" in page
    assert "cb_buffer_size = 16777216 -> 16777216," in page
    assert "fill_time: no column; left at 'ifset'" in page
    assert "0% standard error" not in page and "standard error" in page
    assert "Timed region: open-to-close" in page  # a kernel's rate: its I/O open to close

    unknown = subprocess.run(
        [sys.executable, "-m", "iotwin", "landscape", "import", str(runs), str(spec), "--rate",
         "bandwidth"], capture_output=True, text=True, env=ENV, timeout=300)
    assert unknown.returncode != 0 and "column 'when'" in unknown.stderr

    # benchmarked without the model analysis; its results under the working directory
    bench = tmp_path / "bench.yaml"
    bench.write_text("seeds: 2\ntargets: [0.1]\nstrategies: {random: 12}\n"
                     "tables: {site: site.yaml}\n")
    done = subprocess.run(
        [sys.executable, "-m", "iotwin", "landscape", "benchmark", str(bench),
         "--model-analysis", "off"], capture_output=True, text=True, env=ENV, timeout=600,
        cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "bench-results" / "results.json").read_text())
    site = results["tables"]["site"]
    assert site["model_ties"] is None
    assert "not analysed" in done.stdout
    # no default row: the confirmation confirms 3 candidates (3 runs each), not a 4th
    assert all(r is None or r <= 12 + 9 for r in site["strategies"]["random"][
        "runs_each_within_10pct"])


def test_a_programs_table_is_timed_over_the_region_its_workload_states(tmp_path: Path) -> None:
    measured = REPO_ROOT / "experiments" / "landscape" / "h5py-field-2"
    spec = tmp_path / "site.yaml"
    spec.write_text(measured.with_suffix(".yaml").read_text())
    workload = yaml.safe_load(measured.with_suffix(".workload.yaml").read_text())
    spec.with_suffix(".workload.yaml").write_text(yaml.safe_dump(workload))
    assert timed_region(spec) == "open-to-close"  # unstated
    spec.with_suffix(".workload.yaml").write_text(yaml.safe_dump({**workload,
                                                                  "timed": "writes"}))
    assert timed_region(spec) == "writes"
    assert timed_region(SPEC) == "open-to-close"  # a kernel's


def test_an_empty_cell_is_a_setting_not_written_and_says_so() -> None:
    space = load_space("local").bind(SpaceContext("ufs", 2))
    rows = [{"transfer_mode": "independent", "romio_ds_write": "", "rate": "600"},
            {"transfer_mode": "independent", "romio_ds_write": "automatic", "rate": "610"},
            {"transfer_mode": "independent", "romio_ds_write": "disable", "rate": "500"}]
    imported = import_runs(rows, space, "rate", "site.csv")
    # empty and the space's first value are one config, its runs pooled
    assert [sorted(r for r in row if r) for row in imported.table.rates] == [[600.0, 610.0],
                                                                             [500.0]]
    assert ("romio_ds_write empty -> 'automatic' (the space's first value, as for a setting "
            "no column names), 1 rows") in imported.texts()
