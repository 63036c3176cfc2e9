"""Strategies against a measured table: each runs unchanged through `iotwin tune`, and the
benchmark counts real runs to the optimum as the tuning pipeline would spend them."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from iotwin.core.hashing import config_hash
from iotwin.core.run_records import Target
from iotwin.executors.table import Landscape, read_table, write_table
from iotwin.search import STRATEGIES
from iotwin.store.database import Store
from iotwin.studies.strategy_benchmark import (
    SIMULATION_MEMO,
    BenchmarkSettings,
    StrategyFigures,
    TableCase,
    Trajectory,
    run_benchmark,
    run_in_parallel,
    runs_relative_interval,
    runs_relative_to,
)
from iotwin.tuning.transfer import earlier_residuals
from support.programs import REPO_ROOT

ROOT = REPO_ROOT
VPIC_TABLE = ROOT / "experiments" / "landscape" / "vpic-io-4.csv"
TARGET = Target(ranks=4, kernel="vpic-io", args=("--particles", "1048576"))


def _case(table: Landscape, path: Path) -> TableCase:
    write_table(table, path)
    return TableCase("t", path, table, TARGET, "local", "local", None)


#: sim-screened's one seed at a cap that goes past its first batch (6 runs): a second batch,
#: cut to 2 runs by the cap, and a refit of its platform model to the 8
ONE_SEED = BenchmarkSettings(seeds=1, caps={"sim-screened": 8})


@dataclass(frozen=True)
class SeedZero:
    case: TableCase
    store: Path  # the campaign's store, not to be written: a test that adds to it copies it
    figures: StrategyFigures


@pytest.fixture(scope="module")
def sim_screened_seed_0(tmp_path_factory: pytest.TempPathFactory) -> SeedZero:
    """sim-screened's campaign at seed 0 by run_benchmark (no memo of simulations), run once
    for the tests that resume it and that compare it with the memo's."""
    folder = tmp_path_factory.mktemp("seed-0")
    case = _case(read_table(VPIC_TABLE), folder / "t.csv")
    with Store(folder / "s.db") as store:
        [figures] = run_benchmark(case, ["sim-screened"], ONE_SEED, store, progress=None)
    return SeedZero(case, folder / "s.db", figures)


def _noise_free(table: Landscape) -> Landscape:
    """The table with every pass at its config's median: replays are exact."""
    return replace(table, rates=[[m] * 3 for m in table.medians()])


@pytest.mark.parametrize("strategy", ["sim-screened", "h5evolve", "random", "optuna-tpe",
                                      "skopt-gp"])
def test_every_strategy_tunes_against_the_table_through_the_command_line(
        tmp_path: Path, strategy: str) -> None:
    store, budget = tmp_path / "s.db", 8  # sim-screened: its first batch (6) and 2 more
    done = subprocess.run(
        [sys.executable, "-m", "iotwin", "tune", "--kernel", "vpic-io", "--ranks", "4",
         "--executor", "table", "--table", str(VPIC_TABLE), "--strategy", strategy,
         "--real-budget", str(budget), "--summary-repeat", "0", "--store", str(store), "--json",
         "--output", str(tmp_path / "tuned.yaml"), "--", "--particles", "1048576"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "tuner")},
        timeout=600)
    assert done.returncode == 0, done.stderr
    table = read_table(VPIC_TABLE)
    in_table = {config_hash(c) for c in table.configs}
    with Store(store) as opened:
        rows = opened.evaluations(source="real")
    search = [r for r in rows if "measured_index" in r.details]
    assert 1 <= len({r.config_hash for r in search}) <= budget
    assert {r.config_hash for r in rows} <= in_table  # every run replayed a table config
    assert all(r.rate_mbs in table.rates_of(r.config) for r in rows)
    assert json.loads(done.stdout)["runs_used"] <= budget


