"""Workload capture (IOTWIN_CAPTURE) of programs not written for iotwin, run for real.

Debian's ph5example, a parallel h5py script (h5py and mpi4py built from their PyPI sources
against Debian's MPICH HDF5: `make h5py-mpi`) and vpic-io are captured at 2 and 4 ranks, each
once (``captured_runs``) for every test of what was captured and of the files it wrote; the
capture of vpic-io must say what `vpic-io --describe` says; a regular pattern's record must not
grow with ranks; programs that crash, hang, write no HDF5 or do not exist get clear errors.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import h5py
import pytest
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.executors.capture_run import (
    capture_program,
    capture_records,
    file_in,
    program_target,
    records_in,
)
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulator_input
from iotwin.workloads.from_capture import CaptureError, merge_records, workload_from_capture
from iotwin.workloads.workload import kernel_workload, load_workload, validate_workload
from support.file_layout import merged, real_extents, simulate
from support.programs import H5PY_MPI, h5py_script, ph5example

pytestmark = pytest.mark.slow

VPIC_ARGS = ["--particles", "3000"]


def vpic(folder: Path) -> list[str]:
    return [str(paths.kernel_binary("vpic-io")), "--file", str(folder / "vpic.h5"), *VPIC_ARGS]


def volume(counts: list[int]) -> int:
    return math.prod(counts)


def selected_elements(sel: dict[str, Any], writers: int) -> int:
    """Elements one SEL writes over all writers (runs are disjoint in these programs)."""
    if "grid" in sel:
        assert volume(sel["grid"]) == writers
        return writers * volume(sel["block"])
    total = 0
    for run in sel["runs"]:
        block = volume(run.get("block", [1] * len(run["count"])))
        total += run["ranks"][1] * volume(run["count"]) * block
    return total


def writes_of(session: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [c for c in session["calls"] if c.get("write") == [name]]


Program = Callable[[Path], list[str]]


class CapturedRuns:
    """Each (program, ranks) run once under capture, in a folder of its own, what it wrote kept
    in the folder's ``run``: the records and the folder."""

    def __init__(self, folders: pytest.TempPathFactory) -> None:
        self.folders = folders
        self.runs: dict[tuple[str, int], tuple[list[dict[str, Any]], Path]] = {}

    def __call__(self, program: Program, ranks: int) -> tuple[list[dict[str, Any]], Path]:
        key = (program.__name__, ranks)
        if key not in self.runs:
            folder = self.folders.mktemp(f"{program.__name__}-{ranks}")
            with pytest.MonkeyPatch.context() as patch:
                if program is h5py_script:
                    patch.setenv("PYTHONPATH", str(H5PY_MPI))
                records = capture_records(program(folder), ranks, timeout_s=300,
                                          keep=folder / "run", workdir=folder)
            self.runs[key] = records, folder
        return self.runs[key]


@pytest.fixture(scope="module")
def captured_runs(tmp_path_factory: pytest.TempPathFactory) -> CapturedRuns:
    return CapturedRuns(tmp_path_factory)


def capture(program: Program, ranks: int, runs: CapturedRuns) -> dict[str, Any]:
    records, folder = runs(program, ranks)
    return merge_records(records, "test", " ".join(program(folder)))


# --- what each program writes -------------------------------------------------------------

@pytest.mark.parametrize("ranks", [2, 4])
def test_vpic_capture_says_what_describe_says(ranks: int, captured_runs: CapturedRuns) -> None:
    work = capture(vpic, ranks, captured_runs)
    [described] = kernel_workload("vpic-io", ranks, VPIC_ARGS)["files"]
    [session] = work["files"]
    assert work["ranks"] == ranks and session["mode"] == "shared" and session["create"]
    assert [d["name"] for d in session["datasets"]] == [d["name"] for d in described["datasets"]]
    for dataset, want in zip(session["datasets"], described["datasets"], strict=True):
        assert dataset["element_bytes"] == want["element_bytes"]
        [call] = writes_of(session, dataset["name"])
        assert call["selections"] == [want["decomposition"]]
        assert call["transfer"] == want["transfer"]
    written = [c["write"][0] for c in session["calls"] if "write" in c]
    assert written == [d["name"] for d in described["datasets"]]


