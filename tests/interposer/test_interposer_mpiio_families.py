"""Every family of MPI-IO data access calls, each in a program of its own
(tests/programs/mpiio_<family>.c: explicit offsets, the individual file pointer, the shared
one, nonblocking, split collective, MPI-4's large counts) run with the interposer under MPICH
and (but the large counts, which MPI 3.1 lacks) Open MPI: its writes and reads counted in the
file's report, its writes captured exactly where and as large as the program made them (rank
r's k-th write: BLOCK bytes at (k * ranks + r) * BLOCK, mpiio_family.h), and the program tuned
by `iotwin tune` (under MPICH)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.core import paths
from iotwin.executors import launch
from iotwin.executors.capture_run import records_in
from iotwin.workloads.from_capture import workload_from_capture
from support.mpiio_capture import rank_writes
from support.programs import REPO_ROOT

pytestmark = pytest.mark.slow

RANKS, BLOCK = 3, 4096
# rounds per family: each of its calls at least once (mpiio_<family>.c)
ROUNDS = {"explicit_offsets": 4, "individual_pointer": 4, "shared_pointer": 4,
          "nonblocking": 5, "split_collective": 6, "large_count": 14}


BUILD = {"mpich": ".", "openmpi": "openmpi"}
# Open MPI 4.1 is MPI 3.1: no large counts
CASES = [("mpich", family) for family in ROUNDS] + [
    ("openmpi", family) for family in ROUNDS if family != "large_count"]


def program(family: str, flavour: str = "mpich") -> str:
    return str(paths.built(f"{BUILD[flavour]}/tests/programs/mpiio_{family}"))


def run_captured(flavour: str, family: str, folder: Path,
                 *options: str) -> tuple[dict, dict, dict]:
    """The family's program on RANKS ranks under the flavour's interposer (with the program's
    ``options``): its file's report line, the run's record and the file's capture record."""
    report, records = folder / "report.jsonl", folder / "capture.jsonl"
    env = {"LD_PRELOAD": str(paths.interposer_library(BUILD[flavour])),
           "IOTWIN_REPORT": str(report), "IOTWIN_CAPTURE": str(records)}
    done = launch.run_mpi(RANKS, [program(family, flavour), folder, BLOCK, ROUNDS[family],
                                  *options],
                          env=env, cwd=folder, timeout=180, using=launch.launcher(flavour))
    assert done.returncode == 0, done.stderr   # the program checked every byte it read back
    lines = [json.loads(text) for text in report.read_text().splitlines()]
    [line] = [line for line in lines if "iotwin_report" in line]
    [run] = [line for line in lines if "iotwin_run" in line]
    [record] = [json.loads(text) for text in records.read_text().splitlines()]
    return line, run, record


@pytest.mark.parametrize(("flavour", "family"), CASES)
def test_each_family_is_counted_and_captured_byte_exact(flavour: str, family: str,
                                                        scratch: Path) -> None:
    report, run, record = run_captured(flavour, family, scratch)
    rounds = ROUNDS[family]
    # what the MPI library writes for itself (ROMIO's file of the shared file pointer, written
    # in MPI_File_seek_shared) is not the program's
    assert run["outside"]["files"] == 0, run["outside"]
    assert report["api"] == "mpiio" and Path(report["file"]).name == "family.dat"
    assert (report["writes"], report["bytes"]) == (rounds * RANKS, rounds * RANKS * BLOCK)
    reads = report["reads"]
    assert (reads["calls"], reads["bytes"]) == (rounds * RANKS, rounds * RANKS * BLOCK)
    assert report["timings"]["write_s"] > 0 and reads["seconds"] > 0
    assert record["unsupported"] == [] and record.get("failed") is None, record
    for rank in range(RANKS):
        expected = [[((k * RANKS + rank) * BLOCK, BLOCK)] for k in range(rounds)]
        assert list(rank_writes(record, rank)) == expected, rank
    workload = workload_from_capture(records_in(scratch, [record]),
                                     f"mpiio_{family}", "test")
    [captured] = workload["files"]
    assert captured["api"] == "mpiio"
    assert sum(d["element_bytes"] * d["dims"][0] for d in captured["datasets"]) == \
        rounds * RANKS * BLOCK


LATE_S = 0.25   # what the last rank computes between posting a call and waiting for it
COLLECTIVE_ROUNDS = 2   # of mpiio_nonblocking's 5: _iwrite_at_all, _iwrite_all (and reads)


@pytest.mark.parametrize("flavour", BUILD)
def test_a_nonblocking_calls_completion_is_its_files_io_time(flavour: str,
                                                             scratch: Path) -> None:
    """The last rank computes LATE_S between posting each nonblocking call and waiting for it
    (mpiio_nonblocking --late). Under MPICH, ROMIO's nonblocking collective completes only
    once every rank is in it, so the other ranks spend at least LATE_S of each in MPI_Wait,
    where ROMIO moves the data: that time is the file's (its write and read seconds, the
    slowest rank's; before, 0.2 ms of the 1.0 s). Open MPI's OMPIO completes these small ones
    without the last rank. Under either, the time the last rank computed while its call was
    under way is no computation before its next call in the capture: a call ends when its
    request completes (before, each such gap held the LATE_S)."""
    report, _, record = run_captured(flavour, "nonblocking", scratch, "--late", str(LATE_S))
    if flavour == "mpich":
        assert report["timings"]["write_s"] >= COLLECTIVE_ROUNDS * LATE_S, report["timings"]
        assert report["reads"]["seconds"] >= COLLECTIVE_ROUNDS * LATE_S, report["reads"]
    writes = [call for call in record["calls"] if "write" in call]
    assert len(writes) == ROUNDS["nonblocking"]
    # the calls after an independent or a collective round, before the shared pointer's turns
    # (whose collective seek waits for the last rank)
    assert all(call["compute_before_s"] < LATE_S for call in writes[1:4]), writes


def tune(family: str, folder: Path, summary_repeat: int) -> str:
    """`iotwin tune` of the family's program with a short budget and the platform model's
    refit at its smallest (one parameter, one evaluation: each evaluation simulates once per
    parameter, and what the refit learns is not the point here): its output. What the program
    reads back is not compared (--no-check): MPICH 4.0.2's MPI_File_read_ordered returns other
    bytes than the file holds once a hint is set, as tuning runs do (mpiio_family.h)."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environment["PYTHONPATH"] = str(REPO_ROOT / "tuner")
    done = subprocess.run(
        [sys.executable, "-m", "iotwin", "tune", "--ranks", "2", "--real-budget", "2",
         "--confirm", "1", "--confirm-runs", "1", "--summary-repeat", str(summary_repeat),
         "--set", "fit_parameters=1", "--set", "fit_evaluations=1",
         "--store", "s.db", "--output", "tuned.yaml", "--",
         program(family), ".", str(256 * 1024), str(ROUNDS[family]), "--no-check"],
        cwd=folder, env=environment, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("family", ROUNDS)
def test_each_family_is_tuned(family: str, scratch: Path) -> None:
    out = tune(family, scratch, 2 if family == "large_count" else 0)
    assert "after 2 configs run for real; tuned config written to tuned.yaml" in out, out
    assert (scratch / "tuned.yaml").read_text().strip()
    assert "written outside HDF5 and MPI-IO" not in out
    if family == "large_count":   # the default and the tuned config measured against each other
        assert "tuned / default:" in out and "MB/s" in out, out
        print(out)
