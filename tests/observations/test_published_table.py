"""Calibration to a site's published measurements (iotwin.observations.published): the table's
rows become block3d-io workloads at their scales, rows of one case merge, bad tables are named
errors, and a fit to rows the model itself produced recovers them, with each scale held out."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.core.errors import UserError
from iotwin.formats.bounds import load_bounds
from iotwin.model.calibration import predict
from iotwin.model.platforms import load_platform
from iotwin.observations.published import (
    MIB_PER_MB,
    Case,
    calibrate_to_table,
    observations,
    read_cases,
)
from iotwin.store.database import Store

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
    # before: each of these was an internal error, or a value accepted that means nothing
    ("m,a,f,MPI-IO,striped,16^3,4", "7 fields where the header has 9"),
    ("m,a,f,MPI-IO,striped,16^3,4,100,90,extra", "10 fields where the header has 9"),
    ("m,a,f,MPI-IO,striped,16^3,4,inf,90", "maxrate_mibs"),
    ("m,a,f,MPI-IO,striped,16^3,4,nan,90", "maxrate_mibs"),
    ("m,a,f,MPI-IO,striped,16^3,4,1e308,90", "maxrate_mibs"),
    ("m,a,f,MPI-IO,striped,16^3,4,1e-300,90", "maxrate_mibs"),
    ("m,a,f,MPI-IO,striped,16^3,4,1_000,90", "maxrate_mibs"),
    ("m,a,f,MPI-IO,striped,16^3,4\u00b2,100,90", "processes"),
    ("m,a,f,MPI-IO,striped,1\u2076^3,4,100,90", "local_block"),
    ("m,a,f,MPI-IO,striped,16^3,\u0664,100,90", "processes"),
    ("m,a,f,MPI-IO,striped,16^3,99999999999999999999999,100,90", "processes"),
    ("m,a,f,MPI-IO,striped,100000^3,4,100,90", "local_block"),
    ("m,a,f,MPI-IO,striped,16^3,10000000,100,90", "processes: 10000000 is more than the "
                                                  "machine's 1024 cores"),
])
def test_a_bad_row_is_an_error_naming_the_line_and_column(tmp_path: Path, row: str,
                                                           named: str) -> None:
    with pytest.raises(UserError) as raised:
        read_cases(table(tmp_path, ["m,a,f,MPI-IO,striped,16^3,4,100,90", row]), "m",
                   cores=1024)
    message = str(raised.value)
    assert message.startswith(f"{tmp_path / 'rows.csv'}:3: {named}"), message
    assert "\n" not in message


def test_a_byte_order_mark_before_the_header_is_not_part_of_a_name(tmp_path: Path) -> None:
    """Before: "no column machine"."""
    path = tmp_path / "rows.csv"
    path.write_text("\ufeff" + HEADER + "m,a,f,MPI-IO,striped,16^3,4,100,90\n")
    [case] = read_cases(path, "m")
    assert case.processes == 4


def test_more_distinct_cases_than_the_bound_are_refused_naming_it(tmp_path: Path) -> None:
    """Before: a million distinct cases were read, and fitted, without a bound (2.7 GB)."""
    limit = load_bounds()["calibration_cases"].max
    rows = [f"m,a,f,MPI-IO,striped,{side}^3,{ranks},100,90"
            for side in range(1, 101) for ranks in range(1, limit // 100 + 2)]
    path = table(tmp_path, rows)
    with pytest.raises(UserError, match=rf"rows.csv:{limit + 2}: more distinct cases of m "
                                        rf"than the {limit} a calibration fits \(bounds.yaml: "
                                        r"calibration_cases\)"):
        read_cases(path, "m")
    assert len(read_cases(table(tmp_path, rows[:limit]), "m")) == limit


def test_the_command_names_the_csv_line_not_the_kernels_option(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "iotwin", "calibrate", "--platform", "archer",
                           "--measurements", str(table(tmp_path, [
                               "archer,a,f,MPI-IO,striped,16^3,10000000,100,90"])),
                           "--store", str(tmp_path / "s.db")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stderr == (f"iotwin: error: {tmp_path / 'rows.csv'}:2: processes: 10000000 is "
                           "more than the machine's 118080 cores\n")


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
    told: list[str] = []
    found = calibrate_to_table(platform, cases, parameters=["filesystem.target_mbs"], folds=2,
                               progress=told.append)
    assert told == ["fold 1 of 2: fitting on 3 cases, 3 held out",
                    "fold 2 of 2: fitting on 3 cases, 3 held out", "the fit on all 6 cases",
                    "48 ranks held out: fitting on the 2 cases of the smaller scales",
                    "96 ranks held out: fitting on the 4 cases of the smaller scales"]
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
    assert "none.csv: cannot read the published measurements" in done.stderr


MEASURED = ["archer,a,f,MPI-IO,striped,16^3,24,1000,900",
            "archer,a,f,MPI-IO,striped,16^3,48,1500,900",
            "archer,a,f,MPI-IO,unstriped,16^3,24,300,200",
            "archer,a,f,MPI-IO,unstriped,16^3,96,400,200",
            "archer,a,f,MPI-IO,striped,16^3,96,2000,200"]


def _no_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_fit_exits_at_once_and_stores_no_calibration(
        tmp_path: Path, signum: int, status: int) -> None:
    """Started as a script's background job is (SIGINT ignored): before, SIGINT was lost, the
    fit went on and was stored, exit 0."""
    store = tmp_path / "s.db"
    command = [sys.executable, "-m", "iotwin", "calibrate", "--platform", "archer",
               "--measurements", str(table(tmp_path, MEASURED)), "--store", str(store)]
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True,
                          preexec_fn=_no_sigint) as running:
        assert running.stderr is not None
        assert "fitting..." in running.stderr.readline()
        # each stage told as it starts: the interrupt comes in the first one's simulations
        assert running.stderr.readline().strip() == (
            "iotwin: which of the 18 free parameters move these cases most (one simulation of "
            "them each)")
        running.send_signal(signum)
        assert running.wait(timeout=60) == status
        *_, last = running.stderr.read().strip().splitlines()
        assert last == "iotwin: interrupted; everything measured so far is in the store"
    if store.exists():
        with Store(store, read_only=True) as stored:
            assert stored.calibrations() == [] and stored.campaigns() == []


def test_benchios_netcdf_variable_is_not_filled_and_its_hdf5_dataset_keeps_hdf5s_defaults() -> None:
    platform = load_platform("archer")
    netcdf, hdf5 = observations([Case("netCDF", "striped", 16, 48, 100.0),
                                 Case("HDF5", "striped", 16, 48, 100.0)], platform)
    [variables] = netcdf.workload["files"]  # netCDF's variables; its dimensions are iosim's
    assert variables["api"] == "netcdf4"
    assert [d["fill_time"] for d in variables["datasets"]] == ["never"]  # nf90_def_var_fill
    assert all("fill_time" not in d for d in hdf5.workload["files"][0]["datasets"])
