"""The interposer lives in other people's programs: it must not leak or touch bad memory.
Valgrind runs one rank of vpic-io (an MPI singleton) under the library with a config that
exercises every path: hints, Lustre keys, alignment, dataset-scoped chunking, the amended
default creation list the other datasets share, and a creation list passed through (y's
alloc_time is vpic-io's own); with workload capture on."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from iotwin.core import paths
from iotwin.executors import launch

pytestmark = pytest.mark.slow

CONFIG = """
mpiio: {cb_nodes: 2, cb_config_list: "*:*", hints: {foo: bar}}
lustre: {stripe_count: 4}
hdf5: {alignment: {threshold: 0, boundary: 1MiB}}
dataset: {alloc_time: early}
files: [{match: "*.h5", datasets: [{match: x, chunk_size: 4KiB, fill_time: never},
                                    {match: y, alloc_time: late}]}]
"""
# leaks and invalid accesses (what loss_records reads), not uses of uninitialised values:
# tracking which bits are defined costs a fifth of each run's CPU, and no assertion reads them
VALGRIND = ["valgrind", "--leak-check=full", "--show-leak-kinds=definite,indirect",
            "--undef-value-errors=no", "--num-callers=40"]
# a frame in the library: by name without debug info, by source file with it
SOURCES = sorted({path.stem for path in
                  (Path(__file__).resolve().parents[2] / "interposer" / "src").rglob("*.c")})
assert SOURCES, "the library's sources were not found"
OURS = re.compile(r"libiotwin_h5|\((" + "|".join(SOURCES) + r")\.c:\d+\)")
# the library's MPI_Init wrappers only forward: MPICH/hwloc's own start-up leak passes them
FORWARDING = re.compile(r"P?MPI_Init(_thread)? \((run\.c:\d+|in [^)]*libiotwin_h5[^)]*)\)")


def ours(record: str) -> bool:
    """A record with a frame in the library other than a forwarding wrapper's."""
    return any(OURS.search(line) and not FORWARDING.search(line)
               for line in record.splitlines())


def loss_records(valgrind_log: str) -> list[str]:
    """Each leak or memory-error record: the lines from its heading to the blank line."""
    records, current = [], []
    for line in valgrind_log.splitlines():
        text = line.split("== ", 1)[-1] if "==" in line else line
        if not text.strip():
            if current:
                records.append("\n".join(current))
            current = []
        else:
            current.append(text)
    return [r for r in records if "lost in loss record" in r or r.startswith("Invalid")]


