"""An experiment report shows swept sizes with units on the page; the CSV keeps bytes."""

from __future__ import annotations

from iotwin.report.experiment import _shown, _size_sweeps, _spans_decades

SPEC = {"configs": [
    {"label": "default", "config": {}},
    {"label": "buffer", "sweep": {"key": ["mpiio.cb_buffer_size", "lustre.stripe_size"]}},
    {"label": "aggregators", "sweep": {"key": "mpiio.cb_nodes"}},
]}


def test_size_sweeps_are_found_by_their_first_key() -> None:
    assert _size_sweeps(SPEC) == {"buffer"}


def test_a_swept_size_is_shown_with_units_and_a_count_is_not() -> None:
    sizes = _size_sweeps(SPEC)
    assert _shown({"config": "buffer", "x": 4 * 2**20}, sizes)["x"] == "4MiB"
    assert _shown({"config": "aggregators", "x": 16}, sizes)["x"] == 16
    assert _shown({"config": "default", "x": ""}, sizes)["x"] == ""


def test_a_log_rate_axis_only_when_rates_span_more_than_ten_times() -> None:
    assert _spans_decades([120.0, 3700.0])
    assert not _spans_decades([400.0, 3700.0])
    assert not _spans_decades([])
