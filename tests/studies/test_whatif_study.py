"""iotwin whatif: variants of real platform models, tuning through the tuner's space and search
strategies, each rate with its ceiling and what binds it; with a stand-in simulator whose best
config is known."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from iotwin.cli import main
from iotwin.commands.whatif import _simulator
from iotwin.core.errors import UserError
from iotwin.model.platforms import Platform, load_platform
from iotwin.model.sim import SimResult
from iotwin.report.whatif import as_json, plot, table
from iotwin.space.parameters import parse_space
from iotwin.store.database import Store
from iotwin.studies.whatif import (
    SEARCH_MAX_STEPS,
    Prediction,
    Tuning,
    Variation,
    parse_variation,
    search_in_simulation,
    study,
    variants,
    vary,
)
from iotwin.workloads.workload import dump_workload, kernel_workload

WORK = {"name": "w", "ranks": 48, "ranks_per_node": 24, "files": []}
SPACE = parse_space({"name": "small", "parameters": [
    {"name": "stripe_count", "key": "lustre.stripe_count", "values": [1, 4, 16, 64, -1],
     "filesystems": ["lustre"], "at_most": "max_stripe_count"},
    {"name": "cb_buffer_size", "key": "mpiio.cb_buffer_size", "values": ["1MiB", "4MiB"]},
    {"name": "romio_cb_write", "key": "mpiio.romio_cb_write", "values": ["enable", "disable"]},
]}, "small.yaml")


def stripes_used(platform: Platform, config: dict[str, Any]) -> int:
    fs = platform.data["filesystem"]
    count = config.get("lustre", {}).get("stripe_count", 2)
    return fs["max_stripe_count"] if count == -1 else count


def stand_in(platform: Platform, work: Any, configs: list[dict[str, Any]],
             max_steps: float | None = None) -> list[SimResult]:
    """Rate grows with the stripes used, a 4 MiB buffer helps, buffering off fails; the
    ceiling is the stripes' bandwidth, and the stripes bind."""
    target_mbs = platform.data["filesystem"]["target_mbs"]
    results = []
    for config in configs:
        mpiio = config.get("mpiio", {})
        if mpiio.get("romio_cb_write") == "disable":
            results.append(SimResult(False, None, None, error="buffering off"))
            continue
        bonus = 1.5 if mpiio.get("cb_buffer_size") == 4 * 2**20 else 1.0
        stripes = stripes_used(platform, config)
        rate = target_mbs * min(stripes, 40) * bonus / 10
        results.append(SimResult(True, 1.0, rate, ceiling_mbs=stripes * target_mbs,
                                 best_ceiling_mbs=40 * target_mbs,
                                 bound_by={"run": "OSTs (bandwidth)", "ceiling": "OSTs"},
                                 ceiling={"OSTs": {"count": stripes,
                                                   "mbs": stripes * target_mbs}}))
    return results


def rate_of(results: list[SimResult]) -> float | None:
    return results[0].rate_mbs


def test_exhaustive_tuning_finds_the_stand_ins_best_point() -> None:
    hopper = load_platform("hopper")
    machine, strategy = search_in_simulation(hopper, WORK, Tuning(SPACE, budget=100), stand_in)
    assert strategy == "exhaustive"  # 5 x 2 x 2 = 20 points fit the budget
    assert len(machine.measured) == 20
    point, rate = machine.best()
    config = machine.space.config(point)
    assert stripes_used(hopper, config) >= 40 and config["mpiio"]["cb_buffer_size"] == 4 * 2**20
    assert rate == rate_of(stand_in(hopper, WORK, [config]))


def test_the_genetic_search_keeps_to_its_simulation_budget() -> None:
    machine, strategy = search_in_simulation(load_platform("hopper"), WORK,
                                             Tuning(SPACE, budget=7, seed=3), stand_in)
    assert strategy == "h5evolve"
    assert len(machine.measured) == 7


def test_a_strategy_that_needs_a_second_model_is_refused() -> None:
    with pytest.raises(UserError, match="sim-screened"):
        search_in_simulation(load_platform("hopper"), WORK, Tuning(SPACE, "sim-screened"), stand_in)


def test_study_reports_default_tuned_and_the_tuned_config() -> None:
    results = study(WORK, ["hopper", "archer"], load_platform, stand_in,
                    tuning=Tuning(SPACE, budget=100))
    for result in results:
        platform = load_platform(result.platform)
        assert result.default_mbs == rate_of(stand_in(platform, WORK, [{}]))
        assert result.tuned_mbs == rate_of(stand_in(platform, WORK, [result.tuned_config]))
        assert result.tuned_mbs is not None and result.tuned_mbs > result.default_mbs
        assert "stripe_count=" in result.tuned_settings


