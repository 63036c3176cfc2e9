"""The experiment runner: cells from the spec, searches, partial configs, sweeps, the store."""

from __future__ import annotations

import csv
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from iotwin.config.types import Config
from iotwin.core.run_records import RunResult
from iotwin.store.database import Store
from iotwin.studies.experiment.runner import run_experiment
from iotwin.studies.experiment.spec import WorkloadSpec, parse_experiment

LUSTRE, GPFS = "hopper", "intrepid"  # platform models: Lustre (156 OSTs) and GPFS


def fake_rate(platform: str, workload: WorkloadSpec, config: Config) -> float:
    """A made-up model: more stripes, larger buffers and more aggregators are faster."""
    lustre, mpiio = config.get("lustre", {}), config.get("mpiio", {})
    stripes = lustre.get("stripe_count", 1)
    stripes = 200 if stripes == -1 else stripes
    buffer = mpiio.get("cb_buffer_size", 2**20) / 2**20
    aggregators = mpiio.get("cb_nodes", 1)
    return (10.0 * stripes + buffer + aggregators) * (2 if platform == GPFS else 1) \
        * workload.ranks


def fake_measurer(platform: str, workload: WorkloadSpec, configs: Sequence[Config]
                  ) -> list[list[RunResult]]:
    return [[RunResult("ok", total_s=1.0, rate_mbs=fake_rate(platform, workload, c))]
            for c in configs]


SPEC = {
    "name": "fake", "study": ["default-vs-tuned", "partial-tuning", "sensitivity", "scaling"],
    "platforms": [LUSTRE, GPFS],
    "workloads": [{"kernel": "vpic-io", "ranks": 8},
                  {"kernel": "vpic-io", "ranks": 16, "fixed": {"chunk_size": None}}],
    "configs": [{"label": "default", "config": {}},
                {"label": "tuned", "search": {"space": "table3", "budget": 30, "seed": 1}},
                {"label": "lustre-only",
                 "search": {"space": "table3", "budget": 100, "sections": ["lustre"]}},
                {"label": "mpiio-only", "search": {"space": "table3", "budget": 20,
                                                   "strategy": "random", "sections": ["mpiio"]}},
                {"label": "cb", "sweep": {"key": "mpiio.cb_buffer_size",
                                          "values": ["1MiB", "4MiB", "16MiB"]}}],
}


def run_fake(store: Store):
    spec = parse_experiment(SPEC, "fake.yaml")
    return run_experiment(spec, store, measurer=fake_measurer, predictor=fake_measurer,
                          progress=None)


def cells_of(experiment, platform: str, ranks: int) -> dict:
    return {c.label: c for c in experiment.results
            if c.platform == platform and c.workload.ranks == ranks and c.x is None}


