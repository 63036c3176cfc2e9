"""What `iotwin tune` offers: the tuned config only when the interleaved summary does not say
it is no faster than the default, no speedup claimed when the best config is the default
itself, and a first model error over 100 % flagged with what it means for the screening."""

from __future__ import annotations

from iotwin.commands.tune import _model_warning, offered, speedup_lines
from iotwin.core.stats import paired_speedup


def test_a_config_whose_interval_covers_one_is_not_offered() -> None:
    default = [100.0, 110.0, 90.0, 105.0, 95.0, 100.0, 102.0, 98.0]
    mixed = [60.0, 180.0, 50.0, 170.0, 55.0, 160.0, 65.0, 150.0]  # 0.5x to 1.8x: covers 1
    faster = [150.0, 160.0, 140.0, 155.0, 150.0, 152.0, 149.0, 151.0]
    slower = [50.0, 55.0, 45.0, 52.0, 48.0, 50.0, 51.0, 49.0]
    covering = paired_speedup(default, mixed)
    assert covering.low is not None and covering.low <= 1 <= covering.high
    assert not offered(covering)
    assert offered(paired_speedup(default, faster))
    assert not offered(paired_speedup(default, slower))


def test_too_few_pairs_for_an_interval_still_offer_the_config() -> None:
    assert offered(paired_speedup([100.0, 100.0], [150.0, 160.0]))  # the summary says why
    assert offered(None)


def test_a_model_error_over_100_percent_is_flagged() -> None:
    assert _model_warning(None) == "" and _model_warning(0.4) == ""
    assert "off by more than 2x" in _model_warning(40.89)


def test_the_default_found_best_claims_no_speedup_over_itself() -> None:
    default = [100.0, 110.0, 90.0, 105.0, 95.0, 100.0, 102.0, 98.0]
    again = [130.0, 125.0, 120.0, 128.0, 126.0, 131.0, 122.0, 127.0]  # the same config, later
    interval = paired_speedup(default, again)
    same = speedup_lines(1.26, interval, tuned_is_default=True)
    assert len(same) == 1 and "the same config" in same[0] and "no speedup" in same[0]
    assert interval.text() not in same[0]
    other = speedup_lines(1.26, interval, tuned_is_default=False)
    assert other == ["tuned / default: 1.26x (medians, same session, interleaved)",
                     interval.text()]
    assert speedup_lines(None, None, tuned_is_default=True) == []
