"""`iotwin tune`, `iotwin tune --resume` and `iotwin show` on a fake kernel under mpiexec."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml
from iotwin.commands.tune import tuned_config_text
from iotwin.config.validation import validate_config
from iotwin.store.database import Store
from support.programs import PROGRAMS

FAKE_KERNEL = PROGRAMS / "fake_tuned_kernel.py"


def iotwin(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iotwin", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=600)


def test_tune_writes_the_best_config_and_compares_it_with_the_default(tmp_path: Path) -> None:
    store = str(tmp_path / "store.db")
    tuned = tmp_path / "tuned.yaml"
    done = iotwin("tune", "--store", store, "--ranks", "1", "--space", "local",
                  "--strategy", "random", "--real-budget", "5", "--summary-repeat", "2",
                  "--fix", "cb_nodes=1", "--output", str(tuned), "--json", "--",
                  sys.executable, str(FAKE_KERNEL), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["runs_used"] == 5
    assert "runs   5/5" in done.stderr  # the progress line of the last generation
    config = yaml.safe_load(tuned.read_text())
    assert validate_config(config, str(tuned)) is not None
    with Store(store) as db:
        searched = [r for r in db.evaluations(result["campaign"]) if "label" not in r.details]
        best_rate = max(r.rate_mbs for r in searched if r.rate_mbs)
    assert result["best_measured_mbs"] == best_rate
    summary = result["summary"]
    assert summary["default"]["median"] == 100.0  # the fake kernel's rate without settings
    assert summary["tuned"]["median"] == best_rate
    assert result["speedup"] == best_rate / 100.0

    shown = iotwin("show", str(result["campaign"]), "--store", store, "--json", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    listing = json.loads(shown.stdout)
    assert listing["spec"]["strategy"] == "random"
    assert listing["measured"][0]["rate_mbs"] == best_rate

    with Store(store) as db:
        stored = len(db.evaluations(result["campaign"]))
    # 3 fresh runs of the top 3 and of the default config, then the summary
    assert stored == len(searched) + 4 * 3 + 2 * 2
    resumed = iotwin("tune", "--resume", str(result["campaign"]), "--store", store,
                     "--output", str(tmp_path / "again.yaml"),
                     cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    with Store(store) as db:
        assert len(db.evaluations(result["campaign"])) == stored  # nothing new
    assert yaml.safe_load((tmp_path / "again.yaml").read_text()) == config


def test_tune_prints_the_candidates_by_their_numbers_and_the_tuned_config(
        tmp_path: Path) -> None:
    tuned = tmp_path / "tuned.yaml"
    done = iotwin("tune", "--store", str(tmp_path / "s.db"), "--ranks", "1", "--space", "local",
                  "--strategy", "random", "--real-budget", "4", "--summary-repeat", "2",
                  "--fix", "cb_nodes=1", "--output", str(tuned), "--",
                  sys.executable, str(FAKE_KERNEL), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [winner] = [line for line in done.stdout.splitlines() if line.endswith("<- tuned")]
    number = winner.split()[1].rstrip(":")
    median = float(winner.split("median ")[1].split()[0])
    rates = [float(line.split()[-2]) for line in done.stderr.splitlines()
             if line.startswith(f"  candidate {number}  rep ")]
    assert len(rates) == 3 and sorted(rates)[1] == median  # its own progress lines' runs
    shown = done.stdout.split(f"tuned config ({tuned}; apply it to any run with "
                              f"`iotwin run ... --config {tuned}`):\n")[1]
    assert yaml.safe_load(shown) == yaml.safe_load(tuned.read_text())


def test_tune_refuses_bad_input_before_running_anything(tmp_path: Path) -> None:
    store = str(tmp_path / "store.db")
    cases = {("--strategy", "random", "--set", "population=3"): "no setting 'population'",
             ("--strategy", "random", "--fix", "colour=red"): "no parameter 'colour' to fix",
             ("--strategy", "random", "--space", "nosuch"): "no space 'nosuch'",
             ("--strategy", "sim-screened", "--executor", "twin"): "captured from a run"}
    for extra, message in cases.items():
        done = iotwin("tune", "--store", store, "--ranks", "1", *extra, "--",
                      sys.executable, str(FAKE_KERNEL), cwd=tmp_path)
        assert done.returncode == 2 and message in done.stderr, (extra, done.stderr)
    with Store(store) as db:
        assert not [r for r in db.evaluations() if r.source != "sim"]


def test_tune_of_a_program_that_writes_no_hdf5_says_so_and_stores_the_failed_run(
        tmp_path: Path) -> None:
    store = str(tmp_path / "store.db")
    done = iotwin("tune", "--store", store, "--ranks", "1", "--strategy", "sim-screened", "--",
                  sys.executable, str(FAKE_KERNEL), cwd=tmp_path)
    assert done.returncode == 2
    assert "wrote no HDF5, MPI-IO or POSIX data file" in done.stderr
    with Store(store) as db:
        [campaign] = db.campaigns()
        [row] = db.evaluations(campaign.id)
    assert (row.source, row.status, row.details) == ("real", "failed", {"label": "capture"})
    assert "no HDF5, MPI-IO or POSIX data file closed" in (row.error or "")


def test_a_failing_capture_run_of_tune_is_stored_with_the_programs_words(
        tmp_path: Path) -> None:
    store = str(tmp_path / "store.db")
    done = iotwin("tune", "--store", store, "--ranks", "1", "--strategy", "sim-screened", "--",
                  "sh", "-c", "echo no input deck here >&2; exit 3", cwd=tmp_path)
    assert done.returncode == 2
    assert "no input deck here" in done.stderr
    with Store(store) as db:
        [campaign] = db.campaigns()
        [row] = db.evaluations(campaign.id)
    assert (row.status, row.details) == ("failed", {"label": "capture"})
    assert "exit status 3" in (row.error or "") and "no input deck here" in (row.error or "")


def test_a_missing_program_is_refused_before_any_run(tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    for command in ("run", "tune"):
        done = iotwin(command, "--store", str(store), "--ranks", "2", "--", "./missing",
                      cwd=tmp_path)
        assert done.returncode == 2
        assert "program not found: ./missing" in done.stderr
    if store.exists():
        with Store(str(store)) as db:
            assert db.campaigns() == []  # nothing was started, nothing stored


def test_a_tuned_default_config_is_shown_as_the_file_holds_it_and_says_why(
        tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text("{}\n")
    text = tuned_config_text(tmp_path / "t.yaml")
    shown = text.split("`):\n", 1)[1]
    assert shown == "  {}  # no settings: nothing searched beat the default config"
    assert yaml.safe_load(shown) == {}