def test_cells_are_the_product_of_platforms_workloads_and_entries(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        experiment = run_fake(store)
    # per (platform, workload): default, tuned, lustre-only, mpiio-only, three sweep values
    assert len(experiment.results) == 2 * 2 * 7
    keys = {(c.platform, c.workload.ranks, c.label, c.x) for c in experiment.results}
    assert len(keys) == len(experiment.results)


def test_the_search_keeps_its_best_simulation_within_its_budget(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        experiment = run_fake(store)
        searched = [row for row in store.evaluations(experiment.campaign_id, source="sim")
                    if row.details.get("search") == "tuned"]
    for platform in (LUSTRE, GPFS):
        for ranks in (8, 16):
            tuned = cells_of(experiment, platform, ranks)["tuned"]
            candidates = [r for r in searched if r.platform == platform and r.ranks == ranks]
            # the full Table 3 space is far larger than 30 points: the genetic search
            assert tuned.tuning == {"strategy": "h5evolve", "simulations": 30}
            assert len(candidates) == 1 + 30  # the default, then the budget
            assert tuned.rate_mbs == max(r.rate_mbs for r in candidates)
            assert tuned.rate_mbs > cells_of(experiment, platform, ranks)["default"].rate_mbs


def test_a_workloads_fixed_parameters_are_pinned_in_its_searches(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        experiment = run_fake(store)
        searched = [row for row in store.evaluations(experiment.campaign_id, source="sim")
                    if row.details.get("search") == "tuned"]
    chunked = {row.ranks for row in searched if "chunk_size" in row.config.get("dataset", {})}
    assert chunked == {8}  # 16 ranks: chunk_size fixed to null (the kernel's own layout)


def test_a_partial_search_sets_only_its_sections_and_is_exhaustive_when_it_fits(
        tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        experiment = run_fake(store)
    for ranks in (8, 16):
        lustre = cells_of(experiment, LUSTRE, ranks)
        # 10 stripe counts x 8 stripe sizes fit in 100 simulations; -1 (all OSTs) wins
        assert lustre["lustre-only"].tuning == {"strategy": "exhaustive", "simulations": 80}
        assert set(lustre["lustre-only"].config) == {"lustre"}
        assert lustre["lustre-only"].config["lustre"]["stripe_count"] == -1
        assert lustre["mpiio-only"].tuning == {"strategy": "random", "simulations": 20}
        assert set(lustre["mpiio-only"].config) == {"mpiio"}
        # GPFS has no Lustre parameter: the search has the default alone, and keeps it
        gpfs = cells_of(experiment, GPFS, ranks)
        assert gpfs["lustre-only"].config == {}
        assert gpfs["lustre-only"].rate_mbs == gpfs["default"].rate_mbs


def test_the_search_settings_reach_the_report_rows(tmp_path: Path) -> None:
    from iotwin.report.writing import write_report

    with Store(tmp_path / "s.db") as store:
        experiment = run_fake(store)
        _, csv_path = write_report(store, experiment.campaign_id, tmp_path)
    with csv_path.open() as handle:
        rows = list(csv.DictReader(handle))
    searched = {(r["platform"], r["ranks"], r["config"]): (r["strategy"], r["simulations"])
                for r in rows if r["strategy"]}
    assert searched[(LUSTRE, "8", "lustre-only")] == ("exhaustive", "80")
    assert searched[(GPFS, "16", "tuned")] == ("h5evolve", "30")
    assert {r["config"] for r in rows if not r["strategy"]} == {"default", "cb"}


def test_sweep_values_are_normalised_and_every_cell_is_stored(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        experiment = run_fake(store)
        measured = store.evaluations(experiment.campaign_id, source="sim")
    sweep = [c for c in experiment.results if c.label == "cb"]
    assert sorted({c.x for c in sweep}) == [2**20, 2**22, 2**24]
    for cell in sweep:
        assert cell.config == {"mpiio": {"cb_buffer_size": cell.x}}
    cell_rows = [r for r in measured if "cell" in r.details]
    assert len(cell_rows) == len(experiment.results)


def test_a_tiny_real_experiment_runs_end_to_end(tmp_path: Path) -> None:
    spec = tmp_path / "tiny.yaml"
    spec.write_text("""
name: tiny
study: sensitivity
measure: real
repetitions: 2
platforms: [local]
workloads: [{kernel: vpic-io, ranks: 2, args: [--particles, "4096"]}]
configs:
  - {label: default, config: {}}
  - label: cb_nodes
    sweep: {key: mpiio.cb_nodes, values: [1, 2],
            base: {mpiio: {romio_cb_write: enable, cb_config_list: "*:*"}}}
""")
    done = subprocess.run([sys.executable, "-m", "iotwin", "experiment", str(spec), "--store",
                           "e.db", "-o", "out"], cwd=tmp_path, text=True, capture_output=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("local vpic-io x2:") == 3  # one progress line per cell
    with Store(tmp_path / "e.db") as store:
        (campaign,) = store.campaigns(kind="experiment")
        rows = store.evaluations(campaign.id, source="real")
    assert len(rows) == 3 * 2 and all(r.ok for r in rows)
    with (tmp_path / "out" / f"report-{campaign.id}.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert [(r["config"], r["x"]) for r in table] == [("default", ""), ("cb_nodes", "1"),
                                                      ("cb_nodes", "2")]
    assert all(float(r["rate_min_mbs"]) <= float(r["rate_mbs"]) <= float(r["rate_max_mbs"])
               for r in table)
    assert (tmp_path / "out" / f"report-{campaign.id}.html").stat().st_size > 0