def test_a_search_over_every_config_of_an_exact_table_finds_its_optimum(tmp_path: Path) -> None:
    table = _noise_free(read_table(VPIC_TABLE))
    settings = BenchmarkSettings(seeds=2, caps={"exhaustive": len(table.configs)})
    with Store(tmp_path / "s.db") as store:
        [figures] = run_benchmark(_case(table, tmp_path / "t.csv"), ["exhaustive"], settings,
                                  store, progress=None)
    for trajectory in figures.trajectories:
        assert trajectory.runs == len(table.configs) - 1  # every point; the default is extra
        assert trajectory.ratios[-1] == 1.0  # exact replays: the confirmation keeps the best
        assert trajectory.costs == sorted(trajectory.costs)
        reached = trajectory.cost_to(0.02)
        assert reached is not None and reached <= trajectory.costs[-1]
        # the cost counts the confirmation: 3 candidates and the default, 3 runs each
        assert trajectory.costs[-1] == trajectory.runs + 12
        # found: the optimum is found the run it runs, and no recommendation comes before
        assert len(trajectory.measured_best) == trajectory.runs
        assert trajectory.measured_best == sorted(trajectory.measured_best)
        found = trajectory.found_in(0.0)
        assert found is not None and trajectory.measured_best[found - 1] == 1.0
        for fraction in (0.0, 0.05, 0.2):
            recommended = trajectory.search_runs_to(fraction)
            assert recommended is None or trajectory.found_in(fraction) <= recommended
    summary = figures.summary(0.02)
    assert summary["misses"] == 0 and summary["q1"] <= summary["median"] <= summary["q3"]


@pytest.mark.parametrize("strategy", ["optuna-tpe", "skopt-gp"])
def test_an_optimiser_stops_when_a_small_table_is_spent(tmp_path: Path, strategy: str) -> None:
    full = read_table(VPIC_TABLE)
    table = replace(full, configs=full.configs[:7], rates=full.rates[:7])
    settings = BenchmarkSettings(seeds=1, caps={strategy: 50})
    with Store(tmp_path / "s.db") as store:
        [figures] = run_benchmark(_case(table, tmp_path / "t.csv"), [strategy], settings,
                                  store, progress=None)
    assert 1 <= figures.trajectories[0].runs <= 6  # the 6 points of the table, no more


def test_the_baselines_are_registered_strategies() -> None:
    assert {"optuna-tpe", "optuna-gp", "skopt-gp"} <= set(STRATEGIES)
    assert not STRATEGIES["optuna-tpe"].needs_model and not STRATEGIES["skopt-gp"].needs_model


def _small_benchmark(folder: Path, configs: int, name: str, settings: str) -> Path:
    """A benchmark spec ``name`` (``settings``, then its table) over the first ``configs``
    configs of vpic-io-4's table, as the table ``small``."""
    full = read_table(VPIC_TABLE)
    landscape = folder / "small.yaml"
    landscape.write_text((VPIC_TABLE.with_suffix(".yaml")).read_text())
    write_table(replace(full, configs=full.configs[:configs], rates=full.rates[:configs]),
                landscape.with_suffix(".csv"))
    spec = folder / name
    spec.write_text(settings + "tables: {small: small.yaml}\n")
    return spec


