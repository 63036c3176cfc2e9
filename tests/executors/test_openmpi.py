"""Programs of Debian's Open MPI stack: iotwin finds the MPI flavour of the HDF5 a program
loads (of its MPI library when it loads no HDF5), runs it under that flavour's launcher and
interposer, reads back what OMPIO did with the settings, captures its workload and simulates
it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.mpi_flavours import select_flavour
from iotwin.core.run_records import Target
from iotwin.executors.mpi_flavour import choose_flavour, flavour_of
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.workloads.workload import load_workload
from support.programs import REPO_ROOT

ROOT = REPO_ROOT
FIELD_SCRIPT = ROOT / "tests" / "programs" / "h5py_field.py"
DEBIAN_PYTHON = "/usr/bin/python3"  # with Debian's python3-h5py-mpi (Open MPI)
CONFIG = "mpiio:\n  cb_nodes: 1\n  romio_cb_write: enable\n  cb_buffer_size: 1MiB\n"


def openmpi_program(name: str) -> Path:
    return paths.build_dir() / "openmpi" / "tests" / "programs" / name


def iotwin(*words: str, cwd: Path, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environment.update({"PYTHONPATH": str(ROOT / "tuner"), **(env or {})})
    return subprocess.run([sys.executable, "-m", "iotwin", *words], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=600)


def test_the_flavour_is_the_one_of_the_hdf5_a_program_loads() -> None:
    no_path = {"PYTHONPATH": ""}
    assert flavour_of(Target(4, command=(DEBIAN_PYTHON, str(FIELD_SCRIPT))), no_path).name \
        == "openmpi"
    assert flavour_of(Target(4, command=(str(openmpi_program("netcdf_field")), "x.nc"))).name \
        == "openmpi"
    mpich_example = paths.build_dir() / "tests" / "programs" / "ph5example"
    assert flavour_of(Target(4, command=(str(mpich_example),))).name == "mpich"
    assert flavour_of(Target(4, kernel="vpic-io")).name == "mpich"
    with pytest.raises(UserError, match=r"loads libhdf5_serial.*not a parallel HDF5"):
        flavour_of(Target(4, command=("/usr/bin/h5dump", "x.h5")))
    assert flavour_of(Target(4, command=("/usr/bin/h5dump",)), {"IOTWIN_MPI": "openmpi"}).name \
        == "openmpi"  # chosen, not looked up
    assert flavour_of(Target(2, command=("true",))).name == "mpich"  # no HDF5: the default
    with pytest.raises(UserError, match="unknown MPI flavour 'lam'"):
        flavour_of(Target(2, command=("true",)), {"IOTWIN_MPI": "lam"})


def test_a_program_without_hdf5_runs_under_the_flavour_of_its_mpi() -> None:
    """A PnetCDF program (Debian's PnetCDF is built on Open MPI) and an MPI-IO program of the
    MPICH build load no HDF5: each runs under the flavour of the MPI library it loads."""
    pnetcdf = Target(4, command=(str(openmpi_program("pnetcdf_block")), "x.nc"))
    assert choose_flavour(pnetcdf) == (select_flavour("openmpi"),
                                       "loads no HDF5; its MPI is libmpi.so.40")
    mpiio = Target(4, command=(str(paths.build_dir() / "tests" / "programs" / "ior_like"),))
    assert choose_flavour(mpiio) == (select_flavour("mpich"),
                                     "loads no HDF5; its MPI is libmpich.so.12")


def test_every_flavour_has_its_interposer_and_kernels_built() -> None:
    for build in (".", "openmpi"):
        assert paths.interposer_library(build).is_file()
        for kernel in ("vpic-io", "vorpal-io", "gcrm-io", "block3d-io", "replay"):
            assert paths.kernel_binary(kernel, build).is_file()
    done = subprocess.run(["ldd", str(paths.interposer_library("openmpi"))],
                          capture_output=True, text=True, check=True)
    assert "libhdf5_openmpi" in done.stdout and "libmpich" not in done.stdout


def test_debian_h5py_under_ompio_reports_the_romio_hints_it_ignores(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(CONFIG)
    # 2 ranks, each an interpreter loading h5py: what OMPIO reports does not depend on them
    done = iotwin("run", "--ranks", "2", "--config", "c.yaml", "--store", "s.db", "--json",
                  "--", DEBIAN_PYTHON, str(FIELD_SCRIPT), "f.h5", "--steps", "2",
                  "--compute-s", "0", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "runs under Open MPI (loads libhdf5_openmpi.so" in done.stderr
    result = json.loads(done.stdout)
    mpi_io = result["reports"][0]["effective"]["mpi_io"]
    assert mpi_io["component"] == "ompio" and mpi_io["library"].startswith("Open MPI")
    assert mpi_io["mca"]["io_ompio_num_aggregators"] == -1  # OMPIO's own choice
    outcomes = {s["key"]: s for s in result["settings"]}
    for read in ("mpiio.cb_nodes", "mpiio.cb_buffer_size"):  # OMPIO's aggregators, buffer
        assert outcomes[read]["took_effect"]
    assert not outcomes["mpiio.romio_cb_write"]["took_effect"]
    assert "OMPIO ignores ROMIO hints" in outcomes["mpiio.romio_cb_write"]["reason"]


def test_open_mpi_parameters_of_the_config_reach_the_program_and_are_read_back(
        tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(
        "openmpi: {io: ompio, fcoll: two_phase, num_aggregators: 2, bytes_per_agg: 4MiB}\n"
        "mpiio: {cb_buffer_size: 1MiB}\n")
    done = iotwin("run", "--ranks", "4", "--config", "c.yaml", "--store", "s.db", "--json",
                  "--", DEBIAN_PYTHON, str(FIELD_SCRIPT), "f.h5", "--steps", "1",
                  "--compute-s", "0", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    mca = result["reports"][0]["effective"]["mpi_io"]["mca"]
    assert mca["fcoll"] == "two_phase" and mca["io_ompio_num_aggregators"] == 2
    outcomes = {s["key"]: s for s in result["settings"]}
    for key, value in (("openmpi.io", "ompio"), ("openmpi.fcoll", "two_phase"),
                       ("openmpi.num_aggregators", "2")):
        assert outcomes[key]["took_effect"] and outcomes[key]["effective"] == value
    # the file's cb_buffer_size hint is OMPIO's collective buffer, over the MCA parameter
    assert not outcomes["openmpi.bytes_per_agg"]["took_effect"]
    assert "cb_buffer_size hint" in outcomes["openmpi.bytes_per_agg"]["reason"]


def test_open_mpi_parameters_say_where_they_do_not_apply(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("openmpi: {io: romio321, fcoll: vulcan}\n")
    under_romio321 = iotwin("run", "--ranks", "2", "--config", "c.yaml", "--store", "s.db",
                            "--json", "--", str(openmpi_program("ph5example")), "-c",
                            cwd=tmp_path)
    assert under_romio321.returncode == 0, under_romio321.stderr
    outcomes = {s["key"]: s for s in json.loads(under_romio321.stdout)["settings"]}
    assert outcomes["openmpi.io"]["took_effect"]
    assert "the io component is romio321" in outcomes["openmpi.fcoll"]["reason"]
    under_mpich = iotwin("run", "vpic-io", "--ranks", "2", "--config", "c.yaml", "--store",
                         "s.db", "--json", "--", "--particles", "4096", cwd=tmp_path)
    assert under_mpich.returncode == 0, under_mpich.stderr
    outcomes = {s["key"]: s for s in json.loads(under_mpich.stdout)["settings"]}
    for key in ("openmpi.io", "openmpi.fcoll"):
        assert not outcomes[key]["took_effect"]
        assert "the program runs MPICH" in outcomes[key]["reason"]


def test_with_open_mpis_romio_the_hints_are_not_blamed_on_ompio(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(CONFIG)
    done = iotwin("run", "--ranks", "2", "--config", "c.yaml", "--store", "s.db", "--json",
                  "--", str(openmpi_program("ph5example")), "-c", cwd=tmp_path,
                  env={"OMPI_MCA_io": "romio321"})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["reports"][0]["effective"]["mpi_io"]["component"] == "romio321"
    assert result["reports"][0]["effective"]["mpi_io"]["mca"]["io"] == "romio321"
    assert all("OMPIO" not in (s["reason"] or "") for s in result["settings"])


def test_a_parallel_netcdf_program_is_captured_and_simulated(tmp_path: Path) -> None:
    done = iotwin("workload", "capture", "--ranks", "4", "-o", "nc.yaml", "--",
                  str(openmpi_program("netcdf_field")), "f.nc", "64", "3", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    workload = load_workload(tmp_path / "nc.yaml")
    datasets = {d["name"]: d for d in workload["files"][0]["datasets"]}
    assert datasets["/field"]["dims"] == [256, 64]
    # netCDF's unlimited dimension: created empty, extended per record; kept at its final size
    assert datasets["/series"]["dims"] == [3, 4]
    assert datasets["/time"]["dims"] == [0]  # netCDF's coordinate of it, never written
    # netCDF-4 gives every variable a fill value: HDF5 fills even a contiguous one at create
    assert {datasets[name]["fill_value"] for name in ("/field", "/series")} == {"user"}
    default, never = simulate(load_platform("local"), dict(workload),
                              [{}, {"dataset": {"fill_time": "never"}}])
    assert default.ok and never.ok
    filled = (sum(default.breakdown["bytes_per_target"])
              - sum(never.breakdown["bytes_per_target"]))
    assert filled >= 256 * 64 * 8  # /field's fill at least
