"""The interposer's MPI-IO layer, in real runs under MPICH and Open MPI: a program writing one
HDF5 file and raw MPI-IO files (tests/programs/mpiio_writer.c) gets the settings each file's
name matches, read back and reported per file; every file is captured with each rank's bytes
exactly where the program put them; a program writing only MPI-IO is captured and simulated;
a config the interposer rejects fails the run with its reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from iotwin.core import paths
from iotwin.core.run_records import Target
from iotwin.executors import launch, local
from iotwin.executors.capture_run import capture_program, records_in
from iotwin.executors.interposer_reports import (
    config_rejection,
    outside_writes,
    unmatched_rules,
)
from iotwin.executors.local import LocalExecutor
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.workloads.from_capture import workload_from_capture
from support.file_layout import merged
from support.mpiio_capture import captured_bytes
from support.programs import REPO_ROOT

pytestmark = pytest.mark.slow

ROOT = REPO_ROOT
RANKS = 4
# mpiio_writer.c's sizes
ROWS, COLS, HEADER, STRIDES, BLOCK, CONTIG, POSIX_BYTES, TILES = 8, 4, 64, 4, 16, 4096, 100000, 2
MPIIO_FILES = ("raw.dat", "strided.dat", "contig.dat", "indexed.dat")
CONFIG = """
mpiio: {cb_buffer_size: 4MiB}
files:
  - {match: "*.dat", mpiio: {romio_cb_write: enable}}
  - {match: "raw*", mpiio: {romio_ds_write: disable}}
  - {match: "none*", mpiio: {cb_nodes: 1}}
