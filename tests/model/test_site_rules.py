"""A site's rules (a platform's site_rules): a user's config that breaks one is refused with one
line naming the key, the rule and its source; the site's own default never breaks them; a
search space bound to the platform makes no config that does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from iotwin.config.validation import validate_config
from iotwin.model.platforms import load_platform
from iotwin.model.site_rules import platform_space_context, violations
from iotwin.space.parameters import load_space

GB = 10**9


def shared_file(name: str, ranks: int, per_rank_bytes: int) -> dict[str, Any]:
    return {"iotwin_workload": 1, "name": name, "ranks": ranks, "files": [
        {"name": f"{name}.h5", "mode": "shared", "api": "hdf5", "datasets": [
            {"name": "/x", "element_bytes": 8, "transfer": "collective",
             "decomposition": {"grid": [ranks], "block": [per_rank_bytes // 8]}}]}]}


BIG = shared_file("big", 1024, 2 * GB)  # 2 TB: OLCF lets a layout be set by hand
SMALL = shared_file("small", 64, GB // 10)  # 6.4 GB: OLCF asks for the default layout


def config(**lustre: Any) -> Any:
    return validate_config({"lustre": lustre}, "test")


def test_the_site_default_and_a_machine_without_rules_break_nothing() -> None:
    frontier = load_platform("frontier")
    assert violations(frontier, {}, BIG) == []
    assert violations(frontier, validate_config({"mpiio": {"cb_nodes": 8}}, "t"), BIG) == []
    assert violations(load_platform("hopper"), config(stripe_count=-1), BIG) == []


def test_more_stripes_than_the_site_allows_names_the_rule_and_its_source() -> None:
    [line] = [v for v in violations(load_platform("frontier"), config(stripe_count=900), BIG)
              if "max_stripes_per_file" in v]
    assert line.startswith("lustre.stripe_count: breaks the site rule max_stripes_per_file "
                           "(900 stripes, more than 450 a file; OLCF data storage")
    assert line.endswith("for big.h5")
    perlmutter = violations(load_platform("perlmutter"), config(stripe_count=128), BIG)
    assert any("more than 72 a file" in v and "NERSC" in v for v in perlmutter), perlmutter
    assert violations(load_platform("perlmutter"), config(stripe_count=72), BIG) == []


def test_frontier_asks_for_the_capacity_pool_and_forbids_every_ost() -> None:
    frontier = load_platform("frontier")
    named_none = violations(frontier, config(stripe_count=64, stripe_size=16 * 2**20), BIG)
    assert len(named_none) == 1 and "site rule pool (a hand-set layout on pool " \
        "'performance', not 'capacity'" in named_none[0], named_none
    every = violations(frontier, config(stripe_count=-1), BIG)  # on the 450 flash OSTs
    assert any("site rule forbidden (stripe_count -1 is forbidden: every OST" in v
               for v in every), every
    assert violations(frontier, config(stripe_count=64, pool="capacity"), BIG) == []


def test_a_layout_set_by_hand_on_a_small_file_breaks_the_size_rule() -> None:
    found = violations(load_platform("frontier"), config(stripe_count=8), SMALL)
    assert any(v.startswith("lustre.stripe_count: breaks the site rule stripe_only_above_bytes "
                            "(a layout set by hand on a file of ") for v in found), found
    # a files rule for another file leaves this one at the site's default
    scoped = validate_config({"files": [{"match": "other.h5", "lustre": {"stripe_count": 8}}]},
                             "t")
    assert violations(load_platform("frontier"), scoped, SMALL) == []


def test_a_space_bound_to_frontier_makes_no_config_that_breaks_a_rule() -> None:
    frontier = load_platform("frontier")
    space = load_space("whatif").bind(platform_space_context(frontier, 1024, BIG))
    counts = set()
    for point in space.points():
        made = space.config(point)
        counts.add(made.get("lustre", {}).get("stripe_count"))
        assert violations(frontier, made, BIG) == [], made
        assert made.get("lustre", {"pool": "capacity"})["pool"] == "capacity", made
    assert max(c for c in counts if c is not None) == 450 and -1 not in counts
    small = load_space("whatif").bind(platform_space_context(frontier, 64, SMALL))
    assert not [g.name for g in small.genes if g.layout_only]
    assert all("lustre" not in small.config(p) for p in small.points())


def test_simulate_refuses_a_config_that_breaks_a_rule_in_one_line(tmp_path: Path) -> None:
    cfg = tmp_path / "wide.yaml"
    cfg.write_text("lustre: {stripe_count: 900}\n")
    command = [sys.executable, "-m", "iotwin", "simulate", "--platform", "perlmutter",
               "--kernel", "vpic-io", "--ranks", "64", "--config", str(cfg)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert f"{cfg}: lustre.stripe_count: breaks the site rule max_stripes_per_file" \
        in done.stderr, done.stderr
    assert "--ignore-site-rules" in done.stderr
    ignored = subprocess.run([*command, "--ignore-site-rules"], capture_output=True, text=True,
                             timeout=300)
    assert ignored.returncode == 0, ignored.stderr
    assert "iotwin: warning:" in ignored.stderr and "max_stripes_per_file" in ignored.stderr


@pytest.mark.parametrize("platform", ["frontier", "perlmutter"])
def test_every_rule_says_where_it_comes_from(platform: str) -> None:
    rules = load_platform(platform).tree["site_rules"]
    assert rules and all("source" in leaf for leaf in rules.values())


def with_rules(platform_name: str, forbidden: list[dict[str, Any]]) -> Any:
    """A model of ``platform_name`` whose site forbids ``forbidden`` (key and value)."""
    from iotwin.model.platforms import parse_platform
    base = load_platform(platform_name)
    tree = {**base.tree, "site_rules": {"forbidden": {"value": forbidden, "source": "test"}}}
    return parse_platform(tree, "test")


def test_a_forbidden_value_is_refused_in_any_block_and_any_component() -> None:
    site = with_rules("frontier", [{"key": "lustre.stripe_count", "value": 8},
                                   {"key": "mpiio.romio_cb_write", "value": "disable"}])
    plain = violations(site, config(stripe_count=8))
    in_component = violations(site, config(components=[
        {"end": 2**20, "stripe_count": 1}, {"end": "eof", "stripe_count": 8}]))
    hint = violations(site, validate_config({"mpiio": {"romio_cb_write": "disable"}}, "t"))
    per_file = violations(site, validate_config(
        {"files": [{"match": "*.h5", "mpiio": {"romio_cb_write": "disable"}}]}, "t"))
    assert [v.split(":")[0] for v in plain if "stripe_count 8 is forbidden" in v] == [
        "lustre.stripe_count"]
    assert [v.split(":")[0] for v in in_component if "stripe_count 8 is forbidden" in v] == [
        "lustre.components[1].stripe_count"]
    assert [v.split(":")[0] for v in hint] == ["mpiio.romio_cb_write"]
    assert [v.split(":")[0] for v in per_file] == ["mpiio.romio_cb_write"]
    assert per_file[0].endswith("in files[0]")
    assert violations(site, validate_config({"mpiio": {"romio_cb_write": "enable"}}, "t")) == []
    # with a workload, the file's resolved settings: the per-file hint reaches big.h5
    assert any("romio_cb_write disable is forbidden" in v and v.endswith("for big.h5")
               for v in violations(site, validate_config(
                   {"files": [{"match": "big.h5", "mpiio": {"romio_cb_write": "disable"}}]},
                   "t"), BIG))
