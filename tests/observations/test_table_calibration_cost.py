"""The estimate of a calibration to a published table (table_calibration_cost) against the
real fit of a small table here: CPU seconds of the fit and of its simulations. The factor is
wide on purpose: the estimate counts every evaluation a fit may make, and a fit may converge
sooner."""

from __future__ import annotations

from pathlib import Path

from iotwin.core.cost import duration_text
from iotwin.model.platforms import load_platform
from iotwin.observations.published import Case, calibrate_to_table, table_calibration_cost
from support.cpu_times import process_cpu_seconds

FACTOR = 10
CASES = [Case("MPI-IO", "striped", 16, 24, 1000.0), Case("MPI-IO", "unstriped", 16, 48, 300.0),
         Case("MPI-IO", "striped", 16, 96, 2000.0)]


def test_a_small_fit_costs_what_its_estimate_says_within_a_factor() -> None:
    platform = load_platform("archer")
    parameters = sorted(platform.free_parameters())[:1]
    options = {"parameters": parameters, "folds": 2, "evaluations": 3}
    estimate = table_calibration_cost(platform, CASES, Path("rows.csv"), **options)
    before = process_cpu_seconds()
    calibrate_to_table(platform, CASES, **options)
    spent = process_cpu_seconds() - before
    print(f"estimated {duration_text(estimate.seconds)}, measured {duration_text(spent)} of "
          "CPU (a loaded machine)")
    assert spent / FACTOR <= estimate.seconds <= spent * FACTOR
