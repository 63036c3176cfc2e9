"""The kernels' command line: bad input, --help, --describe at any scale, sync, shared HDF5."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from iotwin.core import paths
from iotwin.executors.launch import run_mpi

KERNELS = ["vpic-io", "vorpal-io", "gcrm-io", "block3d-io"]
PAPER_SCALE_RANKS = 298048  # VPIC-IO on Blue Waters


def run_kernel(kernel: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([paths.kernel_binary(kernel), *args], capture_output=True, text=True,
                          timeout=60, check=False)


def describe(kernel: str, *args: str) -> dict[str, Any]:
    done = run_kernel(kernel, "--describe", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def datasets(workload: dict[str, Any]) -> list[dict[str, Any]]:
    (file_session,) = workload["files"]
    return file_session["datasets"]


@pytest.mark.parametrize(("kernel", "args", "message"), [
    ("vpic-io", ["--bogus"], "unknown option '--bogus'"),
    ("vpic-io", ["--particles", "many"], "--particles: 'many' is not a positive integer"),
    ("vpic-io", ["--particles", "0"], "--particles: '0' is not a positive integer"),
    ("vpic-io", ["--particles"], "--particles needs a value"),
    ("vpic-io", ["--sync=yes"], "--sync takes no value"),
    ("vpic-io", ["stray"], "unexpected argument 'stray'"),
    ("vorpal-io", ["--block", "100x100"], "--block: '100x100' is not 3 positive integers"),
    ("vorpal-io", ["--describe", "--ranks", "4", "--procs", "3x1x1"],
     "--procs 3x1x1 makes 3 processes, the run has 4 ranks"),
    ("gcrm-io", ["--resolution", "2", "--subdomain-resolution", "3"],
     "--subdomain-resolution 3 is above --resolution 2"),
    ("gcrm-io", ["--cell-vars", "0", "--edge-vars", "0", "--corner-vars", "0"],
     "nothing to write"),
])
def test_bad_arguments_are_named_and_exit_2(kernel: str, args: list[str], message: str,
                                            scratch: Path) -> None:
    done = run_kernel(kernel, "--file", str(scratch / "out.h5"), *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stderr.startswith(f"{kernel}: error: ")
    assert not (scratch / "out.h5").exists()


@pytest.mark.slow
def test_bad_arguments_under_mpiexec_are_reported_once(scratch: Path) -> None:
    done = run_mpi(2, [paths.kernel_binary("vpic-io"), "--bogus"], cwd=scratch, timeout=60)
    assert done.returncode != 0
    assert done.stderr.count("unknown option '--bogus'") == 1


@pytest.mark.parametrize("kernel", KERNELS)
def test_help_lists_common_and_kernel_options(kernel: str) -> None:
    done = run_kernel(kernel, "--help")
    assert done.returncode == 0
    for option in ("--file", "--independent", "--no-sync", "--describe", "--ranks"):
        assert option in done.stdout
    own = {"vpic-io": "--particles", "vorpal-io": "--block", "gcrm-io": "--resolution",
           "block3d-io": "--halo"}
    assert own[kernel] in done.stdout


@pytest.mark.parametrize("kernel", KERNELS)
def test_linked_against_shared_hdf5_so_the_interposer_can_preload(kernel: str) -> None:
    libraries = subprocess.run(["ldd", paths.kernel_binary(kernel)], capture_output=True,
                               text=True, check=True).stdout
    assert "libhdf5_mpich.so" in libraries


def test_vpic_described_at_paper_scale_stays_compact() -> None:
    workload = describe("vpic-io", "--ranks", str(PAPER_SCALE_RANKS), "--particles", "8388608")
    assert workload["ranks"] == PAPER_SCALE_RANKS
    for dataset in datasets(workload):
        assert dataset["decomposition"] == {"grid": [PAPER_SCALE_RANKS], "block": [8388608]}
    element_bytes = sum(d["element_bytes"] for d in datasets(workload))
    assert element_bytes == 32  # 6 floats + 2 ints per particle


def test_vorpal_uneven_at_paper_scale_lists_extents_per_axis_only() -> None:
    workload = describe("vorpal-io", "--ranks", str(PAPER_SCALE_RANKS), "--uneven")
    decomposition = datasets(workload)[0]["decomposition"]
    grid = decomposition["grid"]
    assert math.prod(grid) == PAPER_SCALE_RANKS
    assert [len(e) for e in decomposition["extents"]] == grid
    assert {x for e in decomposition["extents"] for x in e} == {45, 60, 75, 100, 125}


def test_gcrm_at_paper_scale_owns_whole_subdomains() -> None:
    workload = describe("gcrm-io", "--ranks", str(PAPER_SCALE_RANKS), "--resolution", "12",
                        "--subdomain-resolution", "9")
    cells = datasets(workload)[0]
    assert cells["decomposition"] == {"grid": [PAPER_SCALE_RANKS, 1, 1],
                                      "dims": [10 * 4**9, 4**3, 25]}
    assert cells["chunk_dims"] == [1, 4**3, 25]


@pytest.mark.parametrize(("ranks", "grid"), [
    (1, [1, 1, 1]), (6, [3, 2, 1]), (7, [7, 1, 1]), (8, [2, 2, 2]), (12, [3, 2, 2]),
    (36, [4, 3, 3]), (128, [8, 4, 4]),
])
def test_default_process_grid_is_what_mpi_dims_create_gives(ranks: int, grid: list[int]) -> None:
    workload = describe("vorpal-io", "--ranks", str(ranks))
    assert datasets(workload)[0]["decomposition"]["grid"] == grid


def test_explicit_process_grid_is_given_x_first() -> None:
    workload = describe("vorpal-io", "--ranks", "6", "--procs", "1x2x3", "--block", "10x20x30")
    assert datasets(workload)[0]["decomposition"] == {"grid": [3, 2, 1], "block": [30, 20, 10]}


def test_describe_carries_the_run_choices() -> None:
    workload = describe("vpic-io", "--ranks", "3", "--independent", "--no-sync", "--one-call",
                        "--file", "out/p.h5")
    (file_session,) = workload["files"]
    assert file_session["name"] == "out/p.h5"
    assert file_session["write_calls"] == "one-call"
    assert file_session["flushes"] == 0
    assert {d["transfer"] for d in file_session["datasets"]} == {"independent"}


@pytest.mark.slow
def test_one_call_is_refused_where_hdf5_has_no_multi_dataset_write(scratch: Path) -> None:
    binary = paths.kernel_binary("vpic-io")
    probe = run_mpi(1, [binary, "--particles", "8", "--no-sync"], cwd=scratch, timeout=60)
    version = tuple(int(x) for x in json.loads(probe.stdout)["params"]["hdf5"].split("."))
    done = run_mpi(1, [binary, "--particles", "8", "--one-call"], cwd=scratch, timeout=60)
    if version >= (1, 14, 0):
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["params"]["one_call"] is True
    else:
        assert done.returncode == 2
        assert "H5Dwrite_multi" in done.stderr


def fsync_calls(scratch: Path, *kernel_args: str) -> int:
    trace = scratch / "trace"
    command = ["strace", "-f", "-e", "trace=fsync,fdatasync", "-o", str(trace), "mpiexec.mpich",
               "-n", "2", str(paths.kernel_binary("vpic-io")), "--particles", "64", *kernel_args]
    subprocess.run(command, cwd=scratch, capture_output=True, check=True, timeout=120)
    return sum(1 for line in trace.read_text().splitlines()
               if "fsync(" in line and "resumed" not in line)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_sync_reaches_fsync_on_every_rank(scratch: Path) -> None:
    assert fsync_calls(scratch, "--sync") >= 2
    assert fsync_calls(scratch, "--no-sync") == 0
