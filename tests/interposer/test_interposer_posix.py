"""The interposer's POSIX layer, in real runs under Debian's MPICH: a program writing its data
with open, pwrite and writev (tests/programs/posix_writer.c, as IOR's POSIX back end: a file per
process, or one shared file) is captured byte-exact into an ``api: posix`` workload; its
layout keys are reported not effective off Lustre, with the file system's name; `iotwin tune`
on it completes and keeps the default, saying the keys took no effect here; the captured
workload, simulated on a Lustre platform model, responds to the stripe settings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from iotwin.core import paths
from iotwin.core.run_records import Target
from iotwin.executors import launch
from iotwin.executors.capture_run import capture_program
from iotwin.executors.interposer_reports import (
    file_reports,
    outside_writes,
    read_reports,
    setting_outcomes,
)
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.workloads.workload import run_ranks
from support.file_layout import merged

pytestmark = pytest.mark.slow

RANKS = 2
TRANSFERS, TRANSFER = 6, 256 * 1024      # posix_writer's arguments: 7 transfers a rank
BLOCK = (TRANSFERS + 1) * TRANSFER         # each rank's bytes, > 1 MiB: a data file
LOG = "posix_writer: done\n"               # rank 0's log.txt: not a data file


def writer(folder: str, mode: str) -> list[str]:
    return [str(paths.built("tests/programs/posix_writer")), folder, mode, str(TRANSFERS),
            str(TRANSFER)]


def expected_content(offset: int, n: int) -> bytes:
    """posix_writer's bytes: byte b of a data file holds (b * 7 + 3) mod 251."""
    return bytes(((offset + i) * 7 + 3) % 251 for i in range(n))


def written_runs(session: dict[str, Any], rank: int) -> list[tuple[int, int]]:
    """(offset, length) of every write of ``rank`` in a captured session of one byte region,
    in call order, repetitions unrolled (sim-models/WORKLOAD.md)."""
    writes = []
    for call in session["calls"]:
        [selection] = call["selections"]
        repeat = call.get("repeat") or {"times": 1, "origin_step": [0]}
        for k in range(repeat["times"]):
            shift = k * repeat["origin_step"][0]
            if "grid" in selection:   # one writer: a per-rank file
                writes.append((selection.get("origin", [0])[0] + shift, selection["block"][0]))
                continue
            for run in selection["runs"]:
                first, n, _ = run_ranks(run["ranks"])
                if first <= rank < first + n:
                    step = run.get("start_step", [0])[0]
                    writes.append((run["start"][0] + (rank - first) * step + shift,
                                   run["count"][0]))
    return writes


def program_writes(base: int) -> list[tuple[int, int]]:
    """posix_writer's writes of one rank, in order: its pwrites, then its writev."""
    return [(base + i * TRANSFER, TRANSFER) for i in range(TRANSFERS + 1)]


@pytest.mark.parametrize("mode", ["fpp", "shared"])
def test_a_sync_before_the_close_is_the_files_flush(mode: str, scratch: Path) -> None:
    """IOR's `-a POSIX -e` syncs each file before closing it (tests/programs/ior_like --sync,
    2 MiB a rank): that time is the file's flush, I/O time (before, fsync was not seen and
    its time counted as the program's computation), and the captured session ends with a
    flush after its writes."""
    argv = [str(paths.built("tests/programs/ior_like")), "--api", "posix", "--sync",
            "--block", str(2 * 2**20), "--transfer", str(TRANSFER), "--dir", "."]
    captured = capture_program(Target(RANKS, command=tuple(argv + (["--fpp"] if mode == "fpp"
                                                                   else []))),
                               workdir=scratch)
    assert captured.run.ok and captured.run.bytes == RANKS * 2 * 2**20
    reports = [report for report in captured.run.reports if report.get("api") == "posix"]
    assert len(reports) == RANKS   # each process its own line
    assert all(report["timings"]["flush_s"] > 0 for report in reports), reports
    [session] = captured.workload["files"]
    *writes, last = session["calls"]
    assert last.get("flush") is True and all("selections" in call for call in writes), session


@pytest.mark.parametrize("mode", ["fpp", "shared"])
def test_a_posix_program_is_captured_byte_exact(mode: str, scratch: Path) -> None:
    folder = scratch / mode
    folder.mkdir()
    captured = capture_program(Target(RANKS, command=tuple(writer(".", mode))), workdir=folder)
    assert captured.run.ok and captured.run.bytes == RANKS * BLOCK
    [session] = captured.workload["files"]
    assert session["api"] == "posix" and session["create"]
    [dataset] = session["datasets"]
    assert dataset["name"] == "bytes@0" and dataset["element_bytes"] == 1
    assert all(call.get("transfer") == "independent" for call in session["calls"])
    if mode == "fpp":
        assert session["mode"] == "per-rank" and session["name"] == "data.%r"
        assert dataset["dims"] == [BLOCK]
        assert written_runs(session, 0) == program_writes(0)
    else:
        assert session["mode"] == "shared" and session["name"] == "data.shared"
        assert dataset["dims"] == [RANKS * BLOCK]
        for rank in range(RANKS):
            assert written_runs(session, rank) == program_writes(rank * BLOCK)
        assert merged([w for r in range(RANKS) for w in written_runs(session, r)]) == [
            (0, RANKS * BLOCK)]
    # the log stays output, counted outside the data files
    outside = outside_writes(captured.run.reports)
    assert outside is not None and outside.bytes == len(LOG) and outside.files == 1


