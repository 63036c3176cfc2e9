"""block3d-io run for real: each method at 1, 2, 4 and 8 ranks (8 oversubscribed) writes exactly
the global array in Fortran order, the value of element (i, j, k) its global index
i + NX (j + NY k), so a misplaced, transposed or halo-shifted block shows; --describe states what
the run wrote (bytes, datasets and their order, every rank's selection through the interposer's
capture), iosim maps it to the bytes of the real file (PnetCDF's header and alignment its
model's, each rank's bytes those the capture saw); a bad command line is one line.

MPI-IO and HDF5 run on the MPICH build, netCDF-4 and PnetCDF on the Open MPI build (Debian's
libnetcdf-mpi-dev and libpnetcdf-dev are built on Open MPI), each started by its flavour's
launcher. A PnetCDF file is read back with PnetCDF's own ncmpidump (Debian's pnetcdf-bin).
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest
from iotwin.executors.capture_run import capture_records
from iotwin.executors.launch import launcher, run_mpi
from iotwin.executors.mpi_flavour import Flavour, select_flavour
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate as simulate_workloads
from iotwin.model.sim import simulator_input
from iotwin.workloads.from_capture import merge_records
from support.cdf5 import cdf5_offsets
from support.file_layout import merged, real_extents, simulate
from support.mpiio_capture import captured_bytes

KERNEL = "block3d-io"
BLOCK_XYZ = (5, 4, 3)  # unequal extents: a transposed axis changes the array's shape
BLOCK = "x".join(map(str, BLOCK_XYZ))
# MPI_Dims_create(P, 3), both flavours alike at these sizes: the process counts along x, y, z
GRIDS_XYZ = {1: (1, 1, 1), 2: (2, 1, 1), 4: (2, 2, 1), 8: (2, 2, 2)}
FLAVOUR = {"mpiio": "mpich", "hdf5": "mpich", "netcdf4": "openmpi", "pnetcdf": "openmpi"}
SUFFIX = {"mpiio": ".dat", "hdf5": ".h5", "netcdf4": ".nc", "pnetcdf": ".nc"}
# the workload's api of each method's file: the library's variables, described; what the
# library adds is its model's in iosim (sim-models/WORKLOAD.md, "Described and captured")
API = {"mpiio": "mpiio", "hdf5": "hdf5", "netcdf4": "netcdf4", "pnetcdf": "pnetcdf"}
NC_FILL_DOUBLE = 9.9692099683868690e36  # netcdf.h
H5PY_MPI = Path(sys.prefix) / "h5py-mpi"  # parallel h5py and mpi4py on MPICH (make h5py-mpi)
DEBIAN_PYTHON = "/usr/bin/python3"  # Debian's mpi4py on Open MPI (python3-h5py-mpi)


@dataclass
class Run:
    method: str
    ranks: int
    path: Path
    report: dict[str, Any]
    workload: dict[str, Any]


def flavour(method: str) -> Flavour:
    return select_flavour(FLAVOUR[method])


def kernel_args(method: str, path: Path, *extra: str) -> list[str]:
    binary = flavour(method).kernel(KERNEL)
    return [str(binary), "--block", BLOCK, "--method", method, "--file", str(path), *extra]


def run_block3d(method: str, ranks: int, folder: Path) -> Run:
    path = folder / f"array{SUFFIX[method]}"
    # named relative to the folder it runs in, as a workload's file names are
    args = kernel_args(method, Path(path.name))
    done = run_mpi(ranks, args, cwd=folder, timeout=300,
                   using=launcher(flavour(method).launcher))
    assert done.returncode == 0, done.stderr
    described = describe(*args[1:], "--ranks", str(ranks), binary=args[0])
    return Run(method, ranks, path, json.loads(done.stdout.strip().splitlines()[-1]), described)


def describe(*args: str, binary: str) -> dict[str, Any]:
    done = subprocess.run([binary, "--describe", *args], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def global_dims(ranks: int) -> tuple[int, int, int]:
    """The array's (z, y, x) extents."""
    px, py, pz = GRIDS_XYZ[ranks]
    bx, by, bz = BLOCK_XYZ
    return pz * bz, py * by, px * bx