def test_ost_count_scales_servers_and_stripe_limits() -> None:
    archer = load_platform("archer")  # 48 OSTs on 12 servers, at most 48 stripes, default 4
    fs = vary(archer, {"ost_count": 96}).data["filesystem"]
    assert (fs["targets"], fs["servers"], fs["max_stripe_count"]) == (96, 24, 96)
    small = vary(archer, {"ost_count": 2}).data
    assert small["filesystem"]["max_stripe_count"] == 2
    assert small["site_defaults"]["lustre"]["stripe_count"] == 2  # was 4: more than the OSTs
    alone = vary(archer, {"filesystem.targets": 96}).data["filesystem"]
    assert (alone["targets"], alone["servers"]) == (96, 12)


def test_a_stripe_limit_below_the_ost_count_is_kept() -> None:
    bluewaters = load_platform("bluewaters")  # 1440 OSTs, one file over at most 160
    assert vary(bluewaters, {"ost_count": 2880}).data["filesystem"]["max_stripe_count"] == 160
    assert vary(bluewaters, {"ost_count": 100}).data["filesystem"]["max_stripe_count"] == 100


def test_variants_are_every_combination() -> None:
    results = study(WORK, ["archer"], load_platform, stand_in, variations=[
        parse_variation("ost_count=24,96"), parse_variation("filesystem.target_mbs=250,1000")])
    assert [r.variant for r in results] == [
        "ost_count=24 filesystem.target_mbs=250", "ost_count=24 filesystem.target_mbs=1000",
        "ost_count=96 filesystem.target_mbs=250", "ost_count=96 filesystem.target_mbs=1000"]
    assert results[1].default_mbs == 4 * results[0].default_mbs
    assert all(r.tuned_mbs is None for r in results)


@pytest.mark.parametrize(("setting", "message"), [
    ({"osts": 4}, "no parameter 'osts'"),
    ({"targets": 4}, "did you mean filesystem.targets"),
    ({"ost_count": 0}, "--vary: filesystem.targets: expected an integer from 1 to 65535"),
    ({"filesystem.target_mbs": "fast"}, "'fast' is not a bandwidth"),
    # each value checked as the spec sheet's key giving the figure is (data/sheet-schema.yaml)
    ({"filesystem.targets": -5}, "filesystem.targets: expected an integer from 1 to 65535"),
    ({"filesystem.targets": 10**7}, "filesystem.targets: expected an integer from 1 to 65535"),
    ({"filesystem.targets": 24.5}, "filesystem.targets: expected a whole number, got 24.5"),
    ({"filesystem.target_mbs": float("inf")}, "inf is not a bandwidth"),
    ({"filesystem.target_mbs": 1e35}, r"expected a number from 1 to 1e\+09 MB/s"),
    ({"filesystem.metadata_servers": 10**6}, "expected an integer from 1 to 256"),
    # a figure no sheet key gives: a number of its own type, finite and >= 0, never truncated
    ({"filesystem.degradation": -0.5}, "expected a finite number >= 0"),
    ({"filesystem.degradation": float("nan")}, "expected a finite number >= 0"),
    ({"site_defaults.romio_driver": 3}, "expected a value like 'lustre'"),
    # a site default is a tuning config's value, checked as the config key is
    ({"site_defaults.lustre.stripe_count": 5000}, "site_defaults.lustre.stripe_count: expected"),
    ({"site_defaults.mpiio.romio_cb_write": "banana"}, "site_defaults.mpiio.romio_cb_write: "),
])
def test_bad_variants_are_named(setting: dict[str, Any], message: str) -> None:
    with pytest.raises(UserError, match=message):
        vary(load_platform("archer"), setting)


def test_bad_variation_syntax_is_refused() -> None:
    with pytest.raises(UserError, match="PATH=V1,V2"):
        parse_variation("ost_count")
    assert parse_variation("ost_count=24,48") == Variation("ost_count", (24, 48))
    # one YAML reader: 1_000 and 0x10 are text (refused as counts), .inf a number out of bounds
    assert parse_variation("ost_count=1_000,0x10").values == ("1_000", "0x10")
    for text, message in (("ost_count=1_000", "expected a whole number, got '1_000'"),
                          ("filesystem.targets=0,-5", "expected an integer from 1 to 65535"),
                          ("filesystem.target_mbs=.inf", "inf is not a bandwidth")):
        with pytest.raises(UserError, match=message):
            variants(load_platform("archer"), [parse_variation(text)])