def test_the_benchmark_command_writes_its_figures_page_and_readme_table(tmp_path: Path) -> None:
    spec = _small_benchmark(tmp_path, 25, "strategy-benchmark.yaml",
                            "seeds: 2\ntargets: [0.1, 0.02]\n"
                            "strategies: {random: 25, optuna-tpe: 25}\n")
    readme = tmp_path / "README.md"
    readme.write_text("<!-- strategy-benchmark results: begin -->\n"
                      "<!-- strategy-benchmark results: end -->\n")
    done = subprocess.run(
        [sys.executable, "-m", "iotwin", "landscape", "benchmark", str(spec), "--output",
         str(tmp_path / "out"), "--readme", str(readme)],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "tuner")},
        timeout=600)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())["tables"]["small"]
    assert set(results["strategies"]) == {"random", "optuna-tpe"}
    for figures in results["strategies"].values():
        assert len(figures["runs_each_within_10pct"]) == 2
        assert figures["within_10pct"]["median"] <= figures["within_2pct"]["median"]
        # runs to X% are the search's; the confirmation's are shown beside them, on top
        for searched, confirmed in zip(figures["runs_each_within_10pct"],
                                       figures["with_confirmation_each_within_10pct"],
                                       strict=True):
            assert (searched is None) == (confirmed is None)
            assert searched is None or 0 < searched < confirmed
        # what the search had found, beside what it would have recommended
        for searched, found in zip(figures["runs_each_within_10pct"],
                                   figures["found_each_within_10pct"], strict=True):
            assert searched is None or (found is not None and found <= searched)
        assert figures["found_within_10pct"]["median"] <= figures["within_10pct"]["median"]
    assert 0 < results["resolution"]["optimum_kept"] <= 1
    loaded = results["model_ties"]["loaded"]
    assert 1 <= loaded["tied"] <= 25 and 1 <= loaded["optimum_place"] <= 25
    assert results["model_ties"]["fitted_parameters"]
    assert results["resolution"]["contenders"] >= 1
    assert (tmp_path / "out" / "small.png").stat().st_size > 0
    assert "small | optuna-tpe | 25 |" in readme.read_text()
    assert "standard error" in readme.read_text()
    assert "Runs to X%: the search's real runs until the config" in readme.read_text()
    assert "small: the model refitted to every config's median (" in readme.read_text()
    assert "bootstrap" in (tmp_path / "out" / "index.html").read_text()
    assert not (tmp_path / "out" / "campaigns").exists()  # a finished run leaves none to resume


def test_kept_campaigns_outlive_the_benchmark_and_report_again_without_running(
        tmp_path: Path) -> None:
    spec = _small_benchmark(tmp_path, 10, "kept.yaml",
                            "seeds: 1\ntargets: [0.1]\nstrategies: {random: 6}\n")

    def benchmark() -> dict:
        done = subprocess.run(
            [sys.executable, "-m", "iotwin", "landscape", "benchmark", str(spec), "--output",
             str(tmp_path / "out"), "--force", "--model-analysis", "off", "--keep-campaigns"],
            capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT / "tuner")}, timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads((tmp_path / "out" / "results.json").read_text())

    first = benchmark()
    kept = tmp_path / "out" / "campaigns"
    stores = list(kept.glob("*.db"))
    assert len(stores) == 1 and len(list(kept.glob("*.finished.json"))) == 1
    with Store(stores[0]) as store:
        runs = len(store.evaluations(source="real"))
    assert runs == first["tables"]["small"]["strategies"]["random"]["cap"] == 6
    assert benchmark() == first  # read back from the kept figures
    with Store(stores[0]) as store:
        assert len(store.evaluations(source="real")) == runs  # nothing ran again


def test_a_twin_table_binds_its_space_to_the_platform_it_was_measured_on() -> None:
    from iotwin.tuning.parts import campaign_space
    from iotwin.tuning.spec import CampaignSpec

    path = ROOT / "experiments" / "landscape" / "hopper-twin-2048.csv"
    spec = CampaignSpec(ranks=2048, platform="hopper", space="table3", strategy="random",
                        executor="table", real_budget=10, kernel="vpic-io",
                        args=("--particles", "131072"), table=str(path))
    space = campaign_space(spec)
    assert space.context.filesystem == "lustre"  # hopper's, not this machine's
    in_table = {config_hash(c) for c in read_table(path).configs}
    points = list(space.points())
    assert len(points) >= 140  # the table's configs but the default (not a point)
    assert all(config_hash(space.config(p)) in in_table for p in points)


def test_a_benchmark_run_again_on_its_store_resumes_the_campaigns_it_finds(
        tmp_path: Path, sim_screened_seed_0: SeedZero) -> None:
    case, first = sim_screened_seed_0.case, sim_screened_seed_0.figures
    shutil.copy(sim_screened_seed_0.store, tmp_path / "s.db")
    with Store(tmp_path / "s.db") as store:
        runs = len(store.evaluations(source="real"))
        [again] = run_benchmark(case, ["sim-screened"], replace(ONE_SEED, seeds=2), store,
                                progress=None)
        assert len(store.campaigns()) == 2  # seed 0's found, seed 1's new
        seed_0 = store.campaigns()[0].id
        assert len(store.evaluations(seed_0, source="real")) == runs  # nothing ran twice
        # seed 1 shares seed 0's store but learnt nothing from it: each measures from scratch
        assert earlier_residuals(store, store.campaigns()[1].id, case.platform) == []
    resumed = again.trajectories[0]
    assert (resumed.costs, resumed.ratios) == (first.trajectories[0].costs,
                                               first.trajectories[0].ratios)
    assert resumed.model["chosen_error"] == first.trajectories[0].model["chosen_error"]
    assert len(again.trajectories) == 2