def expected_array(ranks: int) -> np.ndarray:
    nz, ny, nx = global_dims(ranks)
    k, j, i = np.indices((nz, ny, nx))
    return (i + nx * (j + ny * k)).astype(np.float64)


def file_array(run: Run) -> np.ndarray:
    if run.method == "mpiio":  # nothing but the array, x fastest
        return np.fromfile(run.path, dtype="<f8").reshape(global_dims(run.ranks))
    if run.method == "pnetcdf":
        return pnetcdf_array(run.path)
    with h5py.File(run.path, "r") as f:
        return np.asarray(f["data"][...])


def pnetcdf_array(path: Path) -> np.ndarray:
    """Variable `data` as PnetCDF reads it back (ncmpidump's CDL), after checking the header
    declares it a double over dimensions (z, y, x) of a CDF-5 file."""
    done = subprocess.run(["ncmpidump", "-v", "data", str(path)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    cdl = done.stdout
    assert "// file format: CDF-5" in cdl and "double data(z, y, x) ;" in cdl
    lengths = dict(re.findall(r"\t([zyx]) = (\d+) ;", cdl))
    dims = [int(lengths[name]) for name in "zyx"]
    values = cdl.split(" data =", 1)[1].split(";", 1)[0]
    return np.array([float(v) for v in values.replace("\n", " ").split(",")]).reshape(dims)


def session(workload: dict[str, Any]) -> dict[str, Any]:
    [file_session] = workload["files"]
    return dict(file_session)


def data_selection(workload: dict[str, Any]) -> dict[str, Any]:
    """Who writes which block of /data: the decomposition, or the selection of its write."""
    s = session(workload)
    [data] = [d for d in s["datasets"] if d["name"] == "/data"]
    if "decomposition" in data:
        return dict(data["decomposition"])
    [write] = [c for c in s["calls"] if c.get("write") == ["/data"]]
    [selection] = write["selections"]
    return dict(selection)


def dataset_shape(described: dict[str, Any]) -> list[int]:
    if "dims" in described:
        return list(described["dims"])
    decomposition = described["decomposition"]
    return [g * b for g, b in zip(decomposition["grid"], decomposition["block"], strict=True)]


def written_bytes(workload: dict[str, Any]) -> int:
    s = session(workload)
    written = {name for c in s.get("calls", []) for name in c.get("write", [])}
    return sum(math.prod(dataset_shape(d)) * d["element_bytes"] for d in s["datasets"]
               if "calls" not in s or d["name"] in written)


@pytest.fixture(scope="module", params=["mpiio", "hdf5", "netcdf4", "pnetcdf"])
def method(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module", params=sorted(GRIDS_XYZ))
def ranks(request: pytest.FixtureRequest) -> int:
    return int(request.param)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, int], Run]:
    """Each (method, ranks) run once for the module's tests that read it."""
    @functools.cache
    def made(method: str, ranks: int) -> Run:
        return run_block3d(method, ranks, tmp_path_factory.mktemp(f"{method}-{ranks}"))
    return made


@pytest.fixture(scope="module")
def run(method: str, ranks: int, runs: Callable[[str, int], Run]) -> Run:
    return runs(method, ranks)


@pytest.mark.slow
def test_the_file_holds_exactly_the_global_array(run: Run) -> None:
    array = file_array(run)
    assert array.dtype == np.float64
    np.testing.assert_array_equal(array, expected_array(run.ranks))


@pytest.mark.slow
def test_the_report_counts_the_arrays_bytes_and_says_how_it_wrote(run: Run) -> None:
    report = run.report
    nbytes = math.prod(global_dims(run.ranks)) * 8
    assert (report["kernel"], report["ranks"], report["bytes"]) == (KERNEL, run.ranks, nbytes)
    params = report["params"]
    assert params["method"] == run.method and params["block"] == list(BLOCK_XYZ)
    assert params["halo"] == 2 and params["sync"] is True
    assert params["transfer"] == "collective"
    assert ("netcdf" in params) == (run.method == "netcdf4")
    assert ("pnetcdf" in params) == (run.method == "pnetcdf")
    phases = sum(report[p] for p in ("open_s", "write_s", "sync_s", "close_s"))
    assert report["total_s"] == pytest.approx(phases, abs=1e-5)
    if run.method == "mpiio":
        assert run.path.stat().st_size == nbytes  # the array alone, from offset 0


@pytest.mark.slow
def test_describe_states_the_bytes_and_blocks_the_run_wrote(run: Run) -> None:
    s = session(run.workload)
    assert s["api"] == API[run.method]
    assert written_bytes(run.workload) == run.report["bytes"]
    px, py, pz = GRIDS_XYZ[run.ranks]
    bx, by, bz = BLOCK_XYZ
    assert data_selection(run.workload) == {"grid": [pz, py, px], "block": [bz, by, bx]}


def creation_order(path: Path) -> list[str]:
    """The file's datasets by where HDF5 placed their data (allocated at create in parallel),
    but netCDF-4's dimensions (dimension scales): the program's datasets or variables."""
    with h5py.File(path, "r") as f:
        names = [name for name, obj in f.items() if isinstance(obj, h5py.Dataset)
                 and obj.attrs.get("CLASS") != b"DIMENSION_SCALE"]
        return sorted((f"/{n}" for n in names), key=lambda n: f[n].id.get_offset())


@pytest.mark.slow
def test_described_datasets_are_the_files_in_creation_order(run: Run) -> None:
    described = session(run.workload)["datasets"]
    if run.method == "mpiio":  # nothing but the datasets, end to end from offset 0
        assert run.path.stat().st_size == written_bytes(run.workload)
        return
    if run.method == "pnetcdf":
        variables = cdf5_offsets(run.path).variables
        assert {f"/{name}": end - start for name, (start, end) in variables.items()} == {
            d["name"]: math.prod(dataset_shape(d)) * d["element_bytes"] for d in described}
        return
    assert [d["name"] for d in described] == creation_order(run.path)
    with h5py.File(run.path, "r") as f:
        for d in described:
            dataset = f[d["name"]]
            assert list(dataset.shape) == dataset_shape(d), d["name"]
            assert dataset.dtype.itemsize == d["element_bytes"], d["name"]
            assert dataset.chunks is None and d["chunk_dims"] is None, d["name"]
            user_fill = (dataset.id.get_create_plist().fill_value_defined()
                         == h5py.h5d.FILL_VALUE_USER_DEFINED)
            # absent, a netCDF-4 variable's is netCDF's own (WORKLOAD.md)
            described_fill = d.get("fill_value", "user" if run.method == "netcdf4" else "default")
            assert user_fill == (described_fill == "user"), d["name"]
        if run.method == "netcdf4":
            assert f["data"].fillvalue == pytest.approx(NC_FILL_DOUBLE)


def calls_without_timing(workload: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: v for k, v in call.items() if k != "compute_before_s"}
            for call in session(workload)["calls"]]


