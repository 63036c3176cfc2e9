"""A campaign's default and tuned configs explained on its platform model: their ceilings,
what binds them, the best ceiling any config of the space reaches, and the measured rates as
shares of them."""

from __future__ import annotations

import pytest
from iotwin.commands.tune import _explanation_text
from iotwin.config.validation import validate_config
from iotwin.model.platforms import load_platform
from iotwin.model.site_rules import platform_space_context
from iotwin.report.mechanisms import rate_text
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.tuning.explanation import explain, most_stripes
from iotwin.tuning.spec import CampaignSpec

HOPPER = CampaignSpec(ranks=96, platform="hopper", kernel="vpic-io",
                      args=("--particles", "65536"), executor="twin", space="table3")


def test_the_most_stripes_a_space_can_set() -> None:
    table3 = load_space("table3")
    hopper = table3.bind(platform_space_context(load_platform("hopper"), 96))
    assert most_stripes(hopper) == 156  # -1: every OST hopper allows
    assert most_stripes(table3.bind(SpaceContext("lustre", 96, max_stripe_count=20))) == 20
    assert most_stripes(load_space("local").bind(SpaceContext("ufs", 4))) is None


def test_default_and_tuned_are_explained_with_their_ceilings() -> None:
    tuned = validate_config({"lustre": {"stripe_count": 48, "stripe_size": "4MiB"}}, "test")
    space = load_space("table3").bind(platform_space_context(load_platform("hopper"), 96))
    explanation = explain(HOPPER, tuned, space)
    assert explanation is not None
    default, wide = explanation.runs["default"], explanation.runs["tuned"]
    assert default.ceiling["OSTs"] == {"count": 2, "mbs": 448}
    assert wide.ceiling["OSTs"]["count"] == 48 and wide.ceiling_mbs > default.ceiling_mbs
    assert explanation.tuned_settings == "lustre.stripe_count=48 lustre.stripe_size=4MiB"
    shares = explanation.fractions({"default": 224.0, "tuned": None})
    assert shares["default"]["of_ceiling"] == pytest.approx(0.5)
    assert shares["default"]["of_best_ceiling"] == pytest.approx(
        224 / explanation.best_ceiling_mbs)
    assert shares["tuned"]["of_ceiling"] is None
    text = _explanation_text(explanation, {"default": 224.0, "tuned": 2000.0}, "hopper")
    assert "measured against the hopper model's ceilings: default 50 % of its 448 MB/s" in text
    assert "why (simulated): default: 2 OSTs" in text
    assert text.count("above it") == 0
    above = _explanation_text(explanation, {"default": 500.0, "tuned": None}, "hopper")
    assert ("default 112 % of its 448 MB/s (above it: the model's ceiling is that much too low "
            "for this machine)" in above)
    assert "tuned (lustre.stripe_count=48 lustre.stripe_size=4MiB): " in text
    assert "targets used" in text and "lock revocations" in text


def test_a_users_own_config_is_explained_beside_them() -> None:
    tuned = validate_config({"lustre": {"stripe_count": 48, "stripe_size": "4MiB"}}, "test")
    yours = validate_config({"lustre": {"stripe_count": 8}}, "test")
    explanation = explain(HOPPER, tuned, None, yours)
    assert explanation is not None and list(explanation.runs) == ["default", "tuned", "yours"]
    mine = explanation.runs["yours"]
    assert mine.ceiling["OSTs"] == {"count": 8, "mbs": 8 * 224}
    assert explanation.runs["default"].ceiling_mbs < mine.ceiling_mbs
    text = _explanation_text(explanation, {"default": 224.0, "tuned": 2000.0,
                                           "yours": mine.ceiling_mbs / 2}, "hopper")
    assert f"yours 50 % of its {rate_text(mine.ceiling_mbs)}" in text
    why = text.split("why (simulated): ")[1]
    assert "; yours: " in why and f"binds it at {rate_text(mine.rate_mbs)}" in why


def test_a_program_whose_workload_was_never_captured_is_not_explained() -> None:
    program = CampaignSpec(ranks=4, command=("./app",), strategy="random")
    assert explain(program, {}, None) is None


def test_a_calibration_that_predicts_the_summary_better_is_the_model_explained_on() -> None:
    """A campaign whose runs showed the targets at half the platform file's rate is set
    against ceilings of half the rate, and says that its model is the calibrated one; a
    calibrated value within 10 % of the file's is simulated but not worth saying."""
    tuned = validate_config({"lustre": {"stripe_count": 48}}, "test")
    calibration = {"filesystem.target_mbs": 112.0, "filesystem.server_mbs": 1800.0,
                   "filesystem.rpc_overhead_s": 0.00029}
    measured = {"default": 110.0, "tuned": None}
    explanation = explain(HOPPER, tuned, None, calibration=calibration, measured=measured)
    assert explanation is not None
    assert explanation.runs["default"].ceiling["OSTs"] == {"count": 2, "mbs": 224}
    assert explanation.calibrated == {"filesystem.target_mbs": (112.0, 224.0),
                                      "filesystem.rpc_overhead_s": (0.00029, 0.0003)}
    text = _explanation_text(explanation, {"default": 112.0, "tuned": None}, "hopper")
    assert ("measured against the hopper model's ceilings as this campaign calibrated it "
            "(filesystem.target_mbs 112 where the file says 224): default 50 % of its 224 MB/s"
            in text)
    loaded = explain(HOPPER, tuned, None)
    assert loaded is not None and loaded.calibrated == {}
    assert loaded.runs["default"].ceiling_mbs == 2 * explanation.runs["default"].ceiling_mbs


def test_the_platform_file_is_kept_where_it_predicts_the_summary_better() -> None:
    """A fit to a few noisy search runs that puts the targets at half their rate, where the
    summary's many runs of the default went at the file's rate, is not what the runs are set
    against; nor is any fit when nothing was measured to judge it by."""
    tuned = validate_config({"lustre": {"stripe_count": 48}}, "test")
    calibration = {"filesystem.target_mbs": 112.0}
    loaded = explain(HOPPER, tuned, None)
    assert loaded is not None
    at_file_rate = {"default": loaded.runs["default"].rate_mbs, "tuned": None}
    for measured in (at_file_rate, None, {"default": None}):
        kept = explain(HOPPER, tuned, None, calibration=calibration, measured=measured)
        assert kept is not None and kept.calibrated == {}
        assert kept.runs["default"].ceiling_mbs == loaded.runs["default"].ceiling_mbs
