"""The estimate of a calibration to a published table (table_calibration_cost) against the
real fit of a small table here: CPU seconds of the fit and of its simulations. The factor is
wide on purpose: the estimate counts every evaluation a fit may make, and a fit may converge
sooner."""

from __future__ import annotations

import resource
from pathlib import Path

from iotwin.core.cost import duration_text
from iotwin.model.platforms import load_platform
from iotwin.observations.published import Case, calibrate_to_table, table_calibration_cost

FACTOR = 10
CASES = [Case("MPI-IO", "striped", 16, 24, 1000.0), Case("MPI-IO", "unstriped", 16, 48, 300.0),
         Case("MPI-IO", "striped", 16, 96, 2000.0)]


def cpu_seconds() -> float:
    """CPU of this process and of the children it waited for (iosim and its workers)."""
    own, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF,
                                                          resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def test_a_small_fit_costs_what_its_estimate_says_within_a_factor() -> None:
    platform = load_platform("archer")
    parameters = sorted(platform.free_parameters())[:1]
    options = {"parameters": parameters, "folds": 2, "evaluations": 3}
    estimate = table_calibration_cost(platform, CASES, Path("rows.csv"), **options)
    before = cpu_seconds()
    calibrate_to_table(platform, CASES, **options)
    spent = cpu_seconds() - before
    print(f"estimated {duration_text(estimate.seconds)}, measured {duration_text(spent)} of "
          "CPU (a loaded machine)")
    assert spent / FACTOR <= estimate.seconds <= spent * FACTOR