"""
FLAVOURS = {"mpich": ".", "openmpi": "openmpi"}


def program(flavour: str, name: str) -> Path:
    return paths.built(f"{FLAVOURS[flavour]}/tests/programs/{name}")


def run(flavour: str, argv: list[Any], folder: Path, config: str | None = None,
        capture: bool = False, ranks: int = RANKS) -> tuple[list[dict], list[dict]]:
    """``argv`` on ``ranks`` ranks under the flavour's interposer: its report lines and its
    capture records."""
    report, records = folder / "report.jsonl", folder / "capture.jsonl"
    env = {"LD_PRELOAD": str(paths.interposer_library(FLAVOURS[flavour])),
           "IOTWIN_REPORT": str(report)}
    if config is not None:
        (folder / "cfg.yaml").write_text(config)
        env["IOTWIN_CONFIG"] = str(folder / "cfg.yaml")
    if capture:
        env["IOTWIN_CAPTURE"] = str(records)
    done = launch.run_mpi(ranks, argv, env=env, cwd=folder, timeout=180,
                          using=launch.launcher(flavour))
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    captured = ([json.loads(line) for line in records.read_text().splitlines()]
                if capture else [])
    return lines, captured


def by_file(lines: list[dict], key: str) -> dict[str, dict]:
    return {Path(line["file"]).name: line for line in lines if key in line}


# --- each rank's bytes, as the program writes them ------------------------------------------

def expected_bytes(name: str, rank: int, ranks: int) -> list[tuple[int, int]]:
    """(offset, length) of every byte run rank ``rank`` of ``ranks`` writes into file ``name``."""
    if name == "raw.dat":   # rank 0's header, then a row of COLS doubles per row of the array
        rows = {(HEADER + (i * COLS * ranks + COLS * rank) * 8, COLS * 8) for i in range(ROWS)}
        return merged(rows | ({(0, HEADER)} if rank == 0 else set()))
    if name == "strided.dat":
        return merged({(rank * BLOCK * 8 + k * BLOCK * 8 * ranks, BLOCK * 8)
                       for k in range(STRIDES)})
    if name == "indexed.dat":   # doubles 0, 1 and 4 of this rank's 8, in each tile
        tile = 8 * 8 * ranks
        return merged({(t * tile + rank * 64 + first * 8, n * 8)
                       for t in range(TILES) for first, n in ((0, 2), (4, 1))})
    assert name == "contig.dat"
    return [(rank * CONTIG, CONTIG)]


# --- the tests ----------------------------------------------------------------------------------

@pytest.mark.parametrize("flavour", FLAVOURS)
def test_hdf5_and_mpiio_files_are_read_back_and_reported(flavour: str, scratch: Path) -> None:
    lines, _ = run(flavour, [program(flavour, "mpiio_writer"), scratch], scratch, CONFIG)
    reports = by_file(lines, "iotwin_report")
    assert set(reports) == {"field.h5", *MPIIO_FILES}
    assert reports["field.h5"]["api"] == "hdf5" and reports["raw.dat"]["api"] == "mpiio"
    # the report names the driver as the capture does (test_every_file_is_captured_...)
    assert reports["field.h5"]["driver"] == "mpio" and reports["raw.dat"]["driver"] == "mpiio"
    # the files rules chose each file's settings by its name, as for HDF5 files
    assert reports["field.h5"]["matched"] == ["top"]
    assert reports["raw.dat"]["matched"] == ["top", "files[0]", "files[1]"]
    assert reports["contig.dat"]["matched"] == ["top", "files[0]"]
    assert reports["raw.dat"]["applied"]["hints"] == {
        "cb_buffer_size": "4194304", "romio_cb_write": "enable", "romio_ds_write": "disable"}
    assert reports["field.h5"]["applied"]["hints"] == {"cb_buffer_size": "4194304"}
    expected = {"field.h5": ROWS * COLS * RANKS * 8, "raw.dat": HEADER + ROWS * COLS * RANKS * 8,
                "strided.dat": STRIDES * BLOCK * RANKS * 8, "contig.dat": CONTIG * RANKS,
                "indexed.dat": 3 * TILES * 8 * RANKS}
    for name, report in reports.items():
        assert report["ranks"] == RANKS and report["bytes"] == expected[name], name
        assert report["span"]["closed"] > report["span"]["open"]
        effective = report["effective"]["hints"]
        assert effective["cb_buffer_size"] == "4194304", name   # read back from the open file
        dropped = {entry["key"]: entry["reason"] for entry in report["not_effective"]}
        if flavour == "mpich":   # ROMIO keeps what it was given
            assert effective.get("romio_cb_write") == ("enable" if name != "field.h5"
                                                       else "automatic")
            assert not dropped, dropped
        else:   # OMPIO echoes the ROMIO hint and ignores it: reported as not effective
            assert report["effective"]["mpi_io"]["component"] == "ompio"
            assert ("mpiio.romio_cb_write" in dropped) == (name != "field.h5")
            assert "mpiio.cb_buffer_size" not in dropped
    run_record = next(line for line in lines if "iotwin_run" in line)
    assert run_record["unmatched_rules"] == [{"rule": "files[2]", "match": "none*"}]
    assert unmatched_rules(lines) == ['files[2] (match: "none*") matched no file']
    outside = outside_writes(lines)
    assert outside is not None and outside.bytes == POSIX_BYTES * RANKS and outside.files == RANKS
    assert "MiB written outside HDF5 and MPI-IO, not tuned" in outside.describe()
    # the interposer changed no byte the program wrote
    raw = (scratch / "raw.dat").read_bytes()
    assert raw[:HEADER] == b"h" * HEADER
    array = np.frombuffer(raw[HEADER:], dtype=np.float64).reshape(ROWS, COLS * RANKS)
    for rank in range(RANKS):
        assert np.array_equal(array[:, rank * COLS:(rank + 1) * COLS].ravel(),
                              rank * 1000 + np.arange(ROWS * COLS))


def test_every_layout_key_off_lustre_is_reported_once_for_hdf5_and_mpiio_files(
        scratch: Path) -> None:
    """A pool and components reach no MPI-IO hint: off Lustre they are named as not effective
    with the file system, beside the stripe count that ROMIO's hint read-back reports."""
    config = ("lustre:\n  stripe_count: 4\n  pool: flash\n  components:\n"
              "    - {end: 1MiB, stripe_count: 1}\n    - {end: eof, stripe_count: 4}\n")
    lines, _ = run("mpich", [program("mpich", "mpiio_writer"), scratch], scratch, config, ranks=2)
    reports = by_file(lines, "iotwin_report")
    assert set(reports) == {"field.h5", *MPIIO_FILES}
    for name, report in reports.items():
        keys = [entry["key"] for entry in report["not_effective"]]
        assert sorted(keys) == ["lustre.components", "lustre.pool", "lustre.stripe_count"], name
        reasons = {entry["key"]: entry["reason"] for entry in report["not_effective"]}
        for key in ("lustre.components", "lustre.pool"):
            assert reasons[key].startswith(f"the file is on {report['fs']}, not Lustre"), name
        assert "striping_factor" in reasons["lustre.stripe_count"], name


