"""Calibration to a site's published measurements (iotwin.observations.published): the table's
rows become block3d-io workloads at their scales, rows of one case merge, bad tables are named
errors, and a fit to rows the model itself produced recovers them, with each scale held out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.core.errors import UserError
from iotwin.model.calibration import predict
from iotwin.model.platforms import load_platform
from iotwin.observations.published import (
    MIB_PER_MB,
    Case,
    calibrate_to_table,
    observations,
    read_cases,
)

HEADER = ("machine,source_folder,result_file,method,striping,local_block,processes,"
          "maxrate_mibs,avgrate_mibs\n")


def table(tmp_path: Path, rows: list[str]) -> Path:
    path = tmp_path / "rows.csv"
    path.write_text(HEADER + "".join(f"{row}\n" for row in rows))
    return path


def test_rows_of_one_case_merge_at_their_median_and_other_machines_are_skipped(
        tmp_path: Path) -> None:
    path = table(tmp_path, ["m,a,f1,MPI-IO,striped,16^3,4,100,90",
                            "m,a,f2,MPI-IO,striped,16^3,4,300,200",
                            "m,a,f3,MPI-IO,striped,16^3,4,200,100",
                            "other,a,f4,MPI-IO,striped,16^3,4,999,999",
                            "m,a,f5,HDF5,unstriped,32^3,8,50,40",
                            "m,a,f6,NetCDF,striped,16^3,4,70,60"])
    cases = read_cases(path, "m")
    assert [(c.method, c.striping, c.block, c.processes) for c in cases] == [
        ("HDF5", "unstriped", 32, 8), ("MPI-IO", "striped", 16, 4), ("netCDF", "striped", 16, 4)]
    assert cases[1].rate_mbs == pytest.approx(200 * MIB_PER_MB)
    assert read_cases(path, "m", "mean")[1].rate_mbs == pytest.approx(100 * MIB_PER_MB)


@pytest.mark.parametrize(("row", "named"), [
    ("m,a,f,MPI-IO,striped,16^2,4,100,90", "local_block"),
    ("m,a,f,MPI-IO,diagonal,16^3,4,100,90", "striping"),
    ("m,a,f,POSIX,striped,16^3,4,100,90", "method"),
    ("m,a,f,MPI-IO,striped,16^3,0,100,90", "processes"),
    ("m,a,f,MPI-IO,striped,16^3,4,fast,90", "maxrate_mibs"),
])
def test_a_bad_row_is_an_error_naming_the_line_and_column(tmp_path: Path, row: str,
                                                           named: str) -> None:
    with pytest.raises(UserError, match=rf"rows.csv:2: {named}"):
        read_cases(table(tmp_path, [row]), "m")


def test_a_table_without_the_columns_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("machine,rate\nm,1\n")
    with pytest.raises(UserError, match=r"x\.csv: not a table of published measurements"):
        read_cases(path, "m")


def test_a_case_is_the_kernels_workload_on_whole_nodes_under_its_striping() -> None:
    platform = load_platform("archer")
    [obs] = observations([Case("MPI-IO", "striped", 16, 48, 100.0)], platform)
    assert obs.workload["ranks"] == 48 and obs.workload["ranks_per_node"] == 24
    assert obs.config == {"lustre": {"stripe_count": -1, "stripe_size": 2**20}}
    [session] = obs.workload["files"]
    assert session["api"] == "mpiio"


def test_a_fit_to_the_models_own_rates_recovers_them_and_holds_out_each_scale() -> None:
    platform = load_platform("archer")
    truth = platform.with_values({"filesystem.target_mbs": 300.0})
    shapes = [("MPI-IO", striping, 16, ranks) for striping in ("striped", "unstriped")
              for ranks in (24, 48, 96)]
    probe = [Case(*shape, 1.0) for shape in shapes]
    rates = predict(truth, observations(probe, platform))
    cases = [Case(*shape, rate or 0.0) for shape, rate in zip(shapes, rates, strict=True)]
    found = calibrate_to_table(platform, cases, parameters=["filesystem.target_mbs"], folds=2)
    assert found.fit.parameters["filesystem.target_mbs"] == pytest.approx(300, rel=0.05)
    assert all(after == pytest.approx(c.rate_mbs, rel=0.05)
               for c, after in zip(cases, found.after, strict=True))
    assert [(h.ranks, h.fitted_on) for h in found.scale_out] == [(48, (24,)), (96, (24, 48))]
    assert max(max(h.errors) for h in found.scale_out) < 0.05


def test_the_command_stores_the_calibration_and_names_a_missing_table(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "iotwin", "calibrate", "--platform", "archer",
                           "--measurements", str(tmp_path / "none.csv"),
                           "--store", str(tmp_path / "s.db")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "none.csv: cannot read the measurements" in done.stderr


def test_benchios_netcdf_variable_is_not_filled_and_its_hdf5_dataset_keeps_hdf5s_defaults() -> None:
    platform = load_platform("archer")
    netcdf, hdf5 = observations([Case("netCDF", "striped", 16, 48, 100.0),
                                 Case("HDF5", "striped", 16, 48, 100.0)], platform)
    datasets = netcdf.workload["files"][0]["datasets"]
    variables = [d for d in datasets if d.get("fill_value") == "user"]
    assert variables and all(d["fill_time"] == "never" for d in variables)  # nf90_def_var_fill
    assert all("fill_time" not in d for d in datasets if d not in variables)  # dimensions
    assert all("fill_time" not in d for d in hdf5.workload["files"][0]["datasets"])
