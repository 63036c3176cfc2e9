"""`iotwin platform new`: a site's spec sheet becomes a platform model that iosim loads and
simulates, with every figure sourced or derived; the committed models written from the sheets in
sim-models/platforms/sheets/ are what their sheets give; a bad sheet is one line naming the file
and the key."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.yaml_files import read_yaml
from iotwin.model.platform_sheet import load_sheet, parse_sheet, platform_tree
from iotwin.model.platform_yaml import render_platform
from iotwin.model.platforms import load_platform
from iotwin.model.sheet_schema import parse_rate
from iotwin.model.sim import simulate

SHEETS = sorted((paths.platforms_dir() / "sheets").glob("*.yaml"))
MiB = 2**20

# What a site's staff would write from a vendor sheet: bare figures, units as the sheet has them.
MINIMAL = """\
platform_sheet: 1
name: mysite
compute: {nodes: 64, cores_per_node: 32, nic_mbs: 100Gb/s}
storage: {type: lustre, servers: 4, targets: 16, target_mbs: 800, server_mbs: 5 GB/s,
          metadata_servers: 1}
defaults: {mpi: romio-lustre, stripe_count: 2}
"""


def platform_new(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iotwin", "platform", "new", *args], cwd=cwd,
                          text=True, capture_output=True, timeout=120)


def shared_file(ranks: int, per_rank_bytes: int) -> dict:
    return {"iotwin_workload": 1, "name": "shared", "ranks": ranks, "files": [
        {"name": "f.h5", "mode": "shared", "api": "hdf5", "datasets": [
            {"name": "/x", "element_bytes": 8, "transfer": "collective",
             "decomposition": {"grid": [ranks], "block": [per_rank_bytes // 8]}}]}]}


def test_there_is_a_sheet_for_each_of_the_five_machines() -> None:
    assert {s.stem for s in SHEETS} >= {"archer", "cirrus", "csd3", "frontier", "perlmutter"}


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda s: s.stem)
def test_each_committed_model_is_what_its_sheet_gives(sheet: Path) -> None:
    tree = platform_tree(load_sheet(sheet))
    committed = read_yaml(paths.platforms_dir() / f"{sheet.stem}.yaml", "platform")
    assert tree == committed, f"run: iotwin platform new {sheet} -o {sheet.stem}.yaml"
    assert yaml.safe_load(render_platform(tree)) == tree  # the writer's quoting round-trips


def block_3d(ranks: int, grid: list[int], edge: int) -> dict:
    """Each rank one edge^3 block of doubles of a 3-D array in one shared file, one
    collective MPI-IO write (the benchio pattern)."""
    return {"iotwin_workload": 1, "name": "block-3d", "ranks": ranks, "files": [
        {"name": "f.dat", "mode": "shared", "api": "mpiio", "datasets": [
            {"name": "/x", "element_bytes": 8, "transfer": "collective",
             "decomposition": {"grid": grid, "block": [edge] * 3}}]}]}


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda s: s.stem)
def test_each_model_simulates_the_3d_block_pattern_within_its_site_default(sheet: Path) -> None:
    platform = load_platform(sheet.stem)
    data = platform.data
    work = block_3d(96, [4, 4, 6], 128)  # MPI_Dims_create(96, 3), 16 MiB a rank
    default, every_target = simulate(platform, work, [{}, {"lustre": {"stripe_count": -1}}],
                                     jobs=1)
    assert default.ok and every_target.ok, (default.error, every_target.error)
    stripes = data["site_defaults"]["lustre"]["stripe_count"]
    written = [b for b in default.breakdown["bytes_per_target"] if b]
    if "components" not in data["site_defaults"]["lustre"]:  # frontier's: test_sim_lustre_layout
        assert len(written) == stripes
        assert 0 < default.rate_mbs <= stripes * data["filesystem"]["target_mbs"] * 1.0001
    assert 0 < default.rate_mbs <= default.ceiling_mbs * (1 + 1e-5)
    # every target: more objects to create at open, never a slower write
    assert every_target.phases["write"] <= default.phases["write"] * (1 + 1e-9)
    assert every_target.rate_mbs <= every_target.ceiling_mbs * (1 + 1e-5)


def test_a_bare_sheet_becomes_a_model_that_simulates(tmp_path: Path) -> None:
    sheet = tmp_path / "mysite-sheet.yaml"
    sheet.write_text(MINIMAL)
    done = platform_new(str(sheet), "-o", "mysite.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "16 targets x 800 MB/s on 4 servers (lustre); storage peak 12.8 GB/s" in done.stdout

    platform = load_platform(tmp_path / "mysite.yaml")
    tree, data = platform.tree, platform.data
    nic = tree["compute"]["nic_mbs"]
    assert (nic["value"], nic["bounds"]) == (12500, [12500 / 4, 12500])  # a vendor's peak
    assert nic["source"].startswith("spec sheet mysite-sheet.yaml (100Gb/s = 12500 MB/s); ")
    assert data["filesystem"]["server_mbs"] == 5000
    assert data["network"]["storage_fabric_mbs"] == 4 * 5000
    assert data["network"]["mpi_fabric_mbs"] == 64 * 12500 / 2
    assert data["filesystem"]["max_stripe_count"] == 16
    for path in ("network.mpi_fabric_mbs", "network.storage_fabric_mbs",
                 "filesystem.max_stripe_count"):
        section, key = path.split(".")
        assert tree[section][key]["source"].startswith("derived from "), path
    assert data["site_defaults"]["romio_driver"] == "lustre"
    assert data["site_defaults"]["lustre"]["stripe_count"] == 2
    assert data["filesystem"]["metadata_servers"] == 1
    assert "site_rules" not in data and "pools" not in data["filesystem"]
    assert "filesystem.target_mbs" in platform.free_parameters()  # from the defaults' bounds

    # 64 ranks on 2 nodes: the site's default 2 stripes bound the write; 16 stripes do not
    work = shared_file(64, 64 * MiB)
    default, wide = simulate(platform, work, [{}, {"lustre": {"stripe_count": 16}}], jobs=1)
    assert default.ok and wide.ok, (default.error, wide.error)
    assert 0 < default.rate_mbs <= 2 * 800 * 1.0001
    assert sum(1 for b in default.breakdown["bytes_per_target"] if b) == 2
    assert wide.rate_mbs > 2 * default.rate_mbs


def test_frontier_has_its_pools_metadata_targets_default_layout_and_rules() -> None:
    frontier = load_platform("frontier")
    fs, lustre = frontier.data["filesystem"], frontier.data["site_defaults"]["lustre"]
    assert (fs["pool"], fs["targets"], fs["target_mbs"]) == ("capacity", 900, 5111)
    assert fs["pools"] == {"performance": {"targets": 450, "target_mbs": 22222, "servers": 450}}
    assert fs["max_stripe_count"] == 900  # what Lustre allows; OLCF's 450 is a site rule
    assert frontier.data["site_rules"]["max_stripes_per_file"] == 450
    assert (fs["metadata_servers"], fs["dom_max_bytes"]) == (40, MiB)
    assert lustre["pool"] == "performance"  # where a layout naming no pool lands (OLCF)
    assert [c["end"] for c in lustre["components"]] == [256 * 1024, 8 * MiB, 128 * 2**30, "eof"]
    assert lustre["components"][0] == {"end": 256 * 1024, "mdt": True}
    free = frontier.free_parameters()
    assert {"filesystem.pools.performance.target_mbs", "filesystem.mdt_mbs"} <= set(free)


@pytest.mark.parametrize(("text", "mbs"), [("54.5Gb/s", 6812.5), ("5.35 GB/s", 5350),
                                           ("200 Gbps", 25000), ("1TB/s", 1e6), (500, 500)])
def test_bandwidths_are_read_with_their_units(text: str | int, mbs: float) -> None:
    assert parse_rate(text) == pytest.approx(mbs)


BAD = [
    (MINIMAL.replace("nodes: 64, ", ""), "compute.nodes: missing"),
    (MINIMAL.replace("metadata_servers: 1", "metadata_servers: 1, colour: blue"),
     "storage.colour: unknown key"),
    (MINIMAL.replace("100Gb/s", "fast"), "compute.nic_mbs: 'fast' is not a bandwidth"),
    (MINIMAL.replace("target_mbs: 800", "target_mbs: {value: 800, bounds: [100, 500], "
                     "source: vendor}"), "storage.target_mbs.bounds: value 800 outside bounds"),
    (MINIMAL.replace("stripe_count: 2", "stripe_count: 2, layout: [{end: 1MiB, mdt: true}, "
                     "{end: eof, stripe_count: 4, pool: flash}]"),
     "defaults.layout[1].pool: no pool 'flash'"),
    (MINIMAL.replace("stripe_count: 2", "stripe_count: 2, layout: [{end: 1MiB, mdt: true}, "
                     "{end: eof, stripe_count: 4}]"),
     "defaults.layout[0].end: a Data-on-MDT component ends past storage.dom_max"),
    (MINIMAL.replace("metadata_servers: 1", "metadata_servers: 1, mdt_mbs: 900"),
     "storage.dom_max: missing (Data-on-MDT needs both"),
    (MINIMAL.replace("metadata_servers: 1", "metadata_servers: 1, pools: {flash: {targets: 4, "
                     "target_mbs: 900}}"), "storage.pool: missing: which of storage.pools"),
    (MINIMAL.replace("stripe_count: 2}", "stripe_count: 2}\nsite_rules: {forbidden: "
                     "[{key: lustre.stripes, value: 1}]}"),
     "site_rules.forbidden[0].key: expected a config key as block.key"),
    (MINIMAL.replace("mpi: romio-lustre", "mpi: openmpi"), "defaults.mpi: expected one of"),
    (MINIMAL + "hdf5: {fills_default_value: 1}\n",
     "hdf5.fills_default_value: expected true or false"),
    (MINIMAL.replace("compute: {", "compute: {{"), ":4: malformed YAML"),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[m.split(":")[0] for _, m in BAD])
def test_a_bad_sheet_is_one_line_naming_the_file_and_key(tmp_path: Path, text: str,
                                                          message: str) -> None:
    sheet = tmp_path / "bad.yaml"
    sheet.write_text(text)
    done = platform_new(str(sheet), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert re.match(rf"iotwin: error: {re.escape(str(sheet))}(:\d+)?: ", done.stderr), done.stderr
    assert message in done.stderr, done.stderr


def test_cray_mpich_spreads_its_aggregators_and_a_sheet_may_say_its_hdf5_fills() -> None:
    cray = platform_tree(load_sheet(next(s for s in SHEETS if s.stem == "archer")))
    assert cray["site_defaults"]["aggregator_placement"]["value"] == "spread"
    assert cray["site_defaults"]["mpiio"]["cb_config_list"]["value"] == "*:*"
    assert cray["hdf5"]["fills_default_value"]["value"] is True
    romio = platform_tree(load_sheet(next(s for s in SHEETS if s.stem == "cirrus")))
    assert "aggregator_placement" not in romio["site_defaults"]  # ROMIO's own order
    assert romio["site_defaults"]["mpiio"]["cb_config_list"]["value"] == "*:1"
    assert romio["hdf5"]["fills_default_value"]["value"] is False


# Figures that mean nothing, each refused by the sheet schema (data/sheet-schema.yaml) naming
# the key and, for a bound, the bounds table's kind.
NONSENSE = [
    ("target_mbs: 800", "target_mbs: .inf", "storage.target_mbs: inf is not a bandwidth"),
    ("target_mbs: 800", "target_mbs: .nan", "storage.target_mbs: nan is not a bandwidth"),
    ("target_mbs: 800", "target_mbs: -800", "storage.target_mbs: -800 is not a bandwidth"),
    ("target_mbs: 800", "target_mbs: 1e35", "storage.target_mbs: expected a number from 1 to "
     "1e+09 MB/s"),
    ("server_mbs: 5 GB/s", "server_mbs: 1b/s",
     "storage.server_mbs: expected a number from 1 to 1e+09 MB/s"),
    ("targets: 16", "targets: 10000000", "storage.targets: expected an integer from 1 to "
     "65535"),
    ("targets: 16", "targets: " + "9" * 500,
     "storage.targets: expected an integer from 1 to 65535"),
    ("servers: 4", "servers: 1000", "storage.servers: 1000 is more than storage.targets (16)"),
    ("stripe_count: 2", "stripe_count: 2000", "defaults.stripe_count: 2000 is more than "
     "storage.targets (16)"),
    ("stripe_count: 2", "stripe_count: 2, layout: [{end: 1GiB, stripe_count: 4}, "
     "{end: eof, stripe_count: 2000}]", "defaults.layout[1].stripe_count: 2000 is more than"),
    ("metadata_servers: 1", "metadata_servers: 1, rpc_size: 0",
     "storage.rpc_size: expected an integer from 4096 to 16777216 bytes, got 0"),
    ("metadata_servers: 1", "metadata_servers: 1, pools: {abcdefghijklmnopqrstuvwxy: "
     "{targets: 4, target_mbs: 900}}, pool: abcdefghijklmnopqrstuvwxy",
     "expected a pool name, 15 or fewer of A-Z a-z 0-9 - _"),
    ("stripe_count: 2", "stripe_count: 2, pool: \"a\\nb\"", "defaults.pool: expected a pool name"),
    ("metadata_servers: 1", "metadata_servers: 1, pools: {flash: {targets: 4, target_mbs: 900, "
     "servers: 5}}, pool: flash",
     "storage.pools.flash.servers: 5 is more than storage.pools.flash.targets (4)"),
    ("nodes: 64", "nodes: 0", "compute.nodes: expected an integer from 1 to 1048576"),
    ("nodes: 64", "nodes: 64.5", "compute.nodes: expected a whole number, got 64.5"),
    ("metadata_servers: 1", "metadata_servers: 1000",
     "storage.metadata_servers: expected an integer from 1 to 256"),
    ("target_mbs: 800", "target_mbs: {value: 800, source: [1, 2]}",
     "storage.target_mbs.source: expected text"),
    ("target_mbs: 800", "target_mbs: {value: 800, bounds: [.nan, 900], source: vendor}",
     "storage.target_mbs.bounds: nan is not a bandwidth"),
    ("stripe_count: 2}", "stripe_count: 2}\nsite_rules: {forbidden: [{key: mpiio.cb_nodes, "
     "value: banana}]}", "site_rules.forbidden[0].value"),
]


@pytest.mark.parametrize(("old", "new", "message"), NONSENSE, ids=[m.split(":")[0] + str(i)
                                                                   for i, (_, _, m)
                                                                   in enumerate(NONSENSE)])
def test_a_figure_out_of_its_bounds_or_rules_is_one_error_naming_it(
        tmp_path: Path, old: str, new: str, message: str) -> None:
    assert old in MINIMAL
    sheet = tmp_path / "bad.yaml"
    sheet.write_text(MINIMAL.replace(old, new, 1))
    with pytest.raises(UserError) as refused:
        load_sheet(sheet)
    assert re.match(rf"{re.escape(str(sheet))}:\d+: ", str(refused.value)), refused.value
    assert "\n" not in str(refused.value)
    assert message in str(refused.value)


def test_the_largest_file_system_the_bounds_allow_is_a_model() -> None:
    """65,535 targets on as many servers, each figure at its bound's edge, reads as a sheet (what
    iosim does with it: experiments/fuzz_inputs.py)."""
    big = MINIMAL.replace("servers: 4, targets: 16", "servers: 65535, targets: 65535")
    tree = platform_tree(parse_sheet(yaml.safe_load(big), "big.yaml"))
    assert tree["filesystem"]["targets"]["value"] == 65535
    assert tree["filesystem"]["max_stripe_count"]["value"] == 2000  # a Lustre file's most


def test_a_hand_written_model_is_held_to_the_sheet_bounds(tmp_path: Path) -> None:
    """A platform file's figures that a sheet key gives are checked as that key: a model of
    10^7 OSTs, which took iosim past 2 GiB, is refused before any simulation."""
    tree = read_yaml(paths.platforms_dir() / "archer.yaml", "platform")
    tree["filesystem"]["targets"]["value"] = 10**7
    path = tmp_path / "huge.yaml"
    path.write_text(render_platform(tree))
    with pytest.raises(UserError, match=r"huge.yaml:\d+: filesystem.targets: expected an "
                                         r"integer from 1 to 65535, got 10000000"):
        load_platform(path)
    tree["filesystem"]["targets"]["value"] = 48
    tree["filesystem"]["rpc_max_bytes"]["value"] = 0
    path.write_text(render_platform(tree))
    with pytest.raises(UserError, match=r"filesystem\.rpc_max_bytes: expected an integer "
                                         r"from 4096 to 16777216"):
        load_platform(path)


def test_a_derived_figure_out_of_bounds_names_the_sheet_keys_it_comes_from(tmp_path: Path
                                                                           ) -> None:
    """A one-node machine of 1 MB/s: its MPI fabric, derived as half the nodes' injection, is
    0.5 MB/s; the error names the sheet's keys, not only the model's figure."""
    sheet = tmp_path / "slow.yaml"
    sheet.write_text(MINIMAL.replace("nodes: 64", "nodes: 1").replace("100Gb/s", "1"))
    with pytest.raises(UserError) as refused:
        platform_tree(load_sheet(sheet))
    message = str(refused.value)
    assert message.startswith(f"{sheet}: network.mpi_fabric_mbs: expected a number from 1 to "
                              f"1e+09 MB/s")
    assert "derived from compute.nodes x compute.nic_mbs / 2" in message