def compared_datasets(workload: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(d["name"], dataset_shape(d), d["element_bytes"], d["chunk_dims"],
             d.get("fill_value", "default")) for d in session(workload)["datasets"]]


def capture(method: str, ranks: int, scratch: Path, *extra: str) -> tuple[dict[str, Any],
                                                                         dict[str, Any]]:
    """A run's capture and its description (its file named relative to `scratch`, where it
    runs, as a workload's file names are)."""
    args = kernel_args(method, Path(f"captured{SUFFIX[method]}"), *extra)
    captured = merge_records(capture_records(args, ranks, timeout_s=300, workdir=scratch), KERNEL,
                             " ".join(args))
    return captured, describe(*args[1:], "--ranks", str(ranks), binary=args[0])


@pytest.mark.slow
@pytest.mark.parametrize("ranks", [4, 8])
def test_the_capture_of_an_hdf5_run_says_what_describe_says(ranks: int, scratch: Path) -> None:
    captured, described = capture("hdf5", ranks, scratch, "--sync")
    assert compared_datasets(captured) == compared_datasets(described)
    decomposition = data_selection(described)
    assert calls_without_timing(captured) == [  # one write of the decomposition, the sync's flush
        {"write": ["/data"], "transfer": "collective", "selections": [decomposition]},
        {"flush": True}]


