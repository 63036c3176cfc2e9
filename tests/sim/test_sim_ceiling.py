"""The ceiling iosim gives every run (IOSIM.md "Ceiling and binding mechanism"), over random
platforms, workloads and configs (Hypothesis; hand-set layouts on each OST pool, and
frontier's default progressive layout with Data-on-MDT, among them): no simulated rate is
above its ceiling, the time charged to mechanisms adds up to the run's time, and the ceiling
is made of the resources the run used. The workloads are of two kinds: datasets written one
call each, and sessions as the interposer captures them (WORKLOAD.md "Captured workloads"):
HDF5 or raw MPI-IO, small records of the ranks interleaved, whole blocks, strided runs,
repeated calls, flushes and compute gaps between them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from iotwin.model.platforms import Platform
from iotwin.model.sim import simulate
from support.platform_strategies import platforms

MiB = 2**20
#: every shipped platform: Lustre with and without a client cache, GPFS, this machine's page
#: cache (which close leaves dirty), routers on either side
PLATFORMS = ("hopper", "archer", "bluewaters", "stampede", "titan", "cab", "ranger", "cirrus",
             "csd3", "frontier", "perlmutter", "intrepid", "local")
#: SimGrid shares bandwidth to a relative precision of 1e-5 (its maxmin/precision)
TOLERANCE = 1e-5
EXAMPLES = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
CAPTURED_EXAMPLES = settings(EXAMPLES, max_examples=200)


@st.composite
def workloads(draw: st.DrawFn) -> dict[str, Any]:
    ranks = draw(st.sampled_from((1, 2, 7, 16, 64, 300, 1024)))
    block = draw(st.sampled_from((1, 100, 4096, 65536, MiB)))
    datasets = [{"name": f"/d{i}", "element_bytes": draw(st.sampled_from((4, 8))),
                 "decomposition": {"grid": [ranks], "block": [block]},
                 "transfer": draw(st.sampled_from(("collective", "independent")))}
                for i in range(draw(st.integers(1, 4)))]
    file: dict[str, Any] = {"name": "f%r.h5", "datasets": datasets,
                            "mode": draw(st.sampled_from(("shared", "shared", "per-rank"))),
                            "flushes": draw(st.sampled_from((0, 0, 1)))}
    if file["mode"] == "per-rank":
        for dataset in datasets:
            dataset["decomposition"] = {"grid": [1], "block": [block]}
    return {"iotwin_workload": 1, "name": "random", "ranks": ranks,
            "ranks_per_node": draw(st.sampled_from((1, 4, 16, 32))), "files": [file]}


#: the sizes captured records come in: a byte, a page, IOR's hard record, a stripe
RECORDS = (1, 4096, 47008, MiB)


def _records(ranks: int, record: int, origin: int) -> dict[str, Any]:
    """Every rank one record, rank after rank (IOR's hard write)."""
    return {"grid": [ranks], "block": [record], "origin": [origin]}


def _strided(ranks: int, record: int, origin: int, count: int) -> dict[str, Any]:
    """Every rank ``count`` records, each ``ranks`` records after its last (one strided view)."""
    return {"runs": [{"ranks": [0, ranks], "start": [origin], "start_step": [record],
                      "stride": [ranks * record], "count": [count], "block": [record]}]}


@st.composite
def captured_calls(draw: st.DrawFn, ranks: int, region: str) -> tuple[list[dict[str, Any]], int]:
    """A captured session's calls of ``region`` and the bytes they write it to."""
    calls: list[dict[str, Any]] = []
    end = 0
    for _ in range(draw(st.integers(1, 3))):
        record = draw(st.sampled_from(RECORDS))
        kind = draw(st.sampled_from(("records", "repeated records", "strided", "blocks")))
        call: dict[str, Any] = {"write": [region],
                                "transfer": draw(st.sampled_from(("collective", "independent"))),
                                "compute_before_s": draw(st.sampled_from((0.0, 0.001, 0.5)))}
        if kind == "strided":
            count = draw(st.integers(2, 16))
            call["selections"] = [_strided(ranks, record, end, count)]
            end += ranks * record * count
        elif kind == "blocks":  # each rank its records one after another: its own block
            count = draw(st.integers(1, 64))
            call["selections"] = [_records(ranks, record * count, end)]
            end += ranks * record * count
        else:
            call["selections"] = [_records(ranks, record, end)]
            if kind == "repeated records":
                times = draw(st.integers(2, 64))
                call["repeat"] = {"times": times, "origin_step": [ranks * record],
                                  "compute_between_s": draw(st.sampled_from((0.0, 0.002)))}
                end += ranks * record * (times - 1)
            end += ranks * record
        calls.append(call)
        if draw(st.integers(0, 3)) == 0:
            calls.append({"flush": True, "compute_before_s": 0.01})
    return calls, end


@st.composite
def captured_workloads(draw: st.DrawFn) -> dict[str, Any]:
    ranks = draw(st.sampled_from((1, 2, 4, 16, 64)))
    mpiio = draw(st.booleans())
    region = "bytes@0" if mpiio else "/data"
    calls, end = draw(captured_calls(ranks, region))
    file: dict[str, Any] = {
        "name": "shared.dat" if mpiio else "shared.h5", "mode": "shared", "create": True,
        "compute_before_s": draw(st.sampled_from((0.0, 1.0))),
        "datasets": [{"name": region, "element_bytes": 1, "dims": [end], "chunk_dims": None}],
        "calls": calls, **({"api": "mpiio"} if mpiio else {})}
    return {"iotwin_workload": 1, "name": "captured", "ranks": ranks,
            "ranks_per_node": draw(st.sampled_from((1, 2, 16))), "files": [file]}


@st.composite
def configs(draw: st.DrawFn, platform: Platform) -> dict[str, Any]:
    hints = ("enable", "disable", "automatic")
    config: dict[str, Any] = {"mpiio": {
        "romio_cb_write": draw(st.sampled_from(hints)),
        "romio_ds_write": draw(st.sampled_from(hints)),
        "cb_nodes": draw(st.sampled_from((1, 2, 4, 8, 32))),
        "cb_config_list": draw(st.sampled_from(("*:1", "*:*"))),
        "cb_buffer_size": draw(st.sampled_from((MiB, 16 * MiB)))}}
    fs = platform.data["filesystem"]
    if fs["type"] == "lustre":
        config["lustre"] = {
            "stripe_count": draw(st.sampled_from((1, 2, 4, 8, 16, 64, -1))),
            "stripe_size": draw(st.sampled_from((64 * 1024, MiB, 4 * MiB, 64 * MiB)))}
        pools = [*fs.get("pools", {}), *([fs["pool"]] if fs.get("pool") else [])]
        if pools and draw(st.booleans()):
            config["lustre"]["pool"] = draw(st.sampled_from(pools))
    if draw(st.booleans()):
        config["dataset"] = {"transfer_mode": draw(st.sampled_from(("collective",
                                                                    "independent")))}
    return config


@st.composite
def cases(draw: st.DrawFn, kind: Any = None) -> tuple[Platform, dict[str, Any],
                                                        list[dict[str, Any]]]:
    platform = draw(platforms(PLATFORMS))
    workload = draw(kind if kind is not None else workloads())
    return platform, workload, [{}, *(draw(configs(platform)) for _ in range(2))]


@EXAMPLES
@given(cases())
def test_no_rate_is_above_its_ceiling(case: tuple) -> None:
    assert_within_ceilings(*case)


@CAPTURED_EXAMPLES
@given(cases(captured_workloads()))
def test_no_rate_of_a_captured_session_is_above_its_ceiling(case: tuple) -> None:
    assert_within_ceilings(*case)


def assert_within_ceilings(platform: Platform, workload: dict[str, Any],
                           batch: list[dict[str, Any]]) -> None:
    for config, result in zip(batch, simulate(platform, workload, batch), strict=True):
        assert result.ok, result.error
        assert result.rate_mbs is not None
        if result.ceiling_mbs is None:  # nothing bounds a write that ends in the cache
            assert result.bound_by["ceiling"].startswith("nothing"), result.bound_by
            continue
        assert result.rate_mbs <= result.ceiling_mbs * (1 + TOLERANCE), (
            platform.name, config, result.rate_mbs, result.ceiling, result.bound_by)
        least = min(term["mbs"] for term in result.ceiling.values())
        assert result.ceiling_mbs == least
        assert result.ceiling[result.bound_by["ceiling"]]["mbs"] == least


@EXAMPLES
@given(cases())
def test_the_time_charged_to_mechanisms_is_the_runs_time(case: tuple) -> None:
    platform, workload, batch = case
    for result in simulate(platform, workload, batch):
        assert result.ok, result.error
        charged = result.time_by_mechanism
        assert sum(charged.values()) == pytest.approx(result.time_s, rel=1e-9, abs=1e-12)
        assert all(seconds >= 0 for seconds in charged.values()), charged
        assert result.bound_by["run"] == max(charged, key=charged.__getitem__)


def ost_bandwidths(platform: Platform) -> list[float]:
    """Each OST's bandwidth, in iosim's order: the file system's own pool, then its others."""
    fs = platform.data["filesystem"]
    pools = [(fs["targets"], fs["target_mbs"])] + [
        (pool["targets"], pool["target_mbs"]) for pool in fs.get("pools", {}).values()]
    return [bandwidth for count, bandwidth in pools for _ in range(count)]


@EXAMPLES
@given(cases())
def test_the_ceiling_is_made_of_what_the_run_used(case: tuple) -> None:
    platform, workload, batch = case
    for result in simulate(platform, workload, batch):
        if "OSTs" not in result.ceiling:  # the writes ended in the client cache
            continue
        bandwidths = ost_bandwidths(platform)
        written = [(b, bw) for b, bw in zip(result.breakdown["bytes_per_target"], bandwidths,
                                            strict=False) if b]
        servers = [b for b in result.breakdown["bytes_per_server"] if b]
        payload = result.breakdown["payload_bytes"]
        # the OSTs written: the payload over the time the busiest needs for its bytes, at
        # most their aggregate bandwidth for their share of the bytes (all of it when they
        # carry the same; Data-on-MDT takes the rest)
        osts = result.ceiling["OSTs"]
        assert osts["count"] == len(written)
        assert osts["mbs"] == pytest.approx(payload / max(b / bw for b, bw in written))
        share = sum(b for b, _ in written) / payload
        assert osts["mbs"] * share <= sum(bw for _, bw in written) * (1 + 1e-9)
        assert result.ceiling["server links"]["count"] == len(servers)
        assert 1 <= result.ceiling["client NICs"]["count"] <= workload["ranks"]
        assert result.best_ceiling_mbs is not None