def test_every_answer_carries_its_ceiling_and_what_binds_it() -> None:
    [hopper] = study(WORK, ["hopper"], load_platform, stand_in, tuning=Tuning(SPACE, budget=100))
    text = table([hopper])
    # the default's 2 stripes: 224 MB/s x 2 = 448 MB/s; the stand-in writes a tenth of it
    assert "10 % of 448 MB/s" in text
    assert "default: 2 OSTs (bandwidth) binds it at 44.8 MB/s, 10 % of its 448 MB/s ceiling" \
        in text
    assert "(the best any layout reaches here: 8.96 GB/s)" in text
    [answer] = as_json([hopper])
    assert answer["default"]["ceiling_mbs"] == 448
    assert answer["tuned"]["of_ceiling"] == pytest.approx(
        answer["tuned"]["rate_mbs"] / answer["tuned"]["ceiling_mbs"])
    assert answer["best_ceiling_mbs"] == 40 * 224
    low, high = answer["default"]["band"]
    assert low < answer["default"]["rate_mbs"] < high


def test_a_users_own_config_is_answered_beside_the_default() -> None:
    mine = {"lustre": {"stripe_count": 16}}
    [hopper] = study(WORK, ["hopper"], load_platform, stand_in, given=mine)
    assert hopper.given_mbs == rate_of(stand_in(load_platform("hopper"), WORK, [mine]))
    assert "yours: 16 OSTs (bandwidth) binds it" in table([hopper])
    assert as_json([hopper])[0]["yours"]["ceiling_mbs"] == 16 * 224


