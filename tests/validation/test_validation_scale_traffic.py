"""The scale audit and the traffic table on real simulations: what they measure and name."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import yaml
from iotwin.validation.scale.audit import AuditPoint, knees, read_points, run_audit
from iotwin.validation.scale.report import write_outputs
from iotwin.validation.traffic import run_traffic


def test_the_audit_runs_every_kernel_and_config_up_to_the_full_size(tmp_path: Path) -> None:
    spec = tmp_path / "audit.yaml"
    spec.write_text(yaml.safe_dump({
        "scales": [64, 256], "kernels": {"vpic-io": ["--particles", "4096"],
                                         "gcrm-io": "subdomains"},
        "gcrm_levels": 2, "tuned": {"lustre": {"stripe_count": -1}}, "max_seconds": 120,
        "platforms": {"hopper": {"full_ranks": 128}}}))
    points = run_audit(spec)
    # scales below the full size, then the full size: 64 and 128 ranks
    assert sorted({p.ranks for p in points}) == [64, 128]
    assert len(points) == 2 * 2 * 2 and all(p.ok for p in points)
    for p in points:
        assert p.rate_mbs and p.rate_mbs > 0 and p.binding
        assert p.peak_mib > 1 and p.sim_seconds > 0
        assert set(p.phases) >= {"open", "write", "close"}


def point(ranks: int, rate: float, binding: str) -> AuditPoint:
    return AuditPoint("p", "k", "default", ranks, True, rate, {}, binding, 0.1, 10.0)


def test_a_knee_is_a_change_of_mechanism_not_of_the_ceiling_it_is_measured_against() -> None:
    points = [point(64, 100, "client NICs"), point(512, 400, "OSTs written"),
              point(4096, 300, "per-operation costs (below 30% of OSTs written)"),
              point(32768, 200, "per-operation costs (below 30% of servers written)")]
    assert knees(points) == [
        "p k default: 64 -> 512 ranks, rate x4.00: client NICs -> OSTs written",
        "p k default: 512 -> 4096 ranks, rate x0.75: OSTs written -> "
        "per-operation costs (below 30% of OSTs written)"]


def test_writing_some_platforms_keeps_the_others_recorded_points(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("<!-- scale audit results: begin -->\n"
                                        "<!-- scale audit results: end -->\n")
    first = [replace(point(64, 100, "OSTs written"), platform=name) for name in ("a", "b")]
    write_outputs(first, tmp_path)
    rerun = [replace(point(64, 250, "servers written"), platform="b")]
    record = write_outputs(rerun, tmp_path)
    assert {(p.platform, p.rate_mbs) for p in record} == {("a", 100), ("b", 250)}
    assert {(p.platform, p.rate_mbs) for p in read_points(tmp_path / "results.json")} == {
        ("a", 100), ("b", 250)}
    assert (tmp_path / "rate-a.png").exists() and "| a | k | default | 64 | 100 |" in (
        tmp_path / "README.md").read_text()


def test_simulated_traffic_beside_the_logs() -> None:
    found = {(f.log, bool(f.config.get("mpiio"))): f for f in run_traffic()}
    for key in [("example.darshan", False), ("sample-dxt-simple.darshan", False)]:
        f = found[key]
        assert f.simulated.bytes_written == f.logged.bytes_written, key
        assert sum(f.simulated.write_sizes) == f.simulated.writes - f.metadata_writes
    ior = found[("ior_hdf5_example.darshan", False)]  # HDF5 metadata: calls, not bytes
    missing = ior.logged.bytes_written - ior.simulated.bytes_written
    assert 0 < missing < 0.001 * ior.logged.bytes_written
    enabled, automatic = found[("example.darshan", False)], found[("example.darshan", True)]
    assert enabled.simulated.writes > 1000 * automatic.simulated.writes  # stripe-sized buffers
    assert automatic.simulated.writes == automatic.ranks  # one independent write per rank
    dxt = found[("sample-dxt-simple.darshan", False)]
    assert dxt.simulated.writes == dxt.logged.writes == 1