#: how far a netCDF-4 run's capture may simulate from its description: the capture's datasets
#: are typed by their element's size alone (ELEMENT_CLASS_BYTES_PER_DATASET), so the metadata
#: HDF5 writes differs a little (measured with 32^3 blocks: the same time on local, ARCHER and
#: Cirrus at 4 and 8 ranks)
CAPTURE_TOLERANCE = 0.01

#: how many bytes a captured HDF5 file may simulate short of the real one, per dataset: a
#: capture records an element's size, not its class, and iosim makes every dataset of unsigned
#: integers, whose datatype message is 8 bytes shorter than a floating-point type's; the
#: object headers HDF5 sizes from their messages and the space it leaves between metadata
#: blocks move with it (h5stat of netCDF-4's file at 32^3 blocks and of iosim's: 94 bytes of
#: object headers and 23 of unaccounted space, 117 short over its four float datasets; every
#: other object header, the global heap and the link storage alike)
ELEMENT_CLASS_BYTES_PER_DATASET = 40


@dataclass
class NetCDF4Run:
    """A netCDF-4 run of 32^3 blocks captured, its description, and the file of the same run
    without capture."""
    captured: dict[str, Any]
    described: dict[str, Any]
    uncaptured: Path


@pytest.fixture(scope="module")
def netcdf4_runs(tmp_path_factory: pytest.TempPathFactory) -> Callable[[int], NetCDF4Run]:
    """Each rank count's netCDF-4 run of 32^3 blocks, once for the tests that read it."""
    @functools.cache
    def made(ranks: int) -> NetCDF4Run:
        folder = tmp_path_factory.mktemp(f"netcdf4-32-{ranks}")
        block = ("--block", "32x32x32")   # the kernel takes the last --block
        captured, described = capture("netcdf4", ranks, folder, *block)
        args = kernel_args("netcdf4", Path("uncaptured.nc"), *block)
        done = run_mpi(ranks, args, cwd=folder, timeout=300,
                       using=launcher(flavour("netcdf4").launcher))
        assert done.returncode == 0, done.stderr
        return NetCDF4Run(captured, described, folder / "uncaptured.nc")
    return made


@pytest.mark.slow
def test_a_netcdf4_runs_capture_places_its_variable_where_the_file_has_it(
        netcdf4_runs: Callable[[int], NetCDF4Run]) -> None:
    """The capture records the object formats netCDF-4 created the file with (HDF5 1.8's at
    the earliest, links and attributes in tracked and indexed creation order, no object
    times), which decide how much metadata comes before the variable: iosim places the
    captured variable at the real file's offset, as it does the described one. At 32^3 blocks
    HDF5's default formats outgrow the first metadata block (the variable 3,456 bytes later)."""
    netcdf4 = netcdf4_runs(4)
    captured, described = netcdf4.captured, netcdf4.described
    assert session(captured)["hdf5_create"] == {
        "libver_low": "v18", "link_creation_order": "indexed",
        "attr_creation_order": "indexed", "track_times": False}
    with h5py.File(netcdf4.uncaptured, "r") as real:
        offset = real["data"].id.get_offset()
    for workload in (captured, described):
        assert data_ranges(simulated(workload, {}, "openmpi"))[0][0] == offset


#: netCDF-4's attributes as its capture records them (H5Acreate1 and the dimension-scale
#: calls): the dimensions' dimension scales with their ids, the variable's coordinates and
#: its scales attached axis by axis, the file's provenance
NETCDF4_ATTRIBUTES = {("/z", "set_scale"), ("/y", "set_scale"), ("/x", "set_scale"),
                      ("/z", "_Netcdf4Dimid"), ("/y", "_Netcdf4Dimid"), ("/x", "_Netcdf4Dimid"),
                      ("/data", "_Netcdf4Coordinates"), ("/data", "/z"), ("/data", "/y"),
                      ("/data", "/x"), ("/", "_NCProperties")}


def attribute_written(entry: dict[str, Any]) -> tuple[str, str]:
    """(object, what): an attribute's name, the scale attached, or `set_scale`."""
    return entry["object"], entry.get("name") or entry.get("attach_scale") or "set_scale"