def test_no_leak_or_memory_error_comes_from_the_interposer(scratch: Path):
    (scratch / "cfg.yaml").write_text(CONFIG)
    report, capture = scratch / "report.jsonl", scratch / "capture.jsonl"
    env = {**os.environ, "LD_PRELOAD": str(paths.interposer_library()),
           "IOTWIN_CONFIG": str(scratch / "cfg.yaml"), "IOTWIN_REPORT": str(report),
           "IOTWIN_CAPTURE": str(capture)}
    done = subprocess.run(
        [*VALGRIND, paths.kernel_binary("vpic-io"), "--file", str(scratch / "v.h5"),
         "--particles", "1000"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "LEAK SUMMARY" in done.stderr or "no leaks are possible" in done.stderr
    assert report.read_text().count('"iotwin_report"') == 1   # the library did its work
    assert report.read_text().count('"iotwin_run"') == 1
    assert capture.read_text().count("\n") == 1
    found = [record for record in loss_records(done.stderr) if ours(record)]
    assert not found, "\n\n".join(found)


#: configs the interposer refuses, one of each way: a field's error names its line, found by
#: walking the document (formats/input_error.c), or the document's
REFUSED = {
    "unknown key": "mpiio:\n  cb_nodes: 2\n  cb_nodez: 2\n",
    "missing key": "files:\n  - mpiio: {cb_nodes: 1}\n",
    "list item": "dataset:\n  chunk_dims: [4, 0]\n",
    "layout": "lustre:\n  components:\n    - {end: 1MiB}\n    - {end: 8MiB}\n",
    "control character": 'mpiio:\n  hints: {"a\\x01": x}\n',
    "not a mapping": "- a\n- b\n",
    "duplicate key": "mpiio: {}\nmpiio: {}\n",
    "malformed": "mpiio: {cb_nodes: 2\nhdf5: [",
}


def test_a_refused_config_leaks_nothing(scratch: Path):
    """The interposer's parser (tests/programs/config_check) on configs it refuses."""
    files = []
    for i, text in enumerate(REFUSED.values()):
        files.append(scratch / f"{i}.yaml")
        files[-1].write_text(text)
    done = subprocess.run(
        [*VALGRIND, paths.built("tests/programs/config_check"), *files],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    verdicts = done.stdout.splitlines()
    assert len(verdicts) == len(REFUSED) and "ok" not in verdicts, done.stdout
    found = [record for record in loss_records(done.stderr) if ours(record)]
    assert not found, "\n\n".join(found)


def test_capture_of_irregular_selections_leaks_nothing(scratch: Path):
    """Points, strided hyperslabs, one rank's writes, an extent change: capture's other paths."""
    capture = scratch / "capture.jsonl"
    env = {**os.environ, "LD_PRELOAD": str(paths.interposer_library()),
           "IOTWIN_CAPTURE": str(capture)}
    done = subprocess.run(
        [*VALGRIND, paths.build_dir() / "tests" / "programs" / "selections_writer",
         str(scratch / "s.h5")], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"runs"' in capture.read_text()
    found = [record for record in loss_records(done.stderr) if ours(record)]
    assert not found, "\n\n".join(found)


def test_the_mpiio_layer_leaks_nothing(scratch: Path):
    """One rank of mpiio_writer: HDF5 and MPI-IO files, subarray, vector, contiguous and
    struct-of-indexed views, hints from files rules, a sync, POSIX writes outside both;
    capture on."""
    (scratch / "cfg.yaml").write_text(
        'mpiio: {cb_buffer_size: 4MiB}\n'
        'files: [{match: "*.dat", mpiio: {romio_cb_write: enable, hints: {a: b}}},'
        ' {match: "none*"}]\n')
    report, capture = scratch / "report.jsonl", scratch / "capture.jsonl"
    env = {**os.environ, "LD_PRELOAD": str(paths.interposer_library()),
           "IOTWIN_CONFIG": str(scratch / "cfg.yaml"), "IOTWIN_REPORT": str(report),
           "IOTWIN_CAPTURE": str(capture)}
    done = subprocess.run(
        [*VALGRIND, paths.build_dir() / "tests" / "programs" / "mpiio_writer",
         str(scratch)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert report.read_text().count('"api": "mpiio"') == 4
    assert capture.read_text().count('"api": "mpiio"') == 4
    assert '"unmatched_rules": [{"rule": "files[1]"' in report.read_text()
    found = [record for record in loss_records(done.stderr) if ours(record)]
    assert not found, "\n\n".join(found)


def test_the_reduction_at_finalize_leaks_nothing(scratch: Path):
    """Three ranks of group_files, each under valgrind: the records held until MPI_Finalize,
    sent to their leaders and merged there (files of the world, of two ranks, of one)."""
    report = scratch / "report.jsonl"
    env = {"LD_PRELOAD": str(paths.interposer_library()), "IOTWIN_REPORT": str(report)}
    logs = scratch / "valgrind.%q{PMI_RANK}"
    done = launch.run_mpi(
        3, [*VALGRIND, f"--log-file={logs}",
            str(paths.built("tests/programs/group_files")), str(scratch)],
        env=env, cwd=scratch, timeout=600, using=launch.launcher("mpich"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert report.read_text().count('"iotwin_report"') == 5
    ranks = sorted(scratch.glob("valgrind.*"))
    assert len(ranks) == 3
    found = [record for log in ranks for record in loss_records(log.read_text())
             if ours(record)]
    assert not found, "\n\n".join(found)


# Open MPI 4.1's MPI_T_init_thread (the MPI-IO layer reads the MCA parameters through it)
# leaks its components' registrations: Open MPI's, whoever calls it
OPEN_MPI_T = "PMPI_T_init_thread"


@pytest.mark.parametrize("mode", ["collective", "independent"])
def test_the_pnetcdf_layer_leaks_nothing(mode: str, scratch: Path):
    """One rank of the PnetCDF program under Open MPI: PnetCDF's hints and the MPI-IO ones
    merged into its info and read back, its writes captured through the MPI-IO layer (in
    independent data mode through the file's second MPI handle, opened by PnetCDF)."""
    (scratch / "cfg.yaml").write_text(
        'files: [{match: "*.nc", mpiio: {cb_nodes: 1, hints: {a: b}},'
        ' pnetcdf: {nc_header_align_size: 4KiB, nc_in_place_swap: enable}}]\n')
    report, capture = scratch / "report.jsonl", scratch / "capture.jsonl"
    env = {**os.environ, "LD_PRELOAD": str(paths.interposer_library("openmpi")),
           "IOTWIN_CONFIG": str(scratch / "cfg.yaml"), "IOTWIN_REPORT": str(report),
           "IOTWIN_CAPTURE": str(capture), "OMPI_ALLOW_RUN_AS_ROOT": "1",
           "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    done = subprocess.run(
        [*VALGRIND, paths.built("openmpi/tests/programs/pnetcdf_block"),
         str(scratch / "out.nc"), "4", "2", mode], env=env, capture_output=True, text=True,
        timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert report.read_text().count('"api": "pnetcdf"') == 1
    assert capture.read_text().count('"api": "pnetcdf"') == 1
    found = [record for record in loss_records(done.stderr)
             if ours(record) and OPEN_MPI_T not in record]
    assert not found, "\n\n".join(found)