@pytest.mark.parametrize("ranks", [2, 4])
def test_ph5example_capture(ranks: int, captured_runs: CapturedRuns) -> None:
    work = capture(ph5example, ranks, captured_runs)
    names = [Path(f["name"]).name for f in work["files"]]
    assert names == ["ParaEg0.h5", "ParaEg1.h5"]   # files only read are left out
    transfers = []
    for session in work["files"]:
        assert session["mode"] == "shared" and session["create"]
        for dataset in session["datasets"]:
            [call] = writes_of(session, dataset["name"])
            [sel] = call["selections"]
            assert selected_elements(sel, ranks) == volume(dataset["dims"])
            transfers.append(call["transfer"])
    assert transfers == ["independent"] * 2 + ["collective"] * 2


@pytest.mark.parametrize("ranks", [2, 4])
def test_h5py_script_capture(ranks: int, captured_runs: CapturedRuns,
                             parallel_h5py: None) -> None:
    work = capture(h5py_script, ranks, captured_runs)
    [session] = work["files"]
    assert [d["name"] for d in session["datasets"]] == ["/field", "/run/table", "/series"]
    field, _, series = session["datasets"]
    assert field["dims"] == [32 * ranks, 48] and series["chunk_dims"] == [1, 16 * ranks]
    assert field["fill_value"] == "default"  # h5py sets none unless asked
    [call] = writes_of(session, "/field")
    assert call["transfer"] == "collective"
    assert call["selections"] == [{"grid": [ranks, 1], "block": [32, 48]}]
    [call] = writes_of(session, "/run/table")   # rank 0 alone
    assert call["transfer"] == "independent"
    assert call["selections"] == [{"runs": [{"ranks": [0, 1], "start": [0], "count": [8]}]}]
    [call] = writes_of(session, "/series")   # the loop over 3 steps: one call, repeated
    assert call["selections"] == [{"grid": [1, ranks], "block": [1, 16]}]
    assert (call["repeat"]["times"], call["repeat"]["origin_step"]) == (3, [1, 0])
    # the script computes 0.2 s before each step
    assert min(call["compute_before_s"], call["repeat"]["compute_between_s"]) >= 0.15


def test_points_strided_one_rank_and_extent_changes(scratch: Path) -> None:
    program = [str(paths.build_dir() / "tests" / "programs" / "selections_writer"),
               str(scratch / "s.h5")]
    [record] = capture_records(program, 3, workdir=scratch)
    calls = {c["write"][0]: c for c in record["calls"]}
    points = [{"ranks": [r, 1], "start": [4 * r + offset], "count": [count]}
              for r in range(3) for offset, count in ((0, 2), (3, 1))]
    assert calls["/points"]["selections"] == [{"runs": points}]
    assert calls["/strided"]["selections"] == [{"runs": [
        {"ranks": [0, 3], "start": [0], "start_step": [1], "count": [4], "stride": [3]}]}]
    assert calls["/strided"]["transfer"] == "collective"
    assert calls["/rank0"]["selections"] == [{"runs": [{"ranks": [0, 1], "start": [0],
                                                         "count": [4]}]}]
    grow = record["datasets"][-1]
    assert (grow["name"], grow["max_dims"], grow["chunk_dims"]) == ("/grow", [None], [4])
    assert record["unsupported"] == ["H5Dset_extent on /grow"]


def test_attributes_and_dimension_scales_are_captured_in_order(scratch: Path) -> None:
    """Each attribute on the root group or a created dataset, after the datasets created before
    it, with its element class, size and extents; the dimension-scale calls as calls (the H5A
    calls inside them not again); a variable-length attribute and a group's unsupported."""
    program = [str(paths.build_dir() / "tests" / "programs" / "attributes_writer"), "a.h5"]
    [record] = capture_records(program, 2, workdir=scratch)
    assert record["attributes"] == [
        {"object": "/", "after_datasets": 0, "name": "title", "element_class": "string",
         "element_bytes": 10},
        {"object": "/data", "after_datasets": 2, "name": "ids", "element_class": "integer",
         "element_bytes": 4, "dims": [3]},
        {"object": "/data", "after_datasets": 2, "name": "scale", "element_class": "float",
         "element_bytes": 8},
        {"object": "/x", "after_datasets": 2, "set_scale": "x"},
        {"object": "/data", "after_datasets": 2, "attach_scale": "/x", "axis": 0}]
    assert record["unsupported"] == [
        "an attribute of a variable-length, compound, reference, enumerated or array type, or "
        "of no extent: note of /data",
        "an attribute of an object neither the root group nor a dataset created in the session: "
        "kind of /g"]


