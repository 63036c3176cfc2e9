"""The what-if verdict: which machine wins, whether the bands overlap, and the probability it
is the faster one under log-normal errors whose 90th percentile is each model's band."""

from __future__ import annotations

import math

from iotwin.model.sim import SimResult
from iotwin.report.whatif import verdict
from iotwin.studies.whatif import Prediction


def prediction(platform: str, rate: float, band_error: float | None) -> Prediction:
    return Prediction(platform, "default", SimResult(True, 1.0, rate), band_error=band_error)


def test_a_win_beyond_both_bands_is_near_certain_and_says_so() -> None:
    line = verdict([prediction("a", 100.0, 0.2), prediction("b", 300.0, 0.2)])
    assert line.startswith("verdict: b wins (default 300 MB/s against a's 100 MB/s, 3.00x)")
    assert "beyond both bands" in line
    chance = float(line.split("= ")[1].split(" %")[0])
    z = math.log(3) / (math.hypot(math.log(1.2), math.log(1.2)) / 1.2816)
    assert chance == round(100 * 0.5 * (1 + math.erf(z / math.sqrt(2))))


def test_overlapping_bands_give_a_modest_probability() -> None:
    line = verdict([prediction("a", 100.0, 1.0), prediction("b", 120.0, 1.0)])
    assert "the bands overlap" in line
    assert 50 < float(line.split("= ")[1].split(" %")[0]) < 70


def test_no_band_no_confidence_and_one_machine_no_verdict() -> None:
    assert "no confidence can be given" in verdict([prediction("a", 100.0, None),
                                                     prediction("b", 120.0, 0.5)])
    assert verdict([prediction("a", 100.0, 0.5)]) == ""
