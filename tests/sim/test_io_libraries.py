"""One answer to "which library, through which layers" for every workload `api`:
data/io-libraries.yaml, read by the search spaces, agrees with iosim's registry of I/O
library models (`iosim --io-libraries`) and with the workload schema's `api` values; a
netCDF-4 program is searched over the HDF5 parameters an HDF5 program is."""

from __future__ import annotations

import json
import subprocess

from iotwin.core import paths
from iotwin.core.io_libraries import apis_through, io_libraries
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
