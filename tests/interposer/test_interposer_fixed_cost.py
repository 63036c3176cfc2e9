"""What the preloaded library costs a run whatever it tunes: the collectives it adds
(support.mpi_call_count counts them, in all and inside file sessions, for
bench/preload_cost.py too; here their behaviour): a run without a report makes no collective
of the library's, and one with a report none inside a file session, all of them at
MPI_Finalize, where each file's figures are reduced over the processes that opened it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from iotwin.core import paths
from iotwin.executors import launch
from support.mpi_call_count import counted_calls
from support.programs import ph5example

pytestmark = pytest.mark.slow

FILES, RANKS = 3, 2


def ior_like(folder: Path) -> list[str]:
    return [str(paths.built("tests/programs/ior_like")), "--api", "mpiio", "--files",
            str(FILES), "--segments", "1", "--block", "65536", "--transfer", "16384", "--dir",
            str(folder)]


def collectives(folder: Path, env: dict[str, str]) -> dict[str, int]:
    """The MPI calls that synchronise ranks, summed over the ranks of one ior_like run."""
    ranks = counted_calls(lambda counted: launch.run_mpi(
        RANKS, ior_like(folder), env=counted, cwd=folder, timeout=180,
        using=launch.launcher("mpich")), env, folder)
    assert len(ranks) == RANKS
    return {name: sum(rank[name] for rank in ranks) for name in ranks[0]}


def added(folder: Path, env: dict[str, str]) -> dict[str, int]:
    without = collectives(folder, {})
    with_library = collectives(folder, env)
    return {name: n - without[name] for name, n in with_library.items() if n != without[name]}


def test_a_program_without_hdf5_reports_none_and_one_with_hdf5_is_reported(
        scratch: Path) -> None:
    folder = scratch / "no-hdf5"
    folder.mkdir()
    library = str(paths.interposer_library())
    report = folder / "report.jsonl"
    env = {"LD_PRELOAD": library, "IOTWIN_REPORT": str(report)}
    done = launch.run_mpi(RANKS, ior_like(folder), env=env, cwd=folder, timeout=180)
    assert done.returncode == 0, done.stderr
    files = [json.loads(line) for line in report.read_text().splitlines()
             if "iotwin_report" in line]
    assert len(files) == FILES and {f["hdf5_version"] for f in files} == {None}
    # the HDF5 program's files: its datasets reported, its version read
    report.unlink()
    done = launch.run_mpi(RANKS, ph5example(folder), env=env, cwd=folder, timeout=180)
    assert done.returncode == 0, done.stderr
    hdf5 = [json.loads(line) for line in report.read_text().splitlines()
            if '"api": "hdf5"' in line]
    assert hdf5 and all(line["hdf5_version"] for line in hdf5), hdf5
    assert any(line["datasets"] for line in hdf5 if line["how"] == "create"), hdf5


def test_a_run_without_a_report_makes_no_collective_of_the_librarys(scratch: Path) -> None:
    folder = scratch / "no-report"
    folder.mkdir()
    config = folder / "cfg.yaml"
    config.write_text("mpiio: {romio_cb_write: automatic}\n")
    # as `iotwin apply` preloads it: a config, no report
    env = {"LD_PRELOAD": str(paths.interposer_library()), "IOTWIN_CONFIG": str(config)}
    assert added(folder, env) == {}


def test_a_reported_run_adds_no_collective_inside_a_file_session(scratch: Path) -> None:
    folder = scratch / "report"
    folder.mkdir()
    env = {"LD_PRELOAD": str(paths.interposer_library()),
           "IOTWIN_REPORT": str(folder / "report.jsonl")}
    # per rank, all at MPI_Finalize: the dup of MPI_COMM_WORLD and the count of the report's
    # messages over it, the run record's reduction; none "in a file session", none per file
    assert added(folder, env) == {"MPI_Comm_dup": RANKS, "MPI_Reduce_scatter_block": RANKS,
                                  "MPI_Allreduce": RANKS}


def test_files_of_different_groups_are_each_reduced_over_their_processes(scratch: Path) -> None:
    report = scratch / "report.jsonl"
    env = {"LD_PRELOAD": str(paths.interposer_library()), "IOTWIN_REPORT": str(report)}
    done = launch.run_mpi(3, [str(paths.built("tests/programs/group_files")), str(scratch)],
                          env=env, cwd=scratch, timeout=180, using=launch.launcher("mpich"))
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in report.read_text().splitlines()
             if "iotwin_report" in line]
    files = sorted((Path(line["file"]).name, line["ranks"], line["bytes"], line["writes"])
                   for line in lines)
    # each rank writes rank + 1 KiB: world ranks 0-2 on the world's files, 1-2 on "rest"
    world, rest = (1 + 2 + 3) * 1024, (2 + 3) * 1024
    assert files == [("first", 1, 1024, 1), ("rest", 2, rest, 2), ("rest", 2, rest, 2),
                     ("world.0", 3, world, 3), ("world.1", 3, world, 3)]
    assert all(line["span"]["open"] <= line["span"]["closed"] for line in lines)