@pytest.mark.slow
@pytest.mark.parametrize("ranks", [4, 8])
def test_a_netcdf4_runs_capture_makes_the_files_bytes(
        ranks: int, netcdf4_runs: Callable[[int], NetCDF4Run]) -> None:
    """The capture holds the attributes netCDF-4 writes (its own with H5Acreate1, its
    dimensions' through H5DSset_scale and H5DSattach_scale), which iosim makes again after the
    datasets they follow: HDF5 then writes their metadata, the dimension scales' references in
    a global heap among it, and the captured file has the real file's bytes. Without them it
    was 4,213 bytes short (32^3 blocks, 4 and 8 ranks alike)."""
    netcdf4 = netcdf4_runs(ranks)
    captured = netcdf4.captured
    assert {attribute_written(a) for a in session(captured)["attributes"]} == NETCDF4_ATTRIBUTES
    real = netcdf4.uncaptured.stat().st_size
    short = real - simulated(captured, {}, "openmpi")["breakdown"]["file_bytes"]
    assert 0 <= short <= ELEMENT_CLASS_BYTES_PER_DATASET * len(session(captured)["datasets"])
    without = {key: value for key, value in session(captured).items() if key != "attributes"}
    bare = simulated({**captured, "files": [without]}, {}, "openmpi")["breakdown"]["file_bytes"]
    assert real - bare > 4000  # 4,213: what the attributes' metadata takes


@pytest.mark.slow
@pytest.mark.parametrize("sync", ["--sync", "--no-sync"])
@pytest.mark.parametrize("ranks", [4, 8])
def test_a_netcdf4_runs_capture_and_description_simulate_alike(sync: str, ranks: int,
                                                               scratch: Path) -> None:
    """One answer for netCDF-4: the capture holds what netCDF did through HDF5 (its dimension
    datasets, its flushes, the collective metadata it set on the file), the description
    (`api: netcdf4`) the variables, iosim's netCDF-4 model the rest; both give one time on
    this machine and on a Lustre platform. The capture's compute gaps (the halo copy, the
    loaded machine's) are the run's, not I/O: left out."""
    captured, described = capture("netcdf4", ranks, scratch, sync)
    assert session(captured)["hdf5_access"] == {"coll_metadata_write": True,
                                                "all_coll_metadata_ops": True}
    captured["files"][0]["calls"] = calls_without_timing(captured)
    for platform in ("local", "archer"):
        times = [simulated(w, {}, "openmpi", platform)["time_s"] for w in (captured, described)]
        assert times[0] == pytest.approx(times[1], rel=CAPTURE_TOLERANCE), platform


def simulated(workload: dict[str, Any], config: dict[str, Any], mpi: str,
              platform: str = "local") -> dict[str, Any]:
    result = simulate(simulator_input(load_platform(platform), {**workload, "mpi": mpi}, [config],
                                      {"report_ranges": True}))
    assert result["ok"], result.get("error")
    return result


def data_ranges(result: dict[str, Any], rank: int | None = None) -> list[tuple[int, int]]:
    """The bytes iosim places /data's blocks at (one rank's, or every rank's), merged."""
    [ranges] = [d["ranges"] for d in result["breakdown"]["dataset_ranges"]
                if d["dataset"] == "/data"]
    return merged((offset, length) for offset, length, writer in ranges
                  if rank is None or writer == rank)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["mpiio", "hdf5", "netcdf4", "pnetcdf"])
def test_iosim_maps_the_described_blocks_to_the_files_bytes(
        method: str, runs: Callable[[str, int], Run]) -> None:
    ranks = 4
    run = runs(method, ranks)
    result = simulated(run.workload, {}, FLAVOUR[method])
    if method == "mpiio":
        real = [(0, run.path.stat().st_size)]
    elif method == "pnetcdf":
        start, end = cdf5_offsets(run.path).variables["data"]
        real = [(start, end - start)]
    else:
        with h5py.File(run.path, "r") as f:
            real = merged(real_extents(f["data"]))
    assert data_ranges(result) == real
    assert [sum(n for _, n in data_ranges(result, rank)) for rank in range(ranks)] == [
        math.prod(BLOCK_XYZ) * 8] * ranks
    size = run.path.stat().st_size
    if method in ("mpiio", "pnetcdf"):
        assert result["breakdown"]["file_bytes"] == size
    elif method == "netcdf4":  # within 10 bytes a dimension (tests/sim/test_sim_netcdf4.py)
        assert abs(result["breakdown"]["file_bytes"] - size) < 10 * 3


