"""The estimate of a family calibration (``calibrate --family``, observations/family_cost.py):
against a small real fit here, against the shipped run's measured CPU, and its refusal of an
input too large before any model is built."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.core.cost import Limits, constant, duration_text, limits
from iotwin.core.errors import UserError
from iotwin.core.paths import repo_root
from iotwin.model.family import FAMILY_CONSTANTS
from iotwin.model.platform_sheet import sheet_defaults
from iotwin.observations.family_cost import (
    FamilyRun,
    distinct_simulations,
    family_cost,
    family_run_bound,
)
from iotwin.observations.io500 import Io500Case, family_calibration, family_cases, io500_cases
from support.cpu_times import process_cpu_seconds

#: the loaded machine's CPU seconds vary several-fold with what else runs
FACTOR = 10
TRAIN = repo_root() / "validation" / "data" / "io500-train.json"
#: the shipped calibration's run again (data/family-io500.yaml's inputs: --segments 64, the
#: default --evaluations 40), 2026-11-29, on the 2-core test machine under load from other
#: jobs, interrupted early in its first held-out refit: the fit over all machines took 133
#: evaluations (its scan of 25, then 12 steps of the gradient fit with their Jacobians); CPU
#: seconds of iotwin and its iosim processes, the models whose rates it looked up (7,113, of
#: which 1,173 in the refit) and the distinct simulations it ran. The whole run (ten refits
#: more) takes about an hour of CPU, too long to measure here.
SHIPPED_STEPS = 12
SHIPPED_CPU_SECONDS = 397.5
SHIPPED_LOOKED_UP = 7113
SHIPPED_SIMULATED = 4977
#: the whole run (the fit, then a refit without each of the ten systems), 2026-11-29 on the
#: quiet test machine: 16 minutes on one core. Estimated 3.08 h (11.5x) before the refits'
#: shared start and the steps fits take were counted; 50 min (3.1x) before iosim's estimate
#: of one simulation counted its ranks and priced a call on a file by IO500's phases (the 44
#: cases simulated once at 64 segments: 11.2 s estimated then, 4.3 s measured loaded).
SHIPPED_WHOLE_CPU_SECONDS = 16 * 60
#: how far the whole run's estimate may be from it: it is computed, not measured here
WHOLE_FACTOR = 2


def run_of(found: list[Io500Case], evaluations: int) -> FamilyRun:
    return FamilyRun(len(found), len({c.system for c in found}), len(FAMILY_CONSTANTS),
                     evaluations, max(4, evaluations // 3))


def test_the_shipped_runs_estimate_is_near_its_measured_cpu() -> None:
    found = io500_cases(TRAIN)
    cases, base = family_cases(found, segments=64), sheet_defaults()
    fit = FamilyRun(len(found), 1, len(FAMILY_CONSTANTS), SHIPPED_STEPS, 0)  # no refit
    estimate = family_cost(fit, cases, base, f"--io500 {TRAIN}", limits())
    simulations = sum(distinct_simulations(fit, cases, base))
    print(f"the fit: estimated {duration_text(estimate.seconds)}, {simulations:.0f} "
          f"simulations of {fit.models_per_case() * len(cases):.0f} models; measured "
          f"{duration_text(SHIPPED_CPU_SECONDS)} of CPU, {SHIPPED_SIMULATED} simulations of "
          f"{SHIPPED_LOOKED_UP} models")
    assert SHIPPED_CPU_SECONDS / FACTOR <= estimate.seconds <= SHIPPED_CPU_SECONDS * FACTOR
    # the reuse: a plain count would simulate every model looked up
    assert SHIPPED_SIMULATED / 1.5 <= simulations <= SHIPPED_SIMULATED
    whole = family_cost(run_of(found, 40), cases, base, f"--io500 {TRAIN}", limits())
    print(f"the whole run: estimated {duration_text(whole.seconds)}, measured "
          f"{duration_text(SHIPPED_WHOLE_CPU_SECONDS)} of CPU")
    assert (SHIPPED_WHOLE_CPU_SECONDS / WHOLE_FACTOR <= whole.seconds
            <= SHIPPED_WHOLE_CPU_SECONDS * WHOLE_FACTOR)


def test_the_held_out_refits_share_their_start() -> None:
    """Each refit starts at the fit's result: its first evaluation is the fit's last model and
    its Jacobian the same models in every refit, so one more system adds its refit's later
    steps only."""
    few = FamilyRun(cases=10, systems=5, constants=8, evaluations=40, refit_evaluations=13)
    more = FamilyRun(cases=10, systems=6, constants=8, evaluations=40, refit_evaluations=13)
    per_step = 1 + 4
    assert more.simulations_of(4) - few.simulations_of(4) == (few.refit_steps - 1) * per_step
    assert more.models_per_case() - few.models_per_case() == few.refit_steps * (1 + 8)


def test_a_small_family_fit_costs_what_its_estimate_says_within_a_factor() -> None:
    ranks: dict[str, int] = {}
    for case in sorted(io500_cases(TRAIN), key=lambda c: c.ranks):
        ranks.setdefault(case.system, case.ranks)
    small = sorted(ranks, key=ranks.__getitem__)[:2]  # both phases of the two smallest systems
    found = [c for c in io500_cases(TRAIN) if c.system in small and c.ranks == ranks[c.system]]
    run = FamilyRun(len(found), len(small), len(FAMILY_CONSTANTS), 2, 1)
    cases = family_cases(found, segments=2)
    estimate = family_cost(run, cases, sheet_defaults(), "--io500 small.json", limits())
    before = process_cpu_seconds()
    family_calibration(cases, "small.json", max_evaluations=run.evaluations,
                       refit_evaluations=run.refit_evaluations)
    spent = process_cpu_seconds() - before
    print(f"estimated {duration_text(estimate.seconds)}, measured {duration_text(spent)} of "
          "CPU (a loaded machine)")
    assert spent / FACTOR <= estimate.seconds <= spent * FACTOR


def test_a_case_no_constant_reaches_is_simulated_only_before_and_after() -> None:
    run = FamilyRun(cases=10, systems=5, constants=8, evaluations=40, refit_evaluations=13)
    assert run.simulations_of(0) == 3
    # every constant reaching it: every model looked up but the scan's start (the model before)
    # and the refits' shared start (its model and Jacobian looked up in each refit, its
    # Jacobian simulated once, its model the fit's result)
    shared = run.refits * (1 + 8) - 8
    assert run.simulations_of(8) == run.models_per_case() - 1 - shared


def test_the_bound_refuses_a_million_cases_naming_the_input() -> None:
    run = FamilyRun(10**6, 10**5, len(FAMILY_CONSTANTS), 40, 13)
    with pytest.raises(UserError) as refused:
        family_run_bound(run, "--io500 big.json", limits(max_time="1h"))
    assert str(refused.value).startswith("--io500 big.json = 1000000 cases: estimated ")
    assert str(refused.value).endswith("lower --io500 big.json or raise --max-time")
    small = FamilyRun(44, 10, len(FAMILY_CONSTANTS), 40, 13)
    assert family_run_bound(small, "--io500 t.json", limits()).seconds < 60


def test_the_memory_bound_names_the_input_too() -> None:
    run = FamilyRun(1000, 10, len(FAMILY_CONSTANTS), 40, 13)
    held = constant("python", "process_bytes") + 1000 * constant("family_calibration",
                                                                 "bytes_per_case")
    with pytest.raises(UserError, match=r"^--io500 t\.json = 1000 cases: estimated .* of "
                                        r"memory.* raise --max-memory$"):
        family_run_bound(run, "--io500 t.json", Limits(86400.0, held - 1))


def test_calibrate_family_refuses_a_million_cases_before_any_work(tmp_path: Path) -> None:
    record = {"id": 1, "system": "s", "measured_mbs": {"ior_easy_write": 1.0,
                                                        "ior_hard_write": 1.0}}
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"submissions": [dict(record, id=i) for i in range(500_000)]}))
    out = tmp_path / "family.yaml"
    done = subprocess.run([sys.executable, "-m", "iotwin", "calibrate", "--family", "--io500",
                           str(big), "-o", str(out), "--max-time", "1h"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"iotwin: error: --io500 {big} = 1000000 cases: estimated "), line
    assert "at least 3000000 simulations" in line
    assert not out.exists() and done.stdout == ""
