"""`iotwin tune --objective io|wall` on a program that computes between its writes: the
summary says what was tuned and gives the I/O rate and the wall time side by side; `--keep DIR`
keeps the program's output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from iotwin.core import paths
from iotwin.store.database import Store

COMPUTE_S = 0.3


def tune(workdir: Path, *options: str) -> subprocess.CompletedProcess[str]:
    program = paths.build_dir() / "tests" / "programs" / "compute_gaps"
    return subprocess.run(
        [sys.executable, "-m", "iotwin", "tune", "--store", str(workdir / "s.db"), "--ranks", "2",
         "--strategy", "random", "--real-budget", "2", "--confirm", "0", "--summary-repeat",
         "2", *options, "--", str(program), "out.h5", "--mib", "2", "--compute-s",
         str(COMPUTE_S)], cwd=workdir, text=True, capture_output=True, timeout=600)


def test_the_wall_objective_tunes_the_wall_time_and_shows_the_io_beside_it(
        tmp_path: Path) -> None:
    done = tune(tmp_path, "--objective", "wall", "--keep", str(tmp_path / "kept"), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["objective"] == "wall"
    with Store(tmp_path / "s.db") as store:
        assert store.campaign(result["campaign"]).spec["objective"] == "wall"
        default = [row for row in store.evaluations(result["campaign"])
                   if row.details.get("label") == "default"]
    by_wall = sorted(row.bytes / 1e6 / row.phases["wall_s"] for row in default)
    assert result["summary"]["default"]["median"] == sum(by_wall) / 2  # two runs: their mean
    side = result["io_and_wall"]["default"]
    assert side["compute_s"] > COMPUTE_S / 2  # the computation, apart from the I/O
    assert side["io_rate_mbs"] > result["summary"]["default"]["median"]
    assert side["wall_s"] > side["io_s"] + side["compute_s"]
    # the program's output and every run's own files, kept
    assert (tmp_path / "kept" / "out.h5").is_file()
    assert len(list((tmp_path / "kept" / "iotwin-runs").glob("[0-9]*"))) >= 4


def test_the_io_objective_is_the_default_and_the_summary_says_so(tmp_path: Path) -> None:
    done = tune(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "objective: I/O time" in done.stdout
    assert "I/O and wall time side by side" in done.stdout
    assert not (tmp_path / "out.h5").exists()  # without --keep the output goes


def test_a_twin_has_no_wall_time_to_tune(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "iotwin", "tune", "--store", str(tmp_path / "s.db"), "--ranks",
         "4", "--kernel", "vpic-io", "--executor", "twin", "--platform", "hopper",
         "--objective", "wall"], cwd=tmp_path, text=True, capture_output=True, timeout=600)
    assert done.returncode != 0
    assert "--objective wall: the twin executor runs no program" in done.stderr
