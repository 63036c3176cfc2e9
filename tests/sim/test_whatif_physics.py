"""iotwin whatif against the real simulator: predictions a facility could believe. A checkpoint
of a shared file on 2 nodes: no rate above its ceiling, no ceiling above the best any layout
reaches, tuning never worse than the defaults, and a tuned checkpoint not slower on a file
system with more OSTs."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from iotwin.commands.whatif import _simulator
from iotwin.config.validation import validate_config
from iotwin.model.platforms import load_platform
from iotwin.space.parameters import parse_space
from iotwin.studies.whatif import Tuning, parse_variation, study, vary

RANKS = 32
CHECKPOINT = {
    "iotwin_workload": 1, "name": "checkpoint", "ranks": RANKS, "ranks_per_node": 16,
    "files": [{"name": "ckpt.h5", "role": "checkpoint", "mode": "shared", "api": "hdf5",
               "create": True, "datasets": [
                   {"name": f"/var_{i}", "element_bytes": 8, "transfer": "collective",
                    "decomposition": {"grid": [RANKS], "block": [2**19]}}  # 4 MiB per rank
                   for i in range(4)]}],
}
# no -1 ("all OSTs"): it names a different count on each variant, so a larger file system
# would not offer every config of a smaller one
SPACE = parse_space({"name": "stripes", "parameters": [
    {"name": "stripe_count", "key": "lustre.stripe_count", "values": [1, 4, 16, 32, 64],
     "filesystems": ["lustre"], "at_most": "max_stripe_count"},
    {"name": "stripe_size", "key": "lustre.stripe_size", "values": ["1MiB", "4MiB"]},
]}, "stripes.yaml")


@pytest.fixture(scope="module")
def predictions() -> list[Any]:
    load, simulate = _simulator()
    return study(CHECKPOINT, ["archer", "hopper"], load, simulate,
                 variations=[parse_variation("ost_count=8,48,96")],
                 tuning=Tuning(SPACE, budget=50))


def test_no_rate_above_its_ceiling_nor_a_ceiling_above_the_best(predictions: list[Any]) -> None:
    for p in predictions:
        assert p.default_mbs is not None and p.tuned_mbs is not None
        for result in p.runs().values():
            assert result.rate_mbs <= result.ceiling_mbs * (1 + 1e-5), (p.platform, p.variant)
            assert result.ceiling_mbs <= p.best_ceiling_mbs * (1 + 1e-9), (p.platform, p.variant)


def test_tuned_is_never_below_the_default(predictions: list[Any]) -> None:
    assert all(p.tuned_mbs >= p.default_mbs for p in predictions)


def test_more_osts_are_not_slower_once_tuned(predictions: list[Any]) -> None:
    for platform in ("archer", "hopper"):
        tuned = [p.tuned_mbs for p in predictions if p.platform == platform]
        # equal up to rounding counts as not slower: a rate bound by something the OSTs do
        # not change (ARCHER's HDF5 fill by rank 0, its nodes' clients) is the same on 8 and 96
        assert all(after >= before * (1 - 1e-6) for before, after in itertools.pairwise(tuned)), \
            (platform, tuned)


def test_where_the_osts_bind_more_of_them_are_faster_once_tuned(predictions: list[Any]) -> None:
    tuned = [p.tuned_mbs for p in predictions if p.platform == "hopper"]
    assert tuned[-1] > 1.1 * tuned[0]  # 8 OSTs cap a 1 GiB checkpoint; 96 do not


@pytest.mark.parametrize("platform", ["archer", "hopper"])
def test_the_same_settings_are_not_slower_with_more_osts(platform: str) -> None:
    load, simulate = _simulator()
    configs = [validate_config({"lustre": {"stripe_count": count, "stripe_size": size}}, "test")
               for count in (4, 32, 64) for size in ("1MiB", "4MiB")]
    rates = [[r.rate_mbs for r in simulate(vary(load(platform), {"ost_count": osts}),
                                           CHECKPOINT, configs)]
             for osts in (24, 48, 96)]
    for smaller, larger in itertools.pairwise(rates):
        for before, after in zip(smaller, larger, strict=True):
            assert after >= before * (1 - 0.02)  # more stripes than OSTs fall back to all OSTs


def test_one_ost_is_one_targets_bandwidth_at_most() -> None:
    _, simulate = _simulator()
    archer = load_platform("archer")
    unfilled = validate_config({"lustre": {"stripe_count": 1}, "dataset": {"fill_time": "never"}},
                               "test")
    [one_stripe, filled] = simulate(archer, CHECKPOINT, [unfilled, {"lustre": {"stripe_count": 1}}])
    assert one_stripe.rate_mbs is not None
    assert one_stripe.rate_mbs <= archer.data["filesystem"]["target_mbs"]
    assert one_stripe.ceiling["OSTs"] == {
        "count": 1, "mbs": pytest.approx(archer.data["filesystem"]["target_mbs"])}
    # ARCHER's HDF5 fills a dataset given no fill value (hdf5.fills_default_value): the OST
    # takes every byte twice, so it bounds the payload at half its bandwidth
    assert filled.ceiling["OSTs"] == {
        "count": 1, "mbs": pytest.approx(archer.data["filesystem"]["target_mbs"] / 2, rel=1e-3)}