def test_layout_keys_off_lustre_are_reported_not_effective_with_the_file_system(
        scratch: Path) -> None:
    report, cfg = scratch / "report.jsonl", scratch / "cfg.yaml"
    cfg.write_text("lustre: {stripe_count: 4, stripe_size: 1MiB, pool: flash}\n"
                   "mpiio: {cb_nodes: 1}\n")
    env = {"LD_PRELOAD": str(paths.interposer_library(".")), "IOTWIN_REPORT": str(report),
           "IOTWIN_CONFIG": str(cfg)}
    done = launch.run_mpi(RANKS, writer(".", "fpp"), env=env, cwd=scratch, timeout=120,
                          using=launch.launcher("mpich"))
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    files = sorted((line for line in lines if "iotwin_report" in line), key=lambda r: r["file"])
    assert [Path(r["file"]).name for r in files] == [f"data.{r}" for r in range(RANKS)]
    for line in files:
        assert line["api"] == "posix" and line["how"] == "create" and line["ranks"] == 1
        assert line["bytes"] == BLOCK and line["writes"] == TRANSFERS + 1
        assert line["applied"] == {} and line["effective"] == {"lustre": None}
        not_effective = {entry["key"]: entry for entry in line["not_effective"]}
        assert set(not_effective) == {"lustre.stripe_count", "lustre.stripe_size",
                                      "lustre.pool", "mpiio.cb_nodes"}
        assert not_effective["lustre.stripe_count"]["requested"] == "4"
        assert not_effective["lustre.pool"]["reason"].startswith(
            f"the file is on {line['fs']}, not Lustre")
        assert not_effective["mpiio.cb_nodes"]["reason"] == (
            "the file is written through posix: no mpiio setting acts on it")
    [run] = [line for line in lines if "iotwin_run" in line]
    assert run["outside"]["bytes"] == len(LOG)
    for rank in range(RANKS):   # the interposer changed no byte the program wrote
        assert (scratch / f"data.{rank}").read_bytes() == expected_content(0, BLOCK)


def test_a_shared_files_opens_after_its_create_are_no_failed_settings(scratch: Path) -> None:
    """Every process of IOR's shared POSIX file opens it, the first creating it (tests/programs/
    ior_like, shared): a later process's "this file was opened" is not a layout key that
    failed to act (the creator made the layout): the run's outcomes are the creator's, here
    each key off Lustre with the file system's name."""
    report, cfg = scratch / "report.jsonl", scratch / "cfg.yaml"
    cfg.write_text("lustre: {stripe_count: 4, stripe_size: 1MiB}\n")
    env = {"LD_PRELOAD": str(paths.interposer_library(".")), "IOTWIN_REPORT": str(report),
           "IOTWIN_CONFIG": str(cfg)}
    argv = [str(paths.built("tests/programs/ior_like")), "--api", "posix", "--block",
            str(2 * 2**20), "--transfer", str(TRANSFER), "--dir", "."]
    done = launch.run_mpi(RANKS, argv, env=env, cwd=scratch, timeout=120,
                          using=launch.launcher("mpich"))
    assert done.returncode == 0, done.stderr
    reports = read_reports(report)
    assert sorted(r["how"] for r in file_reports(reports)) == ["create", "open"]
    outcomes = setting_outcomes(reports)
    assert sorted(o.key for o in outcomes) == ["lustre.stripe_count", "lustre.stripe_size"]
    assert all(not o.took_effect and "not Lustre" in str(o.reason) for o in outcomes)


def test_tune_keeps_the_default_when_the_layout_takes_no_effect_here(
        scratch: Path, tmp_path: Path) -> None:
    tuned = tmp_path / "tuned.yaml"
    done = subprocess.run(
        [sys.executable, "-m", "iotwin", "tune", "--ranks", str(RANKS), "--real-budget", "3",
         "--summary-repeat", "2", "--store", str(tmp_path / "s.db"), "--output", str(tuned),
         "--json", "--", *writer(".", "fpp")],
        cwd=scratch, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    effect = result["tuned_settings"]
    if not effect["not_effective"]:   # the default config won the confirmation: nothing claimed
        assert not effect["none_took_effect"] and yaml.safe_load(tuned.read_text()) in ({}, None)
        return
    # a layout won by noise: named not effective, with the file system, and no config offered
    assert effect["none_took_effect"] and result["keep_default"] and not tuned.exists()
    assert {entry["key"] for entry in effect["not_effective"]} <= {
        "lustre.stripe_count", "lustre.stripe_size"}
    assert all("not Lustre" in entry["reason"] and entry["files"] == RANKS
               for entry in effect["not_effective"])


def test_the_captured_workload_responds_to_striping_on_a_lustre_model(scratch: Path) -> None:
    captured = capture_program(Target(4, command=tuple(writer(".", "shared"))), workdir=scratch)
    one, eight = simulate(load_platform("titan"), dict(captured.workload),
                          [{"lustre": {"stripe_count": 1, "stripe_size": 2**20}},
                           {"lustre": {"stripe_count": 8, "stripe_size": 2**20}}])
    assert one.ok and eight.ok
    stripes = -(-4 * BLOCK // 2**20)   # the file's 1 MiB stripes: 7 of 7 MiB
    used = [sum(1 for b in r.breakdown["bytes_per_target"] if b) for r in (one, eight)]
    assert used == [1, min(8, stripes)]
    assert eight.rate_mbs is not None and one.rate_mbs is not None
    assert eight.rate_mbs > one.rate_mbs