def normalised_size(record: dict[str, Any]) -> int:
    """The record's length with every number written as 0: what may not grow with ranks."""
    return len(re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "0", json.dumps(record)))


def test_regular_capture_does_not_grow_with_ranks(captured_runs: CapturedRuns) -> None:
    """A record listing anything per rank would grow with each rank added. Ranks 2 and 4 are
    the other tests' runs; 3 ranks prove what 8 did (a rank count that is no power of two
    besides), where 8 oversubscribed ranks cost this test most of its 20 CPU s."""
    sizes = {}
    for ranks in (1, 2, 3, 4):
        [record] = captured_runs(vpic, ranks)[0]
        assert all("grid" in c["selections"][0] for c in record["calls"] if "write" in c)
        sizes[ranks] = normalised_size(record)
    assert sizes[1] == sizes[2] == sizes[3] == sizes[4], sizes


# --- failures -----------------------------------------------------------------------------

def test_a_crashing_program_gets_its_exit_status_and_stderr(scratch: Path) -> None:
    with pytest.raises(CaptureError, match=r"(?s)failed: exit status [1-9].*boom"):
        capture_records(["sh", "-c", "echo boom >&2; exit 3"], 2, workdir=scratch)


def test_a_hanging_program_is_killed(scratch: Path) -> None:
    with pytest.raises(CaptureError, match="hung: killed after 3 s"):
        capture_records(["sleep", "120"], 2, timeout_s=3, workdir=scratch)


def test_a_program_that_writes_no_hdf5_is_named(scratch: Path) -> None:
    with pytest.raises(CaptureError, match="wrote no HDF5, MPI-IO or POSIX data file"):
        capture_records(["true"], 2, workdir=scratch)


def test_a_missing_program_is_refused_before_any_run(scratch: Path) -> None:
    with pytest.raises(UserError, match=r"program not found: \./no-such-program"):
        capture_records(["./no-such-program"], 2, workdir=scratch)


def test_a_file_written_outside_the_working_directory_is_refused(scratch: Path) -> None:
    (scratch / "work").mkdir()
    program = [str(paths.build_dir() / "tests" / "programs" / "selections_writer"),
               str(scratch / "elsewhere.h5")]
    with pytest.raises(CaptureError, match=r"elsewhere\.h5: written outside the working "
                                           r"directory .*/work: a workload names its files"):
        capture_program(program_target(program, 2), workdir=scratch / "work")


def test_captured_names_are_relative_to_the_working_directory(tmp_path: Path) -> None:
    assert file_in(tmp_path, str(tmp_path / "out" / "a.h5")) == "out/a.h5"
    assert file_in(tmp_path, "./out/../b.h5") == "b.h5"
    for outside in ("../b.h5", "/elsewhere/b.h5", "out/../../b.h5"):
        with pytest.raises(CaptureError, match="written outside the working directory"):
            file_in(tmp_path, outside)


@pytest.mark.parametrize("name", ["../../x.h5", "/abs/x.h5", "a/../../x.h5", ""])
def test_a_workload_naming_a_file_outside_its_directory_is_refused(name: str) -> None:
    work = {"iotwin_workload": 1, "ranks": 1, "files": [{"name": name, "datasets": [
        {"name": "/d", "element_bytes": 8, "decomposition": {"grid": [1], "block": [4]}}]}]}
    with pytest.raises(UserError, match=r"^w\.yaml: files\[0\]\.name: .* lies outside the "
                                        r"directory the run writes in"):
        validate_workload(work, "w.yaml")
    work["files"][0]["name"] = "sub/x.h5"
    assert validate_workload(work, "w.yaml") is work


def iotwin(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iotwin", *argv], cwd=cwd, text=True,
                          capture_output=True, check=False)