def test_files_opened_alike_are_reported_as_each_was_read_back(scratch: Path) -> None:
    """The library reads back the hints of the first of the files a program opens the same
    way and gives the others what it found: each line says what a read-back of that file says.
    ior_like.1's own rule asks another buffer size (another read-back), and the files around it,
    opened alike, say what a read-back of them alone says (a run of one file), keys of other
    blocks listed as not effective with their reasons in each."""
    config = ("mpiio: {romio_cb_write: enable}\nlustre: {stripe_count: 2}\n"
              "hdf5: {alignment: {threshold: 1MiB, boundary: 1MiB}}\n"
              "files:\n  - {match: \"*.1\", mpiio: {cb_buffer_size: 8MiB}}\n")
    def sessions(files: int, folder: Path) -> dict[str, dict]:
        folder.mkdir(exist_ok=True)
        argv = [program("mpich", "ior_like"), "--api", "mpiio", "--transfer", "4096",
                "--block", "4096", "--files", files, "--dir", folder]
        return by_file(run("mpich", argv, folder, config, ranks=2)[0], "iotwin_report")

    reports = sessions(4, scratch)
    [first] = sessions(1, scratch / "alone").values()
    assert set(reports) == {f"ior_like.{i}" for i in range(4)}
    read_back = ("applied", "effective", "not_effective", "matched", "fs")
    for name in ("ior_like.0", "ior_like.2", "ior_like.3"):
        assert {key: reports[name][key] for key in read_back} == \
            {key: first[key] for key in read_back}, name
    keys = sorted(entry["key"] for entry in first["not_effective"])
    assert "hdf5.alignment" in keys and "lustre.stripe_count" in keys
    assert reports["ior_like.1"]["matched"] == ["top", "files[0]"]
    assert reports["ior_like.1"]["applied"]["hints"]["cb_buffer_size"] == "8388608"
    assert reports["ior_like.0"]["effective"]["hints"]["cb_buffer_size"] != "8388608"
    assert reports["ior_like.1"]["effective"]["hints"]["cb_buffer_size"] == "8388608"


@pytest.mark.parametrize(("flavour", "ranks"), [("mpich", 4), ("mpich", 1), ("openmpi", 4)])
def test_every_file_is_captured_with_each_ranks_bytes(flavour: str, ranks: int,
                                                      scratch: Path) -> None:
    _, records = run(flavour, [program(flavour, "mpiio_writer"), scratch], scratch,
                     capture=True, ranks=ranks)
    sessions = by_file(records, "iotwin_capture")
    field = sessions["field.h5"]
    assert field["api"] == "hdf5" and field["driver"] == "mpio"
    assert field["calls"][0]["selections"] == [{"grid": [1, ranks], "block": [ROWS, COLS]}]
    raw = sessions["raw.dat"]
    assert raw["api"] == "mpiio" and raw["driver"] == "mpiio"
    # the header is a byte region; the subarray after it a region of the global array's shape
    assert [(d["name"], d["dims"], d["element_bytes"]) for d in raw["datasets"]] == [
        ("bytes@0", [HEADER], 1), (f"subarray@{HEADER}", [ROWS, COLS * ranks], 8)]
    assert raw["calls"][1]["transfer"] == "collective"
    assert raw["calls"][1]["selections"] == [{"grid": [1, ranks], "block": [ROWS, COLS]}]
    assert raw["calls"][-1]["flush"] is True   # MPI_File_sync
    if ranks > 1:   # each rank's blocks, one strided hyperslab per rank
        strided = sessions["strided.dat"]["calls"][0]["selections"][0]["runs"]
        assert strided == [{"ranks": [0, ranks], "start": [0], "start_step": [BLOCK * 8],
                            "count": [STRIDES], "stride": [BLOCK * 8 * ranks],
                            "block": [BLOCK * 8]}]
    assert sessions["contig.dat"]["calls"][0]["transfer"] == "independent"
    for name in MPIIO_FILES:
        for rank in range(ranks):
            assert captured_bytes(sessions[name], rank) == expected_bytes(name, rank, ranks), \
                name
        total = sum(length for rank in range(ranks)
                    for _, length in captured_bytes(sessions[name], rank))
        written = sum(length for rank in range(ranks)
                      for _, length in expected_bytes(name, rank, ranks))
        assert total == written, name
    workload = workload_from_capture(records_in(scratch, records), "mpiio_writer", "test")
    assert [f["api"] for f in workload["files"]] == ["hdf5", "mpiio", "mpiio", "mpiio", "mpiio"]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_fortran_program_is_seen_whatever_its_binding_calls(flavour: str,
                                                              scratch: Path) -> None:
    """Open MPI's Fortran bindings call the PMPI_ functions, MPICH's the MPI_ ones."""
    lines, records = run(flavour, [program(flavour, "mpiio_fortran"), scratch], scratch,
                         capture=True)
    report = by_file(lines, "iotwin_report")["fortran.dat"]
    assert report["api"] == "mpiio" and report["bytes"] == 8**3 * 8 * RANKS
    record = by_file(records, "iotwin_capture")["fortran.dat"]
    # a Fortran-order subarray: its axes reversed into C order, each rank one block
    assert record["datasets"][0]["dims"] == [8 * RANKS, 8, 8]
    assert record["calls"][0]["selections"] == [{"grid": [RANKS, 1, 1], "block": [8, 8, 8]}]


