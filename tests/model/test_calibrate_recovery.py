"""Calibration recovers known platform parameters from noisy measurements made by the simulator.

The measurements are the runs of a calibration design (tuner/iotwin/data/calibration-lustre.yaml),
each chosen so that one mechanism decides its time, made by the twin executor into a store as a
campaign on a machine would make them. The truth has every free parameter perturbed and
run-to-run noise on; the known parameters are set well away from the model's values.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from iotwin.core.errors import UserError
from iotwin.executors.twin import TwinExecutor
from iotwin.model.calibration import Observation, cross_validate, fit
from iotwin.model.platforms import Platform, load_platform
from iotwin.model.sim import simulate
from iotwin.model.site_rules import platform_space_context
from iotwin.observations.design import load_design, measure_design, parse_design
from iotwin.space.parameters import load_space
from iotwin.store.database import Store
from iotwin.workloads.workload import kernel_workload

# One value per mechanism the design excites: OST streaming, degradation under concurrent
# clients, extent-lock revocation, the client node's send rate.
KNOWN = {"filesystem.target_mbs": 160.0, "filesystem.degradation": 0.05,
         "filesystem.lock_conflict_s": 0.0035, "lustre_client.node_write_mbs": 2000.0}


# The floor under many client streams binds at client counts the design's probes do not
# reach: no probe can tell it apart from the degradation itself, so the truth keeps the model's.
# A request's own cost shows only where requests cannot merge (the client merges a node's
# adjacent pages of an object into RPCs, the target adjacent requests: IOSIM.md "Storage"), which
# no vpic-io probe makes: a stripe of 64 KiB merges as a stripe of 1 MiB does.
UNPROBED = ("filesystem.degradation_floor", "filesystem.rpc_overhead_s")


def truth_with_known_values(model: Platform, seed: int = 1) -> Platform:
    """The twin's truth (free parameters perturbed, noise on) with KNOWN set exactly."""
    free = model.free_parameters()
    return model.truth(seed).with_values({**KNOWN, **{p: free[p][0] for p in UNPROBED}})


@pytest.fixture(scope="module")
def design_observations(tmp_path_factory: pytest.TempPathFactory) -> list[Observation]:
    model = load_platform("hopper")
    twin = TwinExecutor(model, truth=truth_with_known_values(model))
    with Store(tmp_path_factory.mktemp("calibration") / "store.db") as store:
        observations = measure_design(load_design("lustre"), model, twin, store)
        stored = store.evaluations(None, platform="hopper")
    design = load_design("lustre")
    assert len(observations) == len(design.probes)  # one median per probe, in design order
    assert len(stored) == len(design.probes) * design.repetitions  # every repetition stored
    assert {row.source for row in stored} == {"twin"}
    return observations


def test_calibration_recovers_four_parameters_at_once_within_10_percent(
        design_observations: list[Observation]) -> None:
    model = load_platform("hopper")
    design = load_design("lustre")
    assert sorted(KNOWN) == design.parameters
    assert model.truth(1).noise > 0
    for path, value in KNOWN.items():  # the model starts well away from the truth
        assert abs(model.free_parameters()[path][0] / value - 1) > 0.25, path
    calibration = fit(model, design_observations, parameters=design.parameters,
                      max_evaluations=20)
    for path, value in KNOWN.items():
        assert calibration.parameters[path] == pytest.approx(value, rel=0.10), path
    assert calibration.fit_error < 0.1  # what is left is the twin's noise (8%, median of 9)


def test_each_probe_moves_the_parameters_it_excites_most(
        design_observations: list[Observation]) -> None:
    """The design's claim, checked on the model: scaling a probe's parameter by 1.3 changes
    that probe's simulated rate by at least 3%."""
    model = load_platform("hopper")
    design = load_design("lustre")
    base = [simulate(model, dict(o.workload), [o.config])[0].rate_mbs
            for o in design_observations]
    for path in design.parameters:
        moved = model.with_values({path: model.free_parameters()[path][0] * 1.3})
        excited = [i for i, p in enumerate(design.probes) if path in p.excites]
        for i in excited:
            obs = design_observations[i]
            rate = simulate(moved, dict(obs.workload), [obs.config])[0].rate_mbs
            assert rate is not None and base[i] is not None
            assert abs(rate / base[i] - 1) > 0.03, (path, design.probes[i].name)


def test_a_bad_design_is_an_error_naming_the_key(tmp_path: Path) -> None:
    probe = {"name": "p", "excites": ["filesystem.target_mbs"], "why": "w", "nodes": 1,
             "args": [], "config": {}}
    with pytest.raises(UserError, match=r"probes\[0\]\.nodes"):
        parse_design({"name": "d", "kernel": "vpic-io", "repetitions": 3,
                      "probes": [{**probe, "nodes": 0}]}, "d.yaml")
    with pytest.raises(UserError, match="repeats: unknown key"):
        parse_design({"name": "d", "kernel": "vpic-io", "repeats": 3, "probes": [probe]},
                     "d.yaml")
    with pytest.raises(UserError, match=r"probes\[0\]\.config"):
        parse_design({"name": "d", "kernel": "vpic-io", "repetitions": 3,
                      "probes": [{**probe, "config": {"lustre": {"stripes": 2}}}]}, "d.yaml")
    with pytest.raises(UserError, match="unknown calibration design 'nope'"):
        load_design("nope")


def poster_measurements(truth: Platform, configs_per_scale: int) -> list[Observation]:
    """The twin's runs of random poster-space configs of vpic-io at two scales."""
    observations = []
    for ranks in (64, 512):
        workload = kernel_workload("vpic-io", ranks, ["--particles", "65536"])
        space = load_space("poster").bind(platform_space_context(load_platform("hopper"), ranks))
        rng = random.Random(ranks)
        configs = [space.config(space.random_point(rng)) for _ in range(configs_per_scale)]
        results = simulate(truth, workload, configs, noise_seed=ranks)
        observations += [Observation(workload, c, r.rate_mbs)
                         for c, r in zip(configs, results, strict=True) if r.ok and r.rate_mbs]
    return observations


def test_cross_validation_reports_held_out_error() -> None:
    model = load_platform("hopper")
    observations = poster_measurements(truth_with_known_values(model), configs_per_scale=6)
    calibration = cross_validate(model, observations, folds=3,
                                 parameters=["filesystem.target_mbs"], max_evaluations=10)
    assert calibration.details["folds"] == 3
    assert calibration.heldout_error is not None
    # held-out predictions of a model refitted without those runs are worse than, or as
    # good as, the fit to all of them, and far better than the uncalibrated model
    uncalibrated = fit(model, observations, parameters=["filesystem.target_mbs"],
                       max_evaluations=1)
    assert calibration.fit_error <= calibration.heldout_error + 0.05
    assert calibration.heldout_error < uncalibrated.fit_error