@pytest.mark.slow
@pytest.mark.parametrize("hints", [{}, {"nc_header_align_size": 4096},
                                   {"nc_header_align_size": 1, "nc_var_align_size": 1000}])
def test_pnetcdfs_alignment_moves_the_blocks_where_iosim_puts_them(hints: dict[str, int],
                                                                    scratch: Path) -> None:
    """Two ranks under the interposer, PnetCDF's alignment hints set by the config: the file
    (ncoffsets) and each rank's captured bytes are what iosim's PnetCDF model makes of the
    description under the same config: the header rank 0 writes, then the variable at the
    header's extent rounded up to nc_var_align_size."""
    ranks = 2
    config = {"pnetcdf": hints} if hints else {}
    args = kernel_args("pnetcdf", Path("captured.nc"))  # as a workload names it: relative
    kept = scratch / "kept"
    records = capture_records(args, ranks, config=config, timeout_s=300, keep=kept,
                              workdir=scratch)
    [record] = [r for r in records if r.get("api") == "pnetcdf"]
    [path] = kept.rglob("captured.nc")
    # the capture is the MPI-IO file PnetCDF wrote, its header among the regions
    assert session(merge_records(records, KERNEL, " ".join(args)))["api"] == "mpiio"
    real = cdf5_offsets(path)
    described = describe(*args[1:], "--ranks", str(ranks), binary=args[0])
    result = simulated(described, config, "openmpi")
    start, end = real.variables["data"]
    assert data_ranges(result) == [(start, end - start)]
    assert result["breakdown"]["file_bytes"] == path.stat().st_size
    header = [(0, real.header_bytes)]
    for rank in range(ranks):
        placed = merged((header if rank == 0 else []) + data_ranges(result, rank))
        assert placed == captured_bytes(record, rank), rank


def without_compute(workload: dict[str, Any]) -> dict[str, Any]:
    """The workload with no compute before its sessions and calls: a description states none,
    a capture the program's own (defining the variables, filling the blocks)."""
    files = [{**f, "compute_before_s": 0,
              "calls": [{k: v for k, v in call.items() if k != "compute_before_s"}
                        for call in f["calls"]]} for f in workload["files"]]
    return {**workload, "files": files}


@pytest.mark.slow
@pytest.mark.parametrize("hints", [{}, {"nc_header_align_size": 4096, "nc_var_align_size": 1000}])
def test_iosim_answers_pnetcdfs_capture_as_its_description(hints: dict[str, int],
                                                           scratch: Path) -> None:
    """One run, two forms (sim-models/WORKLOAD.md, "Described and captured"): its capture
    (`api: mpiio`, PnetCDF's header among the regions, rank 0's lone independent write a call
    of its own) and its description (`api: pnetcdf`, the header the model's) take the same
    time in iosim on `local` and on a Lustre machine, under the same config. The tolerance is
    a rounding error's (1e-9): both forms hand MPI-IO the same calls on the same bytes, and
    iosim is deterministic; the capture that paired the header with the other ranks' first
    collective write was 1.7x slower on `local` and 0.4% on archer."""
    ranks = 4
    config = {"pnetcdf": hints} if hints else {}
    args = kernel_args("pnetcdf", Path("captured.nc"))
    captured = merge_records(capture_records(args, ranks, config=config, timeout_s=300,
                                             workdir=scratch), KERNEL, " ".join(args))
    described = describe(*args[1:], "--ranks", str(ranks), binary=args[0])
    assert session(captured)["api"] == "mpiio" and session(described)["api"] == "pnetcdf"
    for platform in ("local", "archer"):
        results = [simulate_workloads(load_platform(platform), {**form, "mpi": "openmpi"},
                                      [config])[0]
                   for form in (without_compute(captured), described)]
        assert all(r.ok for r in results), [r.error for r in results]
        assert results[0].time_s == pytest.approx(results[1].time_s, rel=1e-9), platform


