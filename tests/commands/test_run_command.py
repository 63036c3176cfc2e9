"""`iotwin run` end to end: vpic-io and a program not written for iotwin, stored per repetition."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.core import paths
from iotwin.store.database import Store

REPO = paths.repo_root()


def iotwin(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iotwin", *argv], cwd=cwd, text=True,
                          capture_output=True, check=False)


@pytest.fixture(scope="module")
def plain_writer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/programs/plain_h5_writer.c built against the shared parallel HDF5."""
    binary = tmp_path_factory.mktemp("bin") / "plain_h5_writer"
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "hdf5-mpich"], check=True,
                           capture_output=True, text=True).stdout.split()
    subprocess.run(["mpicc.mpich", "-o", str(binary),
                    str(REPO / "tests/programs/plain_h5_writer.c"), *flags], check=True)
    return binary


def test_vpic_run_prints_median_and_spread_and_stores_each_repetition(scratch: Path) -> None:
    done = iotwin("run", "vpic-io", "--ranks", "2", "--repeat", "3", "--store", "r.db",
                  "--", "--particles", "8192", cwd=scratch)
    assert done.returncode == 0, done.stderr
    assert "3/3 repetitions ok" in done.stdout
    assert "time " in done.stdout and "rate " in done.stdout and "spread" in done.stdout
    assert done.stderr.count("rep ") == 3  # one progress line per repetition
    with Store(scratch / "r.db") as store:
        rows = store.evaluations()
    assert [row.repetition for row in rows] == [0, 1, 2]
    assert {(row.source, row.status, row.workload, row.ranks) for row in rows} == {
        ("real", "ok", "vpic-io --particles 8192", 2)}
    assert all(row.bytes == 2 * 8192 * 32 for row in rows)


def test_vpic_run_json_summarises_its_repetitions(scratch: Path) -> None:
    done = iotwin("run", "--ranks", "2", "vpic-io", "--repeat", "3", "--json", "--store", "r.db",
                  "--", "--particles", "4096", cwd=scratch)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    times = [rep["total_s"] for rep in result["repetitions"]]
    rates = [rep["rate_mbs"] for rep in result["repetitions"]]
    assert result["time_s"]["median"] == pytest.approx(statistics.median(times))
    assert (result["time_s"]["min"], result["time_s"]["max"]) == (min(times), max(times))
    assert result["rate_mbs"]["median"] == pytest.approx(statistics.median(rates))
    assert result["time_s"]["spread"] == pytest.approx(
        (max(times) - min(times)) / statistics.median(times))
    with Store(scratch / "r.db") as store:
        assert [row.id for row in store.evaluations(result["campaign"])] == result["evaluations"]


def test_a_transfer_mode_only_config_is_reported_per_dataset(scratch: Path) -> None:
    (scratch / "independent.yaml").write_text("dataset: {transfer_mode: independent}\n")
    done = iotwin("run", "vpic-io", "--ranks", "2", "--config", "independent.yaml",
                  "--store", "r.db", "--", "--particles", "4096", cwd=scratch)
    assert done.returncode == 0, done.stderr
    assert "reported no settings" not in done.stdout
    effective = [line.split()[1] for line in done.stdout.splitlines()
                 if line.strip().startswith("effective") and "transfer_mode = independent" in line]
    assert sorted(effective) == sorted(f"vpic-io.h5:/Step#0/{name}:" for name in
                                       ("x", "y", "z", "id1", "id2", "px", "py", "pz"))


def test_bad_config_is_refused_before_anything_runs(scratch: Path) -> None:
    (scratch / "cfg.yaml").write_text("mpiio:\n  cb_nodes: -3\n")
    done = iotwin("run", "vpic-io", "--ranks", "2", "--config", "cfg.yaml", "--store", "r.db",
                  cwd=scratch)
    assert done.returncode == 2
    assert "cfg.yaml" in done.stderr and "mpiio.cb_nodes" in done.stderr
    assert "rep " not in done.stderr
    assert not (scratch / "r.db").exists()


def test_unknown_kernel_names_the_kernels(scratch: Path) -> None:
    done = iotwin("run", "vpic", "--ranks", "2", cwd=scratch)
    assert done.returncode == 2
    assert "'vpic'" in done.stderr and "vpic-io" in done.stderr


def test_any_hdf5_program_is_timed_and_its_bytes_come_from_the_interposer(
        scratch: Path, plain_writer: Path) -> None:
    done = iotwin("run", "--ranks", "2", "--repeat", "2", "--json", "--store", "r.db",
                  "--", str(plain_writer), "out.h5", "256", cwd=scratch)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [rep["status"] for rep in result["repetitions"]] == ["ok", "ok"]
    assert all(rep["bytes"] == 2 * 256 * 1024 for rep in result["repetitions"])
    assert all(rep["total_s"] > 0 for rep in result["repetitions"])
    assert not (scratch / "out.h5").exists()  # written in the scratch directory, then removed


def test_failing_program_is_stored_as_failed_with_nonzero_exit(scratch: Path) -> None:
    done = iotwin("run", "--ranks", "1", "--repeat", "2", "--store", "r.db",
                  "--", "sh", "-c", "echo broken pipe dream >&2; exit 4", cwd=scratch)
    assert done.returncode == 1
    assert "broken pipe dream" in done.stdout
    with Store(scratch / "r.db") as store:
        rows = store.evaluations()
    assert [(row.status, row.repetition) for row in rows] == [("failed", 0), ("failed", 1)]
    assert all("exit status 4" in (row.error or "") for row in rows)


def test_compare_runs_both_configs_in_alternating_pairs_and_pairs_the_speedup(
        scratch: Path) -> None:
    (scratch / "a.yaml").write_text("dataset: {transfer_mode: independent}\n")
    (scratch / "b.yaml").write_text("dataset: {transfer_mode: collective}\n")
    done = iotwin("run", "vpic-io", "--ranks", "2", "--config", "a.yaml", "--compare", "b.yaml",
                  "--repeat", "3", "--json", "--store", "r.db", "--", "--particles", "4096",
                  cwd=scratch)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    with Store(scratch / "r.db") as store:
        rows = store.evaluations(result["base"]["campaign"])
    assert [(row.details["label"], row.repetition) for row in rows] == [
        ("base", 0), ("compared", 0), ("compared", 1), ("base", 1), ("base", 2),
        ("compared", 2)]
    base = [rep["rate_mbs"] for rep in result["base"]["repetitions"]]
    compared = [rep["rate_mbs"] for rep in result["compared"]["repetitions"]]
    speedup = result["speedup"]
    assert speedup["pairs"] == 3 and speedup["low"] is None  # 3 pairs: no 95% interval
    walsh = sorted((math.log(c1 / b1) + math.log(c2 / b2)) / 2
                   for i, (b1, c1) in enumerate(zip(base, compared, strict=True))
                   for b2, c2 in list(zip(base, compared, strict=True))[i:])
    assert speedup["estimate"] == pytest.approx(math.exp(statistics.median(walsh)))

    text = iotwin("run", "vpic-io", "--ranks", "2", "--compare", "b.yaml", "--repeat", "2",
                  "--store", "r.db", "--", "--particles", "4096", cwd=scratch)
    assert text.returncode == 0, text.stderr
    assert "base: vpic-io --particles 4096 x2, config (none): 2/2 repetitions ok" in text.stdout
    assert "compared: vpic-io --particles 4096 x2, config b.yaml: 2/2" in text.stdout
    assert "too few pairs for a 95% interval (2; 6 or more are needed) (base: no config, " \
           "compared: b.yaml)" in text.stdout
