"""A program's I/O time is its time inside HDF5 and MPI-IO calls: computation between its
writes, inside one file session as h5bench does it, is counted apart, and agrees with the
computation its captured workload holds. A file it only opens through MPI-IO (IOR's HDF5 back
end reading its file's size) is timed, but is no tuning target: its settings are not shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from iotwin.core import paths
from iotwin.core.run_records import RunResult, Target
from iotwin.executors.capture_run import capture_program
from iotwin.executors.interposer_reports import io_time, setting_outcomes
from iotwin.executors.local import LocalExecutor, default_scratch_root
from iotwin.workloads.workload import compute_s

COMPUTE_S = 1.0  # the program's busy loop between its two writes, at least this long


def compute_gaps(folder: Path, *extra: str) -> Target:
    program = paths.build_dir() / "tests" / "programs" / "compute_gaps"
    return Target(ranks=2, command=(str(program), str(folder / "out.h5"), "--steps", "2",
                                    "--mib", "4", "--compute-s", str(COMPUTE_S), *extra))


def report(opened: float, closed: float, ranks: int, *, how: str = "create",
           calls_s: float = 0.25, nbytes: int = 1 << 20) -> dict[str, Any]:
    """A file's report line as the interposer writes it (interposer/README.md)."""
    return {"iotwin_report": 1, "file": "f.h5", "how": how, "ranks": ranks,
            "timings": {"open_s": calls_s / 2, "write_s": calls_s / 2, "flush_s": 0.0,
                        "close_s": 0.0, "metadata_s": 0.0},
            "span": {"open": opened, "closed": closed}, "bytes": nbytes, "writes": 1}


def test_computation_inside_a_file_session_is_not_io_time() -> None:
    timed = io_time([report(100.0, 104.0, 2, calls_s=0.5)])
    assert timed is not None
    assert (timed.span_s, timed.io_s, timed.compute_s) == (4.0, 0.5, 3.5)


def test_a_file_opened_inside_a_session_by_the_same_ranks_adds_its_calls() -> None:
    timed = io_time([report(100.0, 104.0, 2, calls_s=0.5),
                     report(103.0, 103.5, 2, how="open", calls_s=0.25, nbytes=0)])
    assert timed is not None and timed.io_s == 0.75


def test_per_rank_files_written_side_by_side_count_the_slowest() -> None:
    timed = io_time([report(100.0, 102.0, 1, calls_s=0.5), report(100.1, 102.2, 1, calls_s=0.75),
                     {"iotwin_run": 1, "ranks": 2}])
    assert timed is not None
    assert timed.io_s == 0.75 and timed.span_s == pytest.approx(2.2)


def test_sessions_one_after_another_add_up_and_the_gap_is_computation() -> None:
    timed = io_time([report(100.0, 101.0, 2, calls_s=0.5), report(103.0, 104.0, 2, calls_s=0.5)])
    assert timed is not None and (timed.io_s, timed.compute_s) == (1.0, 3.0)


def test_the_wall_objective_rates_the_bytes_over_the_wall_time() -> None:
    run = RunResult("ok", total_s=0.5, rate_mbs=20.0, bytes=10_000_000,
                    phases={"io_s": 0.5, "compute_s": 1.5, "wall_s": 2.5})
    assert (run.rate_for("io"), run.rate_for("wall")) == (20.0, 4.0)
    assert RunResult("ok", rate_mbs=20.0, bytes=10).rate_for("wall") is None


def test_a_programs_computation_between_writes_is_apart_and_agrees_with_its_workload(
        scratch: Path) -> None:
    captured = capture_program(compute_gaps(scratch), workdir=scratch)
    run = captured.run
    assert run.ok, run.error
    phases = run.phases
    # the busy loop is outside every I/O call (the slowest rank's time in each kind of call,
    # added up, can take a little of it: ranks leave a collective write at different times)
    assert phases["compute_s"] > COMPUTE_S / 2
    assert run.total_s == phases["io_s"]
    assert run.rate_mbs == pytest.approx(run.bytes / 1e6 / phases["io_s"])
    assert phases["io_s"] + phases["compute_s"] < phases["wall_s"]  # launch on top
    # the slowest rank's gaps between its calls, as captured, are the run's computation
    assert compute_s(captured.workload) == pytest.approx(phases["compute_s"], rel=0.1)


def test_a_file_only_opened_through_mpiio_is_timed_but_its_settings_not_shown(
        scratch: Path) -> None:
    config = {"mpiio": {"cb_nodes": 1}}
    run = LocalExecutor(workdir=scratch).run_once(compute_gaps(scratch, "--probe"), config)
    assert run.ok, run.error
    probes = [r for r in run.reports if r.get("api") == "mpiio"]
    assert [(p["how"], p["bytes"]) for p in probes] == [("open", 0)]
    assert [o.key for o in setting_outcomes(run.reports)] == ["mpiio.cb_nodes"]  # the HDF5 file's
    timed = io_time(run.reports)
    assert timed is not None
    hdf5 = next(r for r in run.reports if r.get("api") == "hdf5")
    assert timed.io_s == pytest.approx(sum(hdf5["timings"].values())
                                       + sum(probes[0]["timings"].values()))


def test_run_folders_go_to_the_working_directory_never_the_install_tree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IOTWIN_SCRATCH", raising=False)
    assert default_scratch_root(tmp_path) == tmp_path / ".iotwin" / "runs"
    monkeypatch.setenv("IOTWIN_SCRATCH", str(tmp_path / "elsewhere"))
    assert default_scratch_root(tmp_path) == tmp_path / "elsewhere"
    monkeypatch.delenv("IOTWIN_SCRATCH")
    run = LocalExecutor(workdir=tmp_path).run_once(compute_gaps(tmp_path, "--compute-s", "0"),
                                                   {})
    assert run.ok, run.error
    assert (tmp_path / ".iotwin" / "runs").is_dir()
    assert not list((paths.repo_root() / "runs").glob("run-*"))