def test_the_command_refuses_a_missing_program_and_writes_nothing(scratch: Path) -> None:
    done = iotwin("workload", "capture", "--ranks", "2", "-o", "w.yaml", "--", "./missing",
                  cwd=scratch)
    assert done.returncode == 2
    assert "program not found: ./missing" in done.stderr
    assert not (scratch / "w.yaml").exists()


def test_the_command_writes_the_workload(scratch: Path) -> None:
    """Needs the workload validator to accept `calls` (the simulator side of the contract)."""
    done = iotwin("workload", "capture", "--ranks", "2", "-o", "w.yaml", "--", *vpic(scratch),
                  cwd=scratch)
    assert done.returncode == 0, done.stderr
    work = load_workload(scratch / "w.yaml")
    assert work["ranks"] == 2 and work["name"] == "vpic-io"
    assert len([c for c in work["files"][0]["calls"] if "write" in c]) == 8
    payload = 2 * 3000 * 32   # 2 ranks x 3000 particles x 8 variables of 4 bytes
    assert (f"iotwin: captured 1 file session(s) (1 file(s)), 8 dataset(s); bytes written: "
            f"hdf5 {payload:,} B") in done.stderr


# --- merging records ------------------------------------------------------------------------

def record(file: str, world_rank: int, comm_size: int, world_size: int, t: float) -> dict:
    return {"iotwin_capture": 1, "file": file, "how": "create", "comm_size": comm_size,
            "world_rank": world_rank, "world_size": world_size, "t_open": t,
            "t_open_done": t + 0.1, "t_close": t + 1, "t_close_done": t + 1.1, "driver": "sec2",
            "datasets": [{"name": "/d", "element_bytes": 8, "dims": [10], "max_dims": [10],
                          "layout": "contiguous", "chunk_dims": None, "fill_time": "ifset",
                          "alloc_time": "late", "fill_value": "default"}],
            "calls": [{"write": ["/d"], "transfer": "independent", "compute_before_s": 0.0,
                       "start": t + 0.2, "end": t + 0.3,
                       "selections": [{"runs": [{"ranks": [0, 1], "start": [0], "count": [10]}]}]}],
            "unsupported": []}


def test_per_rank_and_group_files_become_one_session_each() -> None:
    records = [record(f"out.{r}.h5", r, 1, 4, 10.0 + 0.01 * r) for r in range(4)]
    records += [record(f"g{g}/part.h5", 2 * g, 2, 4, 20.0) for g in range(2)]
    work = merge_records(records, "t", "t")
    per_rank, groups = work["files"]
    assert (per_rank["name"], per_rank["mode"]) == ("out.%r.h5", "per-rank")
    assert (groups["name"], groups["mode"], groups["groups"]) == ("g%g/part.h5", "groups", 2)
    assert groups["compute_before_s"] == pytest.approx(20.0 - 11.13)
    assert "start" not in per_rank["calls"][0]


def test_an_incomplete_per_rank_file_set_is_named() -> None:
    with pytest.raises(UserError, match=r"out.%r.h5: 3 files of 4 expected"):
        merge_records([record(f"out.{r}.h5", r, 1, 4, 1.0) for r in range(3)], "t", "t")


# --- simulated byte ranges = the real file's (needs the simulator to accept `calls`) ---------

def sessions_with_their_files(work: dict[str, Any], folder: Path):
    for session in work["files"]:
        yield {**work, "files": [session]}, folder / session["name"]   # relative, as kept


@pytest.mark.parametrize("program", [ph5example, h5py_script, vpic])
@pytest.mark.parametrize("ranks", [2, 4])
def test_simulated_ranges_are_the_real_files(program: Program, ranks: int,
                                             captured_runs: CapturedRuns) -> None:
    records, folder = captured_runs(program, ranks)
    work = workload_from_capture(records_in(folder, records), "test", program.__name__)
    for one, path in sessions_with_their_files(work, folder / "run"):
        payload = simulator_input(load_platform("local"), one, [{}], {"report_ranges": True})
        result = simulate(payload)
        assert result["ok"], result.get("error")
        simulated = {d["dataset"]: d["ranges"] for d in result["breakdown"]["dataset_ranges"]}
        with h5py.File(path, "r") as f:
            for name, ranges in simulated.items():
                assert merged([(o, n) for o, n, _ in ranges]) == merged(real_extents(f[name]))
