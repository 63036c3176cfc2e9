"""One answer to "which library, through which layers" for every workload `api`:
data/io-libraries.yaml, read by the search spaces, agrees with iosim's registry of I/O
library models (`iosim --io-libraries`) and with the workload schema's `api` values; a
netCDF-4 program is searched over the HDF5 parameters an HDF5 program is; a library's capture
takes an api of the layers below it; PnetCDF's model lays its variables out after the header
as its alignment hints say."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest
from iotwin.core import paths
from iotwin.core.io_libraries import apis_through, io_libraries
from iotwin.model.platforms import load_platform
from iotwin.model.sim import run_iosim, simulator_input
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.workloads.workload import workload_schema


def test_iosim_simulates_each_api_with_the_tables_model() -> None:
    done = subprocess.run([str(paths.simulator_binary()), "--io-libraries"], capture_output=True,
                          text=True, check=True)
    assert json.loads(done.stdout) == {api: row.model for api, row in io_libraries().items()}


def test_the_table_names_every_api_of_the_workload_format() -> None:
    api = workload_schema().records["file"]["api"]
    assert set(api.values) == set(io_libraries())


def test_netcdf4_goes_through_hdf5_and_posix_through_no_mpiio() -> None:
    assert {"hdf5", "netcdf4"} <= apis_through("hdf5")
    assert "posix" not in apis_through("mpiio") | apis_through("hdf5")


def test_a_netcdf4_program_is_searched_over_hdf5s_parameters() -> None:
    def keys(api: str) -> set[str]:
        bound = load_space("local").bind(SpaceContext(filesystem="ufs", ranks=4, apis=(api,)))
        return {key for gene in bound.genes for key in gene.keys}
    assert keys("netcdf4") == keys("hdf5")
    assert {key.split(".")[0] for key in keys("netcdf4")} >= {"hdf5", "dataset"}


def test_a_librarys_capture_is_of_a_layer_its_writes_go_through() -> None:
    libraries = io_libraries()
    assert (libraries["pnetcdf"].captured_as, libraries["netcdf4"].captured_as) == ("mpiio", "hdf5")
    for library in libraries.values():
        assert set(libraries[library.captured_as].through) <= set(library.through), library.api


# Two variables of two shapes, so four dimensions, the second one 6 bytes long (not a multiple
# of 4): its CDF-5 header is 12 (magic, record count) + 12 + 4 x 20 (dimension list: a name of
# at most 4 characters 12, a length 8) + 12 (no global attribute) + 12 (variable list)
# + 76 for /a (name 12, dimension count 8, 3 ids 24, no attribute 12, type 4, size 8, begin 8)
# + 60 for /b (one id) = 264 bytes.
PNETCDF = {"iotwin_workload": 1, "name": "p", "ranks": 2, "mpi": "openmpi", "files": [
    {"name": "p.nc", "api": "pnetcdf", "datasets": [
        {"name": "/a", "element_bytes": 8,
         "decomposition": {"grid": [1, 1, 2], "block": [3, 4, 5]}},
        {"name": "/b", "element_bytes": 1, "decomposition": {"grid": [2], "block": [3]}}]}]}
HEADER = 264
SIZES = {"/a": 960, "/b": 6}


def _placed(hints: dict[str, Any]) -> tuple[dict[str, int], dict[str, Any]]:
    plain = {"mpiio": {"romio_cb_write": "disable", "romio_ds_write": "disable"}}
    [result] = run_iosim(simulator_input(load_platform("local"), PNETCDF,
                                         [{**plain, "pnetcdf": hints}], {"report_ranges": True}),
                         jobs=1)
    assert result["ok"], result.get("error")
    breakdown = result["breakdown"]
    return ({d["dataset"]: min(r[0] for r in d["ranges"]) for d in breakdown["dataset_ranges"]},
            breakdown)


@pytest.mark.parametrize(("hints", "a", "b"), [
    ({}, 512, 1472),                            # the header's extent on 512, /b right after /a
    ({"nc_header_align_size": 100}, 300, 1260),  # 264 rounded up to 100
    ({"nc_header_align_size": 1}, 264, 1224),    # every alignment a multiple of 4
    ({"nc_var_align_size": 1000}, 1000, 2000),   # each variable on a multiple of 1000
    ({"nc_var_align_size": 6}, 512, 1472),       # 6 rounded up to 8
    ({"nc_record_align_size": 4096}, 512, 1472),  # no record variable: nothing moves
])
def test_pnetcdfs_variables_begin_where_its_alignment_puts_them(hints: dict[str, Any], a: int,
                                                                 b: int) -> None:
    begins, breakdown = _placed(hints)
    assert begins == {"/a": a, "/b": b}
    assert breakdown["file_bytes"] == b + SIZES["/b"]
    # rank 0's header beside the variables: nothing written twice, nothing in the padding
    assert sum(breakdown["bytes_per_target"]) == HEADER + sum(SIZES.values())
    assert breakdown["payload_bytes"] == sum(SIZES.values())


def test_one_batch_places_each_configs_pnetcdf_variables_by_its_own_hints() -> None:
    # configs differing only in the pnetcdf block: the layout cache keys on that block too
    plain = {"mpiio": {"romio_cb_write": "disable", "romio_ds_write": "disable"}}
    configs = [{**plain, "pnetcdf": hints} for hints in
               ({}, {"nc_header_align_size": 100}, {"nc_var_align_size": 1000}, {})]
    results = run_iosim(simulator_input(load_platform("local"), PNETCDF, configs, {}), jobs=1)
    assert [r["breakdown"]["file_bytes"] for r in results] == [1478, 1266, 2006, 1478]