def mpi_dims(python: str, python_path: Path | None, sizes: list[int]) -> list[list[int]]:
    """MPI_Dims_create(n, 3) of each size, asked through the mpi4py ``python`` imports."""
    code = ("import json, sys\nfrom mpi4py import MPI\n"
            "print(json.dumps([MPI.Compute_dims(n, 3) for n in json.loads(sys.argv[1])]))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if python_path:
        env["PYTHONPATH"] = str(python_path)
    done = subprocess.run([python, "-c", code, json.dumps(sizes)], capture_output=True,
                          text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


@pytest.mark.slow
def test_the_process_grid_is_the_one_each_mpi_gives() -> None:
    sizes = [3, 12, 36, 96, 720, 1536, 2310, 6144, 24576]
    answers = {
        "mpich": mpi_dims(sys.executable, H5PY_MPI, sizes),
        "openmpi": mpi_dims(DEBIAN_PYTHON, None, sizes),
    }
    assert answers["mpich"] != answers["openmpi"]  # 720: 10x9x8 against 12x10x6
    for name, dims in answers.items():
        binary = str(select_flavour(name).kernel(KERNEL))
        for size, xyz in zip(sizes, dims, strict=True):
            workload = describe("--ranks", str(size), "--block", "8", binary=binary)
            assert data_selection(workload)["grid"] == xyz[::-1], (name, size)


@pytest.mark.parametrize(("args", "message"), [
    (["--block", "4x4"], "--block: '4x4' is not 3 positive integers"),
    (["--block", "0"], "--block: '0' is not 3 positive integers"),
    (["--halo", "-1"], "--halo: '-1' is not a non-negative integer"),
    (["--method", "adios2"], "--method: 'adios2' is not one of hdf5, mpiio, netcdf4, pnetcdf"),
    (["--method", "netcdf4"], "--method netcdf4: this build has no parallel netCDF-4: Debian's "
                              "libnetcdf-mpi-dev is built on Open MPI"),
    (["--method", "pnetcdf"], "--method pnetcdf: this build has no PnetCDF: Debian's "
                              "libpnetcdf-dev is built on Open MPI"),
    (["--describe", "--ranks", "3000000000"], "3000000000 ranks over 3 axes is beyond "
                                              "MPI_Dims_create"),
])
def test_bad_options_are_one_line_and_exit_2(args: list[str], message: str,
                                             scratch: Path) -> None:
    binary = select_flavour("mpich").kernel(KERNEL)
    done = subprocess.run([str(binary), "--file", str(scratch / "out.h5"), *args],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.startswith(f"{KERNEL}: error: ") and message in done.stderr
    assert done.stderr.count("\n") == 1
    assert not (scratch / "out.h5").exists()


@pytest.mark.slow
def test_a_bad_option_under_open_mpis_launcher_is_reported_once(scratch: Path) -> None:
    binary = select_flavour("openmpi").kernel(KERNEL)
    done = run_mpi(2, [binary, "--method", "adios2"], cwd=scratch, timeout=60,
                   using=launcher("openmpi"))
    assert done.returncode != 0
    assert done.stderr.count("--method: 'adios2' is not one of") == 1


@pytest.mark.parametrize("method", ["netcdf4", "pnetcdf"])
def test_a_library_is_described_by_the_build_that_cannot_run_it(method: str) -> None:
    """The simulator asks the MPICH build too: its description of a netCDF-4 or PnetCDF run is
    the Open MPI build's (both give 2x2x2 at 8 ranks)."""
    args = ["--ranks", "8", "--block", BLOCK, "--method", method]
    by_mpich = describe(*args, binary=str(select_flavour("mpich").kernel(KERNEL)))
    by_openmpi = describe(*args, binary=str(select_flavour("openmpi").kernel(KERNEL)))
    assert session(by_mpich) == session(by_openmpi)
