"""Invariants of the simulator over random platforms, workloads and configs (Hypothesis).

Each example is one iosim batch: a shipped platform (its OST count varied), a workload of
1-8 one-dimensional datasets written by 1-4096 ranks in one call or one call per dataset,
and three random configs. What must hold whatever they are:

- the bytes that reach the targets are the payload plus only the traffic the model says it
  adds (data sieving's windows, metadata and the gaps of the file), never the file per rank;
- RPCs within a constant factor of the bytes moved over the smallest request unit, plus one
  per piece (a data-sieving rank of 4096 used to count trillions);
- rates finite and positive (at most the run's ceiling: test_sim_ceiling.py);
- the same results run after run, and with one iosim job or two (times to 1e-10:
  IOSIM.md's clock rounding);
- more stripes never make the data movement slower when the data fills them and each stripe
  has its own writer (opening a file with more stripes does cost more: object creation).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from iotwin.model.platforms import Platform
from iotwin.model.sim import SimResult, simulate
from support.platform_strategies import platforms

# Not frontier or perlmutter yet: with their 4 MiB RPCs and fast OSTs the client's write-back
# flush makes more stripes slower in test_more_stripes_never_slow_the_data_down (4 ranks on 4
# nodes, 16 MiB each, independent: perlmutter's close 9.9 ms on 2 stripes of 4 MiB, 13.4 ms on
# 4; flat without write-back), an open question for lustre_client.cpp.
LUSTRE = ("hopper", "archer", "bluewaters", "stampede", "titan", "cab", "ranger", "cirrus", "csd3")
PLATFORMS = (*LUSTRE, "intrepid")
MiB = 2**20
EXAMPLES = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def workloads(draw: st.DrawFn) -> dict[str, Any]:
    ranks = draw(st.sampled_from((1, 2, 7, 16, 64, 300, 1024, 4096)))
    element_bytes = draw(st.sampled_from((4, 8)))
    block = draw(st.sampled_from((1, 100, 4096, 65536, MiB)))
    datasets = [{"name": f"/d{i}", "element_bytes": element_bytes,
                 "decomposition": {"grid": [ranks], "block": [block]}}
                for i in range(draw(st.integers(1, 8)))]
    file: dict[str, Any] = {"name": "f.h5", "datasets": datasets}
    if draw(st.booleans()):
        file["write_calls"] = "one-call"
    return {"iotwin_workload": 1, "name": "random", "ranks": ranks,
            "ranks_per_node": draw(st.sampled_from((1, 4, 16, 32))), "files": [file]}


@st.composite
def configs(draw: st.DrawFn, platform: Platform) -> dict[str, Any]:
    hints = ("enable", "disable", "automatic")
    config: dict[str, Any] = {"mpiio": {
        "romio_cb_write": draw(st.sampled_from(hints)),
        "romio_ds_write": draw(st.sampled_from(hints)),
        "cb_nodes": draw(st.sampled_from((1, 2, 4, 8, 32))),
        "cb_buffer_size": draw(st.sampled_from((MiB, 16 * MiB))),
        "ind_wr_buffer_size": draw(st.sampled_from((64 * 1024, 512 * 1024, 4 * MiB)))}}
    if platform.data["filesystem"]["type"] == "lustre":
        most = platform.data["filesystem"]["max_stripe_count"]
        config["lustre"] = {
            "stripe_count": draw(st.sampled_from([c for c in (1, 2, 4, 8, 16, 32, 64)
                                                  if c <= most])),
            "stripe_size": draw(st.sampled_from((64 * 1024, MiB, 4 * MiB, 64 * MiB)))}
    return config


@st.composite
def cases(draw: st.DrawFn) -> tuple[Platform, dict[str, Any], list[dict[str, Any]]]:
    platform = draw(platforms(PLATFORMS))
    return platform, draw(workloads()), [draw(configs(platform)) for _ in range(3)]


def request_unit(platform: Platform, config: dict[str, Any]) -> int:
    """The smallest unit a request is cut into: an RPC, a stripe, a data-sieving window."""
    units = [platform.data["filesystem"]["rpc_max_bytes"], config["mpiio"]["ind_wr_buffer_size"]]
    units.append(config.get("lustre", {}).get("stripe_size", MiB))
    return min(units)


def pieces(workload: dict[str, Any]) -> int:
    return workload["ranks"] * len(workload["files"][0]["datasets"])


@EXAMPLES
@given(cases())
def test_traffic_stays_the_payload_plus_what_the_model_adds(case: tuple) -> None:
    platform, workload, batch = case
    for config, result in zip(batch, simulate(platform, workload, batch), strict=True):
        assert result.ok, result.error
        bd = result.breakdown
        written, payload = sum(bd["bytes_per_target"]), bd["payload_bytes"]
        read = bd["sieve_read_bytes"]
        assert written >= payload
        # what data sieving writes back beyond the payload it read first; the rest is the
        # file's own (metadata, alignment gaps), which the file's size bounds
        assert written - payload <= read + max(0, bd["file_bytes"] - payload), (config, bd)
        moved = written + read
        assert bd["rpcs"] >= moved / (64 * MiB)  # no RPC larger than the largest stripe
        assert bd["rpcs"] <= 4 * (moved / request_unit(platform, config) + pieces(workload)) \
            + 64, (config, bd["rpcs"], moved)


@EXAMPLES
@given(cases())
def test_rates_are_finite_and_positive(case: tuple) -> None:
    """(At most the run's ceiling: tests/sim/test_sim_ceiling.py.)"""
    platform, workload, batch = case
    for result in simulate(platform, workload, batch):
        assert result.ok, result.error
        assert result.time_s is not None and math.isfinite(result.time_s) and result.time_s > 0
        assert result.rate_mbs is not None and 0 < result.rate_mbs < math.inf


@EXAMPLES
@given(cases())
def test_results_are_deterministic_and_the_same_with_one_or_two_jobs(case: tuple) -> None:
    """Counts are exact whatever the jobs; times are exact run after run, and with two jobs
    equal to the last bits: a phase's time is SimGrid's clock at its end minus at its start,
    and with two jobs a phase may be timed at another clock offset (rounded differently)."""
    platform, workload, batch = case

    def counts(results: list[SimResult]) -> list[tuple]:
        return [(r.breakdown["rpcs"], r.breakdown["bytes_per_target"],
                 r.breakdown["sieve_read_bytes"]) for r in results]

    once = simulate(platform, workload, batch, jobs=1)
    again = simulate(platform, workload, batch, jobs=1)
    two_jobs = simulate(platform, workload, batch, jobs=2)
    assert [r.time_s for r in again] == [r.time_s for r in once]
    assert counts(again) == counts(two_jobs) == counts(once)
    assert [r.time_s for r in two_jobs] == pytest.approx([r.time_s for r in once], rel=1e-10)


@EXAMPLES
@given(platforms(LUSTRE), st.sampled_from((4, 16, 64, 256)),
       st.sampled_from((MiB, 4 * MiB)), st.sampled_from((1, 4, 16)))
def test_more_stripes_never_slow_the_data_down(platform: Platform, ranks: int, stripe: int,
                                               stripes_per_rank: int) -> None:
    block = stripe * stripes_per_rank
    workload = {"iotwin_workload": 1, "name": "stripes", "ranks": ranks, "ranks_per_node": 1,
                "files": [{"name": "f.h5", "datasets": [{
                    "name": "/d", "element_bytes": 1,
                    "decomposition": {"grid": [ranks], "block": [block]}}]}]}
    most = platform.data["filesystem"]["max_stripe_count"]
    counts = [c for c in (1, 2, 4, 8, 16, 32, 64, 128)
              if c <= most and c <= ranks and c * stripe <= ranks * block]
    batch = [{"lustre": {"stripe_count": c, "stripe_size": stripe},
              "mpiio": {"romio_cb_write": "disable"}} for c in counts]
    data_s = [r.phases["write"] + r.phases["close"] for r in simulate(platform, workload, batch)]
    for fewer, more, count in zip(data_s, data_s[1:], counts[1:], strict=False):
        assert more <= fewer * (1 + 1e-9), f"{count} stripes: {fewer:.4g} s -> {more:.4g} s"
