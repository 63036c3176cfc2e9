"""sim-screened end to end on hopper's twin: predictions, real (twin) batches, refits, store."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.config.validation import validate_config
from iotwin.model.platforms import Platform, load_platform
from iotwin.store.database import Store


def test_sim_screened_tunes_against_the_twin_and_beats_the_default(tmp_path: Path) -> None:
    store, yours = tmp_path / "store.db", tmp_path / "yours.yaml"
    yours.write_text("lustre: {stripe_count: 8}\n")  # the user's own config, measured beside
    done = subprocess.run(
        [sys.executable, "-m", "iotwin", "tune", "--store", str(store), "--kernel", "vpic-io",
         "--ranks", "64", "--platform", "hopper", "--space", "poster", "--executor", "twin",
         "--strategy", "sim-screened", "--real-budget", "6", "--set", "population=30",
         "--set", "inner_generations=2", "--summary-repeat", "3", "--json",
         "--config", str(yours),
         "--output", str(tmp_path / "tuned.yaml"), "--", "--particles", "65536"],
        cwd=tmp_path, text=True, capture_output=True, timeout=900)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert 0 < result["runs_used"] <= 6
    assert result["speedup"] > 1  # hopper's default: 2 stripes of 1 MiB for a 64-rank file
    with Store(store) as db:
        rows = db.evaluations(result["campaign"])
        calibrations = db.calibrations("hopper")
    assert {r.source for r in rows} == {"sim", "twin"}
    assert calibrations and calibrations[-1].campaign_id == result["campaign"]
    assert "model error" in done.stderr
    # default and tuned explained on the hopper model: the default's 2 stripes set its
    # ceiling; the measured medians are shares of the simulated ceilings
    explained = result["explanation"]
    default = explained["runs"]["default"]
    assert default["ceiling"]["OSTs"] == {"count": 2, "mbs": pytest.approx(2 * 224)}
    assert default["ceiling_mbs"] == pytest.approx(2 * 224)
    assert default["bound_by"]["ceiling"] == "OSTs"
    assert explained["runs"]["tuned"]["ceiling_mbs"] > default["ceiling_mbs"]
    measured = explained["measured"]["default"]
    assert measured["of_ceiling"] == pytest.approx(measured["measured_mbs"] / 448)
    assert explained["best_ceiling_mbs"] >= explained["runs"]["tuned"]["ceiling_mbs"]
    rows = {row[""]: row for row in explained["breakdown"]}
    assert rows["targets used"]["default"] == 2
    # the user's own config: in the summary's rounds and explained beside them
    assert result["summary"]["yours"]["n"] == 3
    assert result["tuned_over_yours"]["pairs"] == 3
    assert explained["runs"]["yours"]["ceiling"]["OSTs"] == {"count": 8,
                                                             "mbs": pytest.approx(8 * 224)}
    assert rows["targets used"]["yours"] == 8


def test_the_twins_true_rates_are_noise_free_and_its_runs_scatter() -> None:
    from iotwin.core.run_records import Target
    from iotwin.executors.twin import TwinExecutor

    twin = TwinExecutor("hopper", truth_seed=3)
    target = Target(ranks=64, kernel="vpic-io", args=("--particles", "65536"))
    config = validate_config({"lustre": {"stripe_count": 8, "stripe_size": "4MiB"}}, "test")
    true = twin.true_rates(target, [config] * 3)  # each index has its own noise seed
    assert true[0] is not None and true.count(true[0]) == 3
    runs = [twin.run_once(target, config, seed=seed).rate_mbs for seed in range(3)]
    assert len(set(runs)) == 3 and true[0] not in runs
    # a run again is its own noise on the truth's answer, not on the runs' before it
    assert twin.run_once(target, config, seed=0).rate_mbs == runs[0]


def _machine(**twin: object) -> Platform:
    """hopper with its twin section replaced by ``twin`` (values as Platform.truth reads them)."""
    hopper = load_platform("hopper")
    tree = copy.deepcopy(hopper.tree)
    tree["twin"].update({k: {"value": v, "assumption": "test"} for k, v in twin.items()})
    return Platform(hopper.name, tree, hopper.origin)


def test_a_truth_perturbs_fixed_costs_only_when_asked() -> None:
    model = load_platform("hopper")
    fixed = "filesystem.open_s"
    assert fixed not in model.free_parameters()
    value = model.data["filesystem"]["open_s"]
    assert _machine().truth(5).data["filesystem"]["open_s"] == value
    perturbed = _machine(unfitted_perturbation=0.3).truth(5)
    assert perturbed.data["filesystem"]["open_s"] != value
    # the free parameters are drawn first: the same truth seed, the same free values
    assert perturbed.free_parameters() == _machine().truth(5).free_parameters()


def test_straggler_osts_slow_the_files_striped_over_them_only() -> None:
    from iotwin.core.run_records import Target
    from iotwin.executors.twin import TwinExecutor

    machine = _machine(slow_targets=0.05, slowdown=[4, 4])
    stragglers = machine.truth(0).data["twin"]["stragglers"]
    assert len(stragglers) == round(0.05 * 156) and all(f == 4 for _, f in stragglers)
    first_slow = min(int(t) for t, _ in stragglers)
    assert first_slow >= 4  # truth 0: the first four OSTs are not stragglers
    target = Target(ranks=48, kernel="vpic-io", args=("--particles", "262144"))
    narrow = {"lustre": {"stripe_count": 4, "stripe_size": 1048576}}  # OSTs 0-3
    # four stripes starting at the first straggler: it holds a quarter of the bytes
    wide = {"lustre": {"stripe_count": 4, "stripe_size": 1048576, "stripe_offset": first_slow}}
    plain = TwinExecutor(machine, truth=_machine().truth(0))
    slow = TwinExecutor(machine, truth_seed=0)
    assert slow.true_rates(target, [narrow]) == plain.true_rates(target, [narrow])
    [fast_wide], [slow_wide] = plain.true_rates(target, [wide]), slow.true_rates(target, [wide])
    assert fast_wide and slow_wide and slow_wide < 0.9 * fast_wide