def test_a_program_writing_only_mpiio_is_captured_and_simulated(scratch: Path) -> None:
    target = Target(RANKS, command=(str(program("mpich", "mpiio_writer")), str(scratch),
                                    "--mpiio-only"))
    captured = capture_program(target, workdir=scratch)
    assert captured.run.ok and captured.run.bytes == (HEADER + ROWS * COLS * RANKS * 8
                                                      + STRIDES * BLOCK * RANKS * 8
                                                      + CONTIG * RANKS + 3 * TILES * 8 * RANKS)
    files = captured.workload["files"]
    assert [f["api"] for f in files] == ["mpiio"] * 4
    plain = {"mpiio": {"romio_cb_write": "disable", "romio_ds_write": "disable"}}
    default, without_sieving = simulate(load_platform("local"), dict(captured.workload),
                                        [{}, plain])
    assert default.ok and without_sieving.ok
    # every captured byte where the program wrote it: with neither collective buffering nor
    # data sieving (which rewrite the holes between pieces), exactly the bytes written
    assert sum(without_sieving.breakdown["bytes_per_target"]) == captured.run.bytes
    assert sum(default.breakdown["bytes_per_target"]) > captured.run.bytes   # indexed.dat's holes


def test_a_config_the_interposer_rejects_fails_the_run_with_its_reason(
        scratch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A config file the interposer refuses (2^31 aggregators, beyond the C int it would hand
    MPI): the program ran without the config, so the run is a failure. The Python validator
    refuses that config too (the one bounds table), so the run folder gets it written as it
    is, unvalidated, for the interposer to judge."""
    monkeypatch.setattr(local, "dump_config", yaml.safe_dump)
    target = Target(2, command=(str(program("mpich", "mpiio_writer")), str(scratch),
                                "--mpiio-only"))
    result = LocalExecutor(timeout_s=120).run_once(target, {"mpiio": {"cb_nodes": 2**31}})
    assert result.status == "failed"
    assert result.error is not None
    assert result.error.startswith("the config: refused by the interposer, nothing applied: ")
    assert "mpiio.cb_nodes: expected an integer from 1 to 16777216, got 2147483648" in \
        result.error
    assert config_rejection(result.reports) is not None
    assert any("iotwin_run" in line for line in result.reports)   # said even with no file


def test_iotwin_run_names_the_rules_that_matched_nothing(scratch: Path) -> None:
    (scratch / "c.yaml").write_text(CONFIG)
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environment["PYTHONPATH"] = str(ROOT / "tuner")
    done = subprocess.run(
        [sys.executable, "-m", "iotwin", "run", "--ranks", "2", "--config", "c.yaml", "--store",
         "s.db", "--", str(program("mpich", "mpiio_writer")), str(scratch), "--mpiio-only"],
        cwd=scratch, env=environment, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert 'settings: rule files[2] (match: "none*") matched no file the program opened' \
        in done.stdout
    assert "0.2 MiB written outside HDF5 and MPI-IO, not tuned: 2 files" in done.stdout
    assert "effective      " in done.stdout and "raw.dat: mpiio.romio_ds_write = disable" \
        in done.stdout