def _processes_in_group(group: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def test_a_terminated_benchmark_leaves_no_worker_running(tmp_path: Path) -> None:
    import signal
    import time

    landscape = tmp_path / "t.yaml"
    landscape.write_text((VPIC_TABLE.with_suffix(".yaml")).read_text())
    write_table(read_table(VPIC_TABLE), landscape.with_suffix(".csv"))
    spec = tmp_path / "slow.yaml"  # skopt-gp at a cap of 150: most of a minute per campaign
    spec.write_text("seeds: 20\nstrategies: {skopt-gp: 150, random: 150}\ntables: {t: t.yaml}\n")
    run = subprocess.Popen(
        [sys.executable, "-m", "iotwin", "landscape", "benchmark", str(spec), "--jobs", "2",
         "--output", str(tmp_path / "out")],
        stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "tuner")})
    try:
        stores = tmp_path / "out" / "campaigns"
        deadline = time.monotonic() + 120  # a bound against a hang, not a timing check
        while len(list(stores.glob("t-*.db"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(list(stores.glob("t-*.db"))) == 2, "the two workers never started"
        run.send_signal(signal.SIGTERM)
        _, stderr = run.communicate(timeout=120)
        assert run.returncode == 143, stderr
        assert "interrupted" in stderr
        while _processes_in_group(run.pid) and time.monotonic() < deadline + 120:
            time.sleep(0.2)
        assert _processes_in_group(run.pid) == []
    finally:  # whatever failed above, nothing of it outlives the test
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGKILL)


def test_optuna_gp_without_pytorch_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    import random

    from iotwin.core.errors import UserError
    from iotwin.search import strategy_settings
    from iotwin.search.ask_tell import optuna_gp

    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    with pytest.raises(UserError, match="optuna-gp needs PyTorch: `make optuna-gp`"):
        optuna_gp(None, random.Random(0), strategy_settings("optuna-gp"))  # type: ignore[arg-type]


def test_campaigns_run_in_parallel_as_they_run_one_after_another_and_resume(
        tmp_path: Path) -> None:
    case = _case(read_table(VPIC_TABLE), tmp_path / "t.csv")
    two_seeds = BenchmarkSettings(seeds=2, caps={"random": 15, "optuna-tpe": 15})
    campaigns = tmp_path / "campaigns"
    [parallel] = run_in_parallel([case], two_seeds, campaigns, jobs=2)
    with Store(tmp_path / "serial.db") as store:
        serial = run_benchmark(case, ["random", "optuna-tpe"], two_seeds, store, progress=None)
    assert [f.strategy for f in parallel] == ["random", "optuna-tpe"]
    for ran_apart, ran_in_turn in zip(parallel, serial, strict=True):
        assert [(t.costs, t.ratios) for t in ran_apart.trajectories] == \
            [(t.costs, t.ratios) for t in ran_in_turn.trajectories]
    assert sorted(p.name for p in campaigns.glob("*.db")) == [
        "t-optuna-tpe-seed0.db", "t-optuna-tpe-seed1.db", "t-random-seed0.db",
        "t-random-seed1.db"]  # a store each: no two processes write one file
    with Store(campaigns / "t-random-seed0.db") as store:
        runs = len(store.evaluations(source="real"))
    [again] = run_in_parallel([case], replace(two_seeds, seeds=3), campaigns, jobs=2)
    assert [len(f.trajectories) for f in again] == [3, 3]
    assert again[0].trajectories[0].costs == parallel[0].trajectories[0].costs
    with Store(campaigns / "t-random-seed0.db") as store:
        assert len(store.campaigns()) == 1  # found and resumed, not started again
        assert len(store.evaluations(source="real")) == runs


def test_a_finished_campaign_is_read_back_from_its_record_not_replayed(tmp_path: Path) -> None:
    """A finished campaign leaves its figures beside its store; run again, the benchmark reads
    them and opens no store: here the stores are gone, and none is made again."""
    case = _case(read_table(VPIC_TABLE), tmp_path / "t.csv")
    settings = BenchmarkSettings(seeds=2, caps={"random": 15, "optuna-tpe": 15})
    campaigns = tmp_path / "campaigns"
    [[first_random, first_tpe]] = run_in_parallel([case], settings, campaigns, jobs=2)
    for store in campaigns.glob("*.db"):
        store.unlink()
    [[random_again, tpe_again]] = run_in_parallel([case], settings, campaigns, jobs=2)
    assert not list(campaigns.glob("*.db"))
    for first, again in ((first_random, random_again), (first_tpe, tpe_again)):
        assert again.trajectories == first.trajectories
    # a record of another spec (here: another cap) is not this campaign's: it runs again
    [[longer, _]] = run_in_parallel([case], replace(settings, caps={"random": 16,
                                                                   "optuna-tpe": 15}),
                                  campaigns, jobs=2)
    assert sorted(p.name for p in campaigns.glob("*.db")) == ["t-random-seed0.db",
                                                               "t-random-seed1.db"]
    assert longer.cap == 16


def test_a_campaign_cut_at_two_budgets_with_the_same_candidates_recommends_alike(
        tmp_path: Path) -> None:
    """The confirmation's runs of a config are its next stored repetitions, the same at every
    budget: drawn afresh for each, "runs to 2%" would be the first lucky draw of many."""
    table = read_table(VPIC_TABLE)
    settings = BenchmarkSettings(seeds=1, caps={"random": 60})
    with Store(tmp_path / "s.db") as store:
        [figures] = run_benchmark(_case(table, tmp_path / "t.csv"), ["random"], settings,
                                  store, progress=None)
        rows = store.evaluations(store.campaigns()[0].id, source="real")
    first_runs: dict[str, float] = {}
    for row in rows:
        if row.rate_mbs and "measured_index" in row.details:
            first_runs.setdefault(row.config_hash, row.rate_mbs)
    order = list(first_runs.items())
    candidates = [frozenset(sorted(dict(order[:b]), key=dict(order[:b]).__getitem__)[-3:])
                  for b in range(1, len(order) + 1)]
    [trajectory] = figures.trajectories
    assert len(trajectory.ratios) == len(order)
    by_candidates: dict[frozenset[str], set[float]] = {}
    for chosen, ratio in zip(candidates, trajectory.ratios, strict=True):
        by_candidates.setdefault(chosen, set()).add(ratio)
    assert max(len(c) for c in candidates) == 3
    assert any(candidates.count(c) >= 5 for c in set(candidates))  # the test has a case
    assert all(len(ratios) == 1 for ratios in by_candidates.values())


def test_a_campaign_that_repeats_configs_is_scored_by_its_measurements(tmp_path: Path) -> None:
    from iotwin.executors.table import TableExecutor
    from iotwin.studies.strategy_benchmark import measured_after
    from iotwin.tuning.campaign import open_campaign
    from iotwin.tuning.parts import assemble
    from iotwin.tuning.spec import CampaignSpec

    table = read_table(VPIC_TABLE)
    spec = CampaignSpec(ranks=4, strategy="random", executor="table", real_budget=10,
                        kernel="vpic-io", args=TARGET.args, table=str(VPIC_TABLE))
    replay = TableExecutor(table, replay_seed=0)
    with Store(tmp_path / "s.db") as store:
        campaign = open_campaign(store, store.create_campaign("t", kind="tune",
                                                              spec=spec.to_json()),
                                 assemble(spec, executor=replay))
        points = list(campaign.space.points())[:3]
        campaign.measure(points)
        campaign.repeat([points[0]])
        campaign.repeat([points[0], points[1]])
        assert len(campaign.order) == 6 and campaign.runs_left() == 4
        first = config_hash(campaign.space.config(points[0]))
        runs = [r.rate_mbs for r in campaign.measured[first].runs]
        # each run a different stored repetition of the config, drawn in the replay's order
        assert runs == [replay.replay(campaign.space.config(points[0]), d).rate_mbs
                        for d in range(3)]
        # after 4 measurements: its first run and one repeat count; after all 6, three
        assert measured_after(campaign, 4)[first].rate == pytest.approx(sum(runs[:2]) / 2)
        assert measured_after(campaign, 6)[first].rate == pytest.approx(sorted(runs)[1])
        assert len(measured_after(campaign, 2)) == 2


def _runs_in_order(store_path: Path) -> list[tuple[str, float | None]]:
    with Store(store_path) as store:
        return [(r.config_hash, r.rate_mbs) for r in store.evaluations(source="real")]


def _answers_kept(memo: Path) -> int:
    import sqlite3

    with contextlib.closing(sqlite3.connect(memo)) as db:
        return int(db.execute("SELECT count(*) FROM answers").fetchone()[0])


def test_a_campaign_runs_and_ends_alike_with_and_without_the_memo_of_simulations(
        tmp_path: Path, sim_screened_seed_0: SeedZero) -> None:
    case, plain = sim_screened_seed_0.case, sim_screened_seed_0.figures  # no memo
    [[filling]] = run_in_parallel([case], ONE_SEED, tmp_path / "first", jobs=1)
    memo = tmp_path / "first" / SIMULATION_MEMO
    kept = _answers_kept(memo)
    assert kept > 0
    (tmp_path / "second").mkdir()
    shutil.copy(memo, tmp_path / "second" / SIMULATION_MEMO)
    [[answered]] = run_in_parallel([case], ONE_SEED, tmp_path / "second", jobs=1)
    assert _answers_kept(tmp_path / "second" / SIMULATION_MEMO) == kept  # nothing simulated
    stored = "t-sim-screened-seed0.db"
    plain_runs = _runs_in_order(sim_screened_seed_0.store)
    assert _runs_in_order(tmp_path / "first" / stored) == plain_runs
    assert _runs_in_order(tmp_path / "second" / stored) == plain_runs
    for memoised in (filling, answered):
        [with_memo], [without] = memoised.trajectories, plain.trajectories
        assert (with_memo.costs, with_memo.ratios, with_memo.runs) == \
            (without.costs, without.ratios, without.runs)
        assert with_memo.prior_weights == without.prior_weights
        assert with_memo.model == without.model
        assert with_memo.believed == without.believed


def _reaching(runs: int | None, cap: int) -> Trajectory:
    """A campaign whose recommendation is first within 10% after ``runs`` search runs (None:
    never, in ``cap``)."""
    last = cap if runs is None else runs
    ratios = [0.5] * (last - 1) + [0.5 if runs is None else 1.0]
    return Trajectory(list(range(1, last + 1)), ratios, last, list(range(1, last + 1)))


def test_each_strategy_is_set_against_sim_screened_with_an_interval_over_the_seeds() -> None:
    sim = StrategyFigures("sim-screened", 40, [_reaching(r, 40) for r in (2, 3, 2, 5, 4, 2)])
    other = StrategyFigures("random", 150, [_reaching(r, 150) for r in (8, 12, 8, 20, 30, 8)])
    assert runs_relative_to([sim, other], 0.1)["random"] == 10 / 2.5
    low, high = runs_relative_interval([sim, other], 0.1)["random"]
    # every seed of sim-screened needed fewer: so does every resample of them
    assert 8 / 5 <= low <= 10 / 2.5 <= high <= 30 / 2
    # a seed that missed counts as the cap (40 runs): resamples that draw it twice or more
    # give sim-screened the larger median, and the interval reaches below 1
    missed = StrategyFigures("sim-screened", 40,
                             [_reaching(r, 40) for r in (2, 3, 2, 5, None, 2)])
    assert missed.counted_runs(0.1, searched=True) == [2, 3, 2, 5, 40, 2]
    assert runs_relative_interval([missed, other], 0.1)["random"][0] < 1
    assert runs_relative_interval([other], 0.1) == {}  # no sim-screened, nothing to set against

