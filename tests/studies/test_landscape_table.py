"""Measured landscapes: measuring one for real, the table it becomes, and replaying it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from iotwin.core.errors import UserError
from iotwin.core.hashing import config_hash
from iotwin.core.run_records import Target
from iotwin.executors.table import Landscape, TableExecutor, read_table, write_table
from iotwin.space.parameters import BoundSpace, SpaceContext, load_space
from iotwin.space.restricted import RestrictedSpace
from iotwin.store.database import Store
from iotwin.studies.landscape import conditions, measure_landscape, pass_order
from iotwin.validation.local import Suite
from support.programs import REPO_ROOT

ROOT = REPO_ROOT
VPIC_TABLE = ROOT / "experiments" / "landscape" / "vpic-io-4.csv"
TINY = Suite(samples=3, repetitions=2, ranks=2, args=("--particles", "16384"), seed=3)
TARGET = Target(ranks=4, kernel="vpic-io")


def test_a_landscape_runs_every_config_once_a_pass_and_resumes_without_rerunning(
        tmp_path: Path, build_dir: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        campaign_id, table = measure_landscape(store, TINY, progress=None, workdir=tmp_path)
        rows = store.evaluations(campaign_id)
        again_id, again = measure_landscape(store, TINY, progress=None, workdir=tmp_path)
        assert len(store.evaluations(campaign_id)) == 6  # the resume ran nothing
        found = conditions(store, campaign_id, table)
    assert again_id == campaign_id and again.rates == table.rates
    assert len(rows) == 6 and all(row.ok for row in rows)
    assert table.configs[0] == {}  # the default is always measured
    for repetition in range(2):   # each pass runs every config once, in the pass's own order
        ran = [row.details["sample"] for row in rows if row.repetition == repetition]
        assert ran == pass_order(3, TINY.seed, repetition)
    assert all(len([r for r in row if r]) == 2 for row in table.rates)
    assert found.runs == 6 and found.failed == 0
    assert found.load[0] <= found.load[1] <= found.load[2]


def test_a_table_survives_its_csv_and_a_broken_csv_is_named(tmp_path: Path) -> None:
    table = Landscape("t", [{}, {"dataset": {"transfer_mode": "independent"}}],
                      [[100.0, 120.0, None], [90.0, 80.0, 85.0]])
    write_table(table, tmp_path / "t.csv")
    back = read_table(tmp_path / "t.csv")
    assert back.configs == table.configs and back.rates == table.rates
    assert back.medians() == [110.0, 85.0] and back.optimum == 110.0
    assert back.within({}, 0.0) and not back.within(table.configs[1], 0.2)
    (tmp_path / "bad.csv").write_text("config,settings\n{},default\n")
    with pytest.raises(UserError, match=r"bad\.csv: not a landscape table"):
        read_table(tmp_path / "bad.csv")


def test_a_replayed_config_draws_each_stored_run_once_before_any_twice() -> None:
    table = Landscape("t", [{}], [[1.0, 2.0, 3.0, 4.0, 5.0]])
    first_draw = TableExecutor(table, replay_seed=0).run_once(TARGET, {}).rate_mbs
    replay = TableExecutor(table, replay_seed=0)
    first = [replay.run_once(TARGET, {}).rate_mbs for _ in range(5)]
    assert sorted(first) == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert first_draw == first[0]  # seeded: the same replay seed draws the same order
    other = TableExecutor(table, replay_seed=1)
    assert [other.run_once(TARGET, {}).rate_mbs for _ in range(5)] != first
    missing = replay.run_once(TARGET, {"dataset": {"fill_time": "never"}})
    assert missing.status == "failed" and "not in the table t" in (missing.error or "")


def test_a_restricted_space_offers_and_repairs_to_the_tables_configs_only() -> None:
    table = read_table(VPIC_TABLE)
    space = load_space("local").bind(SpaceContext("ufs", 4))
    restricted = RestrictedSpace(space, table.configs)
    in_table = {config_hash(c) for c in table.configs}
    assert restricted.size == len(table.configs) - 1  # the default is not a point of `local`
    assert {config_hash(restricted.config(p)) for p in restricted.points()} <= in_table
    rng = random.Random(0)
    for _ in range(200):  # any point, a mutant or a child, becomes a table config
        assert config_hash(restricted.config(space.random_point(rng))) in in_table
        assert config_hash(restricted.config(restricted.random_point(rng))) in in_table
    other = load_space("table3").bind(SpaceContext("lustre", 4, max_stripe_count=8))
    with pytest.raises(UserError, match="none of the table's"):
        RestrictedSpace(other, table.configs)


@pytest.mark.parametrize("space", [
    load_space("local").bind(SpaceContext("ufs", 4)),  # genes active under others' values
    load_space("table3").bind(  # a site's rules: bounds clamped, a value forbidden, the
        SpaceContext("lustre", 64, max_stripe_count=8,   # layout moved to the files it may
                     forbidden=(("lustre.stripe_count", -1), ("mpiio.cb_nodes", 2)),
                     layout_files=("data.h5",), layout_pool="flash"),  # go to, in a pool
        {"alignment": None, "chunk_size": None}),
])
def test_a_restricted_space_finds_each_configs_first_point_as_enumerating_the_space_would(
        space: BoundSpace) -> None:
    first: dict[str, tuple[int, ...]] = {}
    for point in space.points():  # every point, in order: the first of each config
        first.setdefault(config_hash(space.config(point)), space.repair(point)[0])
    configs = [space.config(p) for p in random.Random(1).sample(sorted(first.values()), 60)]
    restricted = RestrictedSpace(space, [{}, *configs, configs[0]])  # a default, a duplicate
    assert restricted.allowed == [first[config_hash(c)] for c in configs]


def test_a_table_whose_runs_all_failed_is_a_failed_replay() -> None:
    table = Landscape("t", [{}], [[None, None]])
    run = TableExecutor(table).run_once(TARGET, {})
    assert run.status == "failed" and "every run" in (run.error or "")


def test_a_structural_twin_multiplies_each_settings_rate_by_its_factor() -> None:
    from iotwin.executors.twin import TwinExecutor

    target = Target(ranks=64, kernel="vpic-io", args=("--particles", "16384"))
    config = {"mpiio": {"cb_nodes": 4, "cb_buffer_size": 4 * 2**20}}
    plain = TwinExecutor("hopper", truth_seed=0)
    shaped = TwinExecutor("hopper", truth_seed=0,
                          setting_factors={"mpiio.cb_nodes=4": 0.5,
                                           "mpiio.cb_buffer_size=4MiB": 0.8,
                                           "mpiio.cb_nodes=8": 3.0})  # not in the config
    [base, other] = plain.true_rates(target, [config, {}], jobs=1)
    [scaled, untouched] = shaped.true_rates(target, [config, {}], jobs=1)
    assert base and scaled and scaled == pytest.approx(0.4 * base)
    assert untouched == other  # no setting, no factor
    run = shaped.run_once(target, config, seed=1).rate_mbs
    assert run and plain.run_once(target, config, seed=1).rate_mbs == pytest.approx(run / 0.4)
