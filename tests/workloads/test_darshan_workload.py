"""`iotwin workload from-darshan` on the real logs shipped with the darshan package."""

from __future__ import annotations

import shutil
from pathlib import Path

import darshan
import pytest
import yaml
from iotwin.cli import main
from iotwin.workloads.replication.darshan_workload import log_bytes_per_role, workload_from_log
from iotwin.workloads.replication.sessions import bytes_per_role

LOGS = Path(darshan.__file__).parent / "examples" / "example_logs"
MACSIO = next(LOGS.glob("shane_macsio_*.darshan"))
IOR_HDF5 = LOGS / "ior_hdf5_example.darshan"


def test_macsio_log_gives_its_ranks_file_parts_and_collective_writes() -> None:
    work = workload_from_log(MACSIO)
    assert work["ranks"] == 16
    [ckpt] = work["files"]
    assert (ckpt["name"], ckpt["role"], ckpt["mode"], ckpt["api"]) == (
        "macsio_hdf5_000.h5", "checkpoint", "shared", "hdf5")
    [data] = ckpt["datasets"]
    assert data["transfer"] == "collective" and data["element_bytes"] == 8
    part = data["access_elements"]
    per_rank = data["decomposition"]["extents"][0]
    # 72 parts over 16 ranks: the log's slowest rank wrote 5 parts, its fastest 4
    assert sorted({n // part for n in per_rank}) == [4, 5]
    assert all(n % part == 0 for n in per_rank)
    assert max(per_rank) * 8 == 922560 and min(per_rank) * 8 == 738048


def test_ior_log_gives_independent_transfers_of_its_transfer_size() -> None:
    work = workload_from_log(IOR_HDF5)
    [data] = work["files"][0]["datasets"]
    assert work["ranks"] == 4 and data["transfer"] == "independent"
    assert data["access_elements"] * data["element_bytes"] == 256 * 1024
    assert data["decomposition"] == {"grid": [4], "block": [131072]}


@pytest.mark.parametrize("log", [MACSIO, IOR_HDF5], ids=["macsio", "ior-hdf5"])
def test_payload_matches_the_logs_mpiio_bytes_within_a_tenth_of_a_percent(log: Path) -> None:
    made = bytes_per_role(workload_from_log(log))["checkpoint"]
    logged = log_bytes_per_role(log)["checkpoint"]["mpiio"]  # payload plus HDF5 metadata
    assert 0 < logged - made < 0.001 * logged


def test_cli_writes_a_yaml_workload(tmp_path: Path) -> None:
    out = tmp_path / "w.yaml"
    assert main(["workload", "from-darshan", str(MACSIO), "-o", str(out)]) == 0
    assert yaml.safe_load(out.read_text()) == workload_from_log(MACSIO)


def _refused(log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    out = tmp_path / "w.yaml"
    assert main(["workload", "from-darshan", str(log), "-o", str(out)]) == 2
    assert list(tmp_path.iterdir()) == [log]  # no output, no temporary file left behind
    return capsys.readouterr().err


def test_truncated_log_is_refused_without_output(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    cut = tmp_path / "cut.darshan"
    cut.write_bytes(IOR_HDF5.read_bytes()[:3000])
    assert "truncated or corrupted Darshan log" in _refused(cut, tmp_path, capsys)


def test_log_without_mpiio_or_hdf5_modules_is_refused(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "noposix.darshan"
    shutil.copy(LOGS / "noposix.darshan", log)
    err = _refused(log, tmp_path, capsys)
    assert "no MPI-IO or H5F module" in err and "LUSTRE, STDIO" in err


def test_not_a_log_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.darshan"
    junk.write_text("hello\n" * 50)
    assert "not a Darshan log" in _refused(junk, tmp_path, capsys)


def test_a_file_every_rank_opened_is_shared_even_when_the_log_kept_a_record_per_rank() -> None:
    # 16 ranks opened test.out, rank 0 alone wrote 4000 bytes; the log did not reduce the
    # records to one of rank -1
    log = Path(darshan.__file__).parent / "tests" / "input" / "sample-dxt-simple.darshan"
    [session] = workload_from_log(log)["files"]
    assert session["mode"] == "shared"
    [data] = session["datasets"]
    assert data["decomposition"] == {"grid": [16], "extents": [[4000] + [0] * 15]}
