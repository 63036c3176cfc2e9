"""A layout template parameter (key lustre.components): its values name layouts of
tuner/iotwin/data/layouts.yaml, a point's config holds the named layout's components, and
every config a space makes with one is a layout the validator, the site's rules and iosim take."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from iotwin.config.dumping import dump_config
from iotwin.config.validation import validate_config
from iotwin.core.errors import UserError
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.model.site_rules import platform_space_context, violations
from iotwin.space.parameters import load_space, named_layouts, parse_space, read_layouts

MiB = 2**20


def small_file(ranks: int) -> dict[str, Any]:
    """Each rank one 4 MiB block of a shared MPI-IO file."""
    return {"iotwin_workload": 1, "name": "blocks", "ranks": ranks, "ranks_per_node": 8,
            "files": [{"name": "f.dat", "mode": "shared", "api": "mpiio", "datasets": [
                {"name": "/x", "element_bytes": 1, "transfer": "collective",
                 "decomposition": {"grid": [ranks], "block": [4 * MiB]}}]}]}


def test_a_named_layout_becomes_its_components_and_plain_sets_none() -> None:
    frontier = load_platform("frontier")
    space = load_space("pfl").bind(platform_space_context(frontier, 64))
    dom = space.config(space.point_of({"layout": "dom-64k+wide", "stripe_size": 4 * MiB}))
    assert dom["lustre"]["components"] == [{"end": 64 * 1024, "mdt": True},
                                           {"end": "eof", "stripe_count": 64}]
    assert dom["lustre"]["stripe_size"] == 4 * MiB and "stripe_count" not in dom["lustre"]
    plain = space.config(space.point_of({"layout": "plain", "stripe_count": 16}))
    assert "components" not in plain["lustre"] and plain["lustre"]["stripe_count"] == 16
    assert "layout=dom-64k+wide" in space.describe(space.point_of({"layout": "dom-64k+wide"}))


def test_data_on_mdt_layouts_are_offered_only_where_the_file_system_takes_them() -> None:
    frontier = load_space("pfl").bind(platform_space_context(load_platform("frontier"), 64))
    hopper = load_space("pfl").bind(platform_space_context(load_platform("hopper"), 64))
    [layout] = [g for g in frontier.genes if g.name == "layout"]
    assert layout.values == tuple(named_layouts())
    [layout] = [g for g in hopper.genes if g.name == "layout"]
    assert "dom-64k+wide" not in layout.values and "pfl-small-then-wide" in layout.values


def test_a_layouts_stripe_counts_are_held_within_the_platforms_bound() -> None:
    context = platform_space_context(load_platform("hopper"), 64)  # bound to 16 stripes:
    space = load_space("pfl").bind(replace(context, max_stripe_count=16))  # 64 becomes 16
    config = space.config(space.point_of({"layout": "pfl-small-then-wide"}))
    assert [c.get("stripe_count") for c in config["lustre"]["components"]] == [1, 8, 16]


@pytest.mark.parametrize("platform", ["frontier", "hopper"])
def test_every_config_of_the_layout_space_is_valid_within_the_rules_and_simulated(
        platform: str) -> None:
    model = load_platform(platform)
    space = load_space("pfl").bind(platform_space_context(model, 32))
    configs = {dump_config(space.config(p)): space.config(p) for p in space.points()}
    for config in configs.values():
        assert validate_config(config, "pfl") == config
        assert violations(model, config) == [], config
    rng = random.Random(5)
    sample = rng.sample(sorted(configs), 6)
    results = simulate(model, small_file(32), [configs[text] for text in sample], jobs=1)
    assert all(result.ok for result in results), [r.error for r in results]


def test_a_layout_the_catalogue_lacks_is_refused_naming_the_known_ones() -> None:
    data = {"parameters": [{"name": "layout", "key": "lustre.components",
                            "values": ["plain", "zigzag"]}]}
    with pytest.raises(UserError, match=r"'zigzag' is not a layout of .*layouts.yaml "
                                        r"\(plain, dom-64k\+wide"):
        parse_space(data, "bad.yaml")


HOSTILE_LAYOUTS = {
    "[a, b]\n": "expected a mapping of layout names to components",
    "5: null\n": "5: expected a layout name (letters, digits, _.+-, at most 64)",
    "'a b': null\n": "'a b': expected a layout name (letters, digits, _.+-, at most 64)",
    "x: [{end: eof, stripe_count: 1.5}]\n":
        "x[0].stripe_count: expected an integer from -1 to 2000, got 1.5",
    "x: [{end: 1MiB, stripe_count: 1}, {end: 64KiB, stripe_count: 2}]\n":
        "x[1].end: expected more than 1048576 (the previous entry's end), got 65536",
    "plain: null\nplain: null\n": "plain: duplicate key",
}


@pytest.mark.parametrize("text", HOSTILE_LAYOUTS)
def test_a_hostile_layout_list_is_one_line_naming_the_layout(tmp_path: Path, text: str) -> None:
    """A list that is not a mapping was an AttributeError; a name of another type (5) was
    taken as text."""
    path = tmp_path / "layouts.yaml"
    path.write_text(text)
    with pytest.raises(UserError) as raised:
        read_layouts(path)
    message = HOSTILE_LAYOUTS[text]
    where = f"{path}:{text.count(chr(10))}: " if "duplicate" in message else f"{path}:1: "
    assert str(raised.value) == f"{where}{message}"
