"""netCDF-4 over parallel HDF5 in iosim (`api: netcdf4`, sim-models/src/iolib/netcdf4.hpp): where
netCDF-4's defaults differ from HDF5's. Its fill value makes parallel HDF5 fill a contiguous
variable from rank 0 before the data; its variables are written independently, one write per
contiguous run, unless the program asks for collective access; nc_enddef and nc_close flush;
its dimensions are datasets of their own before the variables, attached to them as dimension
scales, laid out as the real library lays them out, to the file's last byte."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import h5py
import pytest
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.executors import launch
from iotwin.model.platforms import load_platform
from iotwin.workloads.workload import validate_workload
from support.small_platform import MiB, run, small_platform

N = 16  # each rank a 16^3 block of doubles: 256 runs of 128 bytes
RANKS = 8
PAYLOAD = RANKS * N**3 * 8  # 256 KiB


def block3d(api: str, ranks_per_node: int = 1, **dataset: Any) -> dict[str, Any]:
    return {"iotwin_workload": 1, "name": "b3", "ranks": RANKS, "ranks_per_node": ranks_per_node,
            "files": [{"name": "b3.nc", "api": api, "datasets": [
                {"name": "/data", "element_bytes": 8,
                 "decomposition": {"grid": [2, 2, 2], "block": [N, N, N]}, **dataset}]}]}


def base_of(result: Any) -> int:
    return min(r[0] for r in result.breakdown["dataset_ranges"][0]["ranges"])


def test_by_default_rank_0_fills_the_variable_then_every_rank_writes_its_rows_alone() -> None:
    [nc] = run(small_platform(), block3d("netcdf4"), write_paths=True)
    bd = nc.breakdown
    assert bd["payload_bytes"] == PAYLOAD
    assert sum(bd["bytes_per_target"]) == 2 * PAYLOAD  # the fill, then the data
    assert bd["write_paths"] == ["independent"]
    fills = -(-PAYLOAD // MiB)  # rank 0's 1 MiB fill writes (H5D__contig_fill)
    assert bd["posix"]["writes"] == fills + RANKS * N * N
    assert bd["sieve_read_bytes"] == 0


def test_collective_access_and_nofill_leave_the_data_write_of_hdf5() -> None:
    # nc_var_par_access(NC_COLLECTIVE) and nc_set_fill(NC_NOFILL) (HDF5 fill time never)
    nc, nofill = (run(small_platform(), block3d("netcdf4", transfer="collective", **extra),
                      report_ranges=True, write_paths=True)[0]
                  for extra in ({}, {"fill_time": "never"}))
    [h5] = run(small_platform(), block3d("hdf5", transfer="collective"),
               report_ranges=True, write_paths=True)
    for result in (nc, nofill, h5):
        assert result.breakdown["write_paths"] == ["two-phase"]
    assert sum(nc.breakdown["bytes_per_target"]) == 2 * PAYLOAD
    assert sum(nofill.breakdown["bytes_per_target"]) == PAYLOAD
    # the three dimension datasets (16 B, 32 B, 32 B of floats) come before the variable
    assert base_of(nofill) > base_of(h5)


def test_enddef_and_close_flush_the_file_the_close_waiting_for_the_data() -> None:
    # `local`: HDF5's close leaves the data in the page cache (close_flushes false); netCDF's
    # nc_close calls H5Fflush first, whose MPI_File_sync waits until it is on the disk. HDF5
    # is given netCDF's collective metadata, so that the syncs are the difference.
    local = load_platform("local")
    big = {"decomposition": {"grid": [2, 2, 2], "block": [64, 64, 64]}}
    coll_metadata = {"hdf5": {"coll_metadata_write": True, "all_coll_metadata_ops": True}}
    [nc] = run(local, block3d("netcdf4", transfer="collective", fill_time="never", **big))
    [h5] = run(local, block3d("hdf5", transfer="collective", **big), coll_metadata)
    flush_s = 16 * MiB / (local.data["filesystem"]["target_mbs"] * 1e6)
    # the flush at close: the page cache holds the data until that fsync writes it back
    # (dirty_pages.hpp), in requests merged up to the block layer's 4 MiB (request_merging.hpp)
    assert nc.phases["close"] > h5.phases["close"] + 0.25 * flush_s
    # one collective metadata write per flush: nc_enddef's, nc_close's (H5Fflush), then
    # H5Fclose's, as HDF5's close's
    assert nc.breakdown["posix"]["metadata_writes"] == 3
    assert h5.breakdown["posix"]["metadata_writes"] == 1


def test_a_config_turns_netcdfs_collective_metadata_off() -> None:
    plat = small_platform(metadata_io_s=0.01)
    workload = block3d("netcdf4", ranks_per_node=4, transfer="collective", fill_time="never")
    coll, independent = run(plat, workload, {}, {
        "hdf5": {"coll_metadata_write": False, "all_coll_metadata_ops": False}})
    # every node's client reads the superblock (2 nodes), and each entry is its own write
    assert independent.phases["open"] == pytest.approx(coll.phases["open"] + 0.01, rel=1e-6)
    writes = [r.breakdown["posix"]["metadata_writes"] for r in (coll, independent)]
    assert writes[0] == 3 < writes[1]


NETCDF_SHAPES = [[40, 30, 20], [40, 30, 20], [7, 9], [1000]]


def netcdf_file(out: Path, shapes: list[list[int]], *options: str) -> Path:
    """The file tests/programs/netcdf_shapes makes of variables v0, v1, ... of `shapes`."""
    program = paths.build_dir() / "openmpi" / "tests" / "programs" / "netcdf_shapes"
    done = launch.run_mpi(1, [program, *options, out, *("x".join(map(str, s)) for s in shapes)],
                          using=launch.launcher("openmpi"), timeout=120)
    assert done.returncode == 0, done.stderr
    return out


def shapes_workload(shapes: list[list[int]]) -> dict[str, Any]:
    """The variables netcdf_file makes, described."""
    return {"iotwin_workload": 1, "name": "shapes", "ranks": 1, "files": [
        {"name": "shapes.nc", "api": "netcdf4", "datasets": [
            {"name": f"/v{i}", "element_bytes": 8,
             "decomposition": {"grid": [1] * len(s), "block": s}}
            for i, s in enumerate(shapes)]}]}


def test_the_variables_lie_where_netcdf_puts_them(tmp_path: Path) -> None:
    out = netcdf_file(tmp_path / "shapes.nc", NETCDF_SHAPES)
    with h5py.File(out, "r") as f:
        real = [f[f"v{i}"].id.get_offset() for i in range(len(NETCDF_SHAPES))]
    workload = shapes_workload(NETCDF_SHAPES)
    [sim] = run(small_platform(), workload, report_ranges=True)
    simulated = [d["ranges"][0][0] for d in sim.breakdown["dataset_ranges"]]
    assert simulated == real
    # and the file ends where the real one does: the dimension scales' references (a 4 KiB
    # global heap collection for DIMENSION_LIST) and _NCProperties, written at nc_enddef after
    # the data. What is left (iosim's file 58 bytes longer than netCDF's 408,888; h5stat and
    # h5dump -H of both) is two things that cancel in part. netCDF's object headers are 138
    # bytes larger: its variables are doubles, whose datatype message is 8 bytes longer than
    # that of the unsigned integers iosim types a described variable as, and v3's
    # _Netcdf4Coordinates is a one-element array where iosim's model writes a scalar (the
    # headers' chunks are sized from their messages). And netCDF's file has 196 bytes less
    # space that HDF5 freed between its metadata blocks and no longer tracks (h5stat's
    # "unaccounted space"), which moves with the length of the dimensions' names: with the
    # model's dim0..dim5, netCDF's file has 146 bytes more of it, and is 88 bytes longer
    # than iosim's. Under 10 bytes a dimension.
    dimensions = sum(len(shape) for shape in NETCDF_SHAPES[1:])  # v0 and v1 share theirs
    assert abs(sim.breakdown["file_bytes"] - out.stat().st_size) < 10 * dimensions
    # netCDF's own objects move the data: HDF5 alone puts the first variable elsewhere
    workload["files"][0]["api"] = "hdf5"
    [plain] = run(small_platform(), workload, report_ranges=True)
    assert plain.breakdown["dataset_ranges"][0]["ranges"][0][0] != real[0]


# the name of a dimension in iosim's netCDF-4 model: "dim" and its id
MODEL_DIMENSION_PREFIX = "dim"
# a hard link's message in a version 2 object header tracking creation order (HDF5's file
# format): its 6-byte header, then version, flags, creation order (8), the name's length (1),
# the name, the object's address (8)
LINK_MESSAGE_BYTES = 6 + 1 + 1 + 8 + 1 + 8


@pytest.mark.parametrize("prefix", ["d", MODEL_DIMENSION_PREFIX])
def test_the_file_ends_where_netcdf_ends_it_with_the_dimensions_named_alike(
        prefix: str, tmp_path: Path) -> None:
    """One variable over three dimensions. Named as iosim's model names them, netCDF's file has
    iosim's size to the byte. Named shorter, the root group's first header chunk holds its four
    links and the continuation message _NCProperties needs, and the file is shorter by the
    link message that iosim's model, with its longer names, moves into the continuation chunk:
    the first dimension's (sim-models/WORKLOAD.md, "Described and captured")."""
    shape = [[40, 30, 20]]
    out = netcdf_file(tmp_path / "one.nc", shape, "--dimension-prefix", prefix)
    [sim] = run(small_platform(), shapes_workload(shape))
    first_dimension = f"{MODEL_DIMENSION_PREFIX}0"
    moved = 0 if prefix == MODEL_DIMENSION_PREFIX else LINK_MESSAGE_BYTES + len(first_dimension)
    assert sim.breakdown["file_bytes"] == out.stat().st_size + moved


def test_api_netcdf4_is_a_workload_api_and_a_misspelt_one_is_refused() -> None:
    assert validate_workload(block3d("netcdf4"), "w.yaml")["files"][0]["api"] == "netcdf4"
    with pytest.raises(UserError, match=r"w.yaml: files\[0\].api: expected one of"):
        validate_workload(block3d("netcdf"), "w.yaml")