def test_table_and_plot(tmp_path: Path) -> None:
    results = study(WORK, ["hopper", "archer"], load_platform, stand_in,
                    tuning=Tuning(SPACE, budget=100))
    text = table(results)
    rows = [line for line in text.splitlines() if not line.startswith(("warning:", "  "))]
    assert len(rows) == 3 and text.count("stripe_count=") == 4  # in the row and its reason
    failed = SimResult(False, None, None, error="stand-in")
    plot([*results, Prediction("cab", "default", failed)], "test", tmp_path / "w.png")
    assert (tmp_path / "w.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_rejects_a_missing_workload(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.yaml"
    assert main(["whatif", "--workload", str(missing), "--platforms", "hopper"]) == 2
    assert str(missing) in capsys.readouterr().err


def test_more_ranks_than_the_platform_has_cores_run_oversubscribed() -> None:
    seen: list[Any] = []

    def recording(platform: Platform, work: Any, configs: list[Any],
                  max_steps: float | None = None) -> list[SimResult]:
        seen.append(work)
        return stand_in(platform, work, configs)

    result = study({"name": "w", "ranks": 128, "files": []}, ["local"], load_platform,
                   recording)[0]
    assert result.note == "oversubscribed: 128 ranks per node"  # local: one node of 2 cores
    assert seen[0]["ranks_per_node"] == 128
    assert study(WORK, ["hopper"], load_platform, stand_in)[0].note == ""


def test_every_answer_carries_the_validated_error_or_says_it_has_none() -> None:
    from iotwin.studies.validated_error import validated_errors

    hopper_error = validated_errors()["hopper"]
    low, high = hopper_error.cores_checked
    inside = {**WORK, "ranks": high}
    [hopper, archer] = study(inside, ["hopper", "archer"], load_platform, stand_in,
                             tuning=Tuning(SPACE, budget=100))
    factor = 1 + hopper_error.band_error
    assert hopper.default_band == pytest.approx((hopper.default_mbs / factor,
                                                 hopper.default_mbs * factor))
    assert hopper.tuned_band == pytest.approx((hopper.tuned_mbs / factor,
                                               hopper.tuned_mbs * factor))
    assert hopper.warning == ""  # a scale it was validated at
    # the speedup over both bands: tuned's low end / default's high end, and the other way
    assert hopper.speedup is not None and hopper.speedup_band == pytest.approx(
        (hopper.speedup / factor**2, hopper.speedup * factor**2))
    low_x, high_x = hopper.speedup_band
    assert f"{hopper.speedup:5.2f} [{low_x:.2f}-{high_x:.2f}]" in table([hopper])
    assert archer.default_band is None and archer.tuned_band is None
    assert archer.speedup_band is None and "[no band]" in table([archer])
    assert "no published measurement validates the archer model" in archer.warning
    [far] = study({**WORK, "ranks": 64 * high, "ranks_per_node": 24}, ["hopper"],
                  load_platform, stand_in)
    assert far.default_band is not None
    assert f"64x above the {low}-{high} cores hopper was checked at by the paper validation" \
        in far.warning
    assert far.warning in table([far])


def test_a_platform_calibrated_to_published_rows_answers_as_calibrated(tmp_path: Path) -> None:
    """whatif finds a calibration to published measurements in the store: it simulates the
    platform with the fitted values, bands the answer with that calibration's held-out error
    and names it; --uncalibrated answers from the file as it is."""
    workload = tmp_path / "w.yaml"
    workload.write_text(dump_workload(kernel_workload("vpic-io", 64, ["--particles", "65536"])))
    store_path = tmp_path / "s.db"
    with Store(store_path) as store:
        store.add_calibration("csd3", {"filesystem.target_mbs": 70.0}, fit_error=0.1,
                              heldout_error=0.2, details={
                                  "measurements": "/x/calibration.csv", "rate": "max",
                                  "cases": 6, "band_error": 0.5, "scales": [32, 64],
                                  "scale_out": {"64": 0.3}})

    def whatif(*extra: str) -> dict:
        done = subprocess.run([sys.executable, "-m", "iotwin", "whatif", "--workload",
                               str(workload), "--platforms", "csd3", "--store", str(store_path),
                               "--json", *extra], capture_output=True, text=True, check=True)
        [prediction] = json.loads(done.stdout)
        return prediction

    calibrated, plain = whatif(), whatif("--uncalibrated")
    assert calibrated["band_source"] == "calibration 1 to calibration.csv"
    default, uncalibrated = calibrated["default"], plain["default"]
    assert default["band"] == pytest.approx(
        [default["rate_mbs"] / 1.5, default["rate_mbs"] * 1.5])
    assert default["rate_mbs"] < uncalibrated["rate_mbs"]  # 70 MB/s targets, not 700
    assert uncalibrated["band"] is None and "no published measurement" in plain["warning"]


def test_a_search_refuses_configs_whose_simulation_costs_too_much() -> None:
    """A search hands iosim its per-config limit: a config estimated beyond it fails before it
    runs (buffering off walks every piece of every rank), the default always runs."""
    limits: list[float | None] = []

    def recording(platform: Platform, work: Any, configs: list[Any],
                  max_steps: float | None = None) -> list[SimResult]:
        limits.append(max_steps)
        return stand_in(platform, work, configs)

    study(WORK, ["hopper"], load_platform, recording, tuning=Tuning(SPACE, budget=20))
    assert limits[0] is None and set(limits[1:]) == {SEARCH_MAX_STEPS}
    load, simulated = _simulator()

    def rates(platform: Platform, work: Any, configs: list[Any],
              max_steps: float | None = None) -> list[float | None]:
        return [r.rate_mbs if r.ok else None
                for r in simulated(platform, work, configs, max_steps=max_steps)]

    hopper = load("hopper")
    work = {"iotwin_workload": 1, "name": "w", "ranks": 64, "files": [
        {"name": "f.dat", "api": "mpiio", "datasets": [
            {"name": "/d", "element_bytes": 8,
             "decomposition": {"grid": [4, 4, 4], "block": [64, 64, 64]}}]}]}
    off = {"mpiio": {"romio_cb_write": "disable"}}
    default, unbuffered = rates(hopper, work, [{}, off])
    assert default is not None and unbuffered is not None
    # 64 x 64^2 pieces one by one against a limit the buffered config stays within
    assert rates(hopper, work, [{}, off], max_steps=100_000) == [rates(hopper, work, [{}])[0],
                                                                 None]


def test_a_tuning_whatif_says_how_far_it_is(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A search of minutes is not silent: every PROGRESS_EVERY_S (here every batch) a line
    with the simulations so far and the best rate of the last batch."""
    monkeypatch.setattr("iotwin.commands.whatif.PROGRESS_EVERY_S", 0.0)
    work = tmp_path / "w.yaml"
    work.write_text(dump_workload(kernel_workload("vpic-io", 4, ["--particles", "1000"])))
    assert main(["whatif", "--workload", str(work), "--platforms", "hopper", "--tune",
                 "--budget", "12", "--uncalibrated", "--store", str(tmp_path / "s.db")]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "simulations so far" in line]
    counts = [int(line.split("hopper: ")[1].split()[0]) for line in lines]
    assert len(counts) >= 2 and counts == sorted(counts) and counts[-1] <= 12 + 2
