"""Parameter spaces: the shipped YAML spaces, point -> config, constraints and repair."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from iotwin.config.dumping import dump_config
from iotwin.config.validation import validate_config
from iotwin.core.errors import UserError
from iotwin.space.parameters import Rejected, SpaceContext, list_spaces, load_space, parse_space
from iotwin.workloads.partial_writes import program_context
from iotwin.workloads.workload import kernel_workload

HOPPER = SpaceContext(filesystem="lustre", ranks=2048, max_stripe_count=156)
INTREPID = SpaceContext(filesystem="gpfs", ranks=2048)
LOCAL = SpaceContext(filesystem="ufs", ranks=4)


def test_the_three_spaces_ship() -> None:
    assert {"table3", "poster", "local"} <= set(list_spaces())


def test_table3_has_the_paper_value_counts_on_lustre() -> None:
    space = load_space("table3").bind(HOPPER)
    counts = {gene.name: len(gene.values) for gene in space.genes}
    # Table 3: 10 stripe counts, 8 stripe sizes, 12 cb_nodes, 14 alignments, 25 chunk sizes
    # (+ the application's own layout); cb_buffer_size follows the stripe size on Lustre.
    assert counts == {"stripe_count": 10, "stripe_size": 8, "cb_nodes": 12, "alignment": 14,
                      "chunk_size": 26}


def test_gpfs_drops_lustre_parameters_and_searches_cb_buffer_size() -> None:
    names = {gene.name for gene in load_space("table3").bind(INTREPID).genes}
    assert {"bglockless", "IBM_largeblock_io", "cb_buffer_size"} <= names
    assert not {"stripe_count", "stripe_size"} & names


def test_cb_buffer_size_equals_stripe_size_on_lustre() -> None:
    space = load_space("poster").bind(HOPPER)
    rng = random.Random(3)
    for _ in range(50):
        config = space.config(space.random_point(rng))
        assert config["mpiio"]["cb_buffer_size"] == config["lustre"]["stripe_size"]


def test_point_becomes_the_config_the_interposer_reads() -> None:
    space = load_space("poster").bind(HOPPER)
    point = space.point_of({"stripe_count": -1, "stripe_size": 4 * 2**20, "cb_nodes": 24,
                            "alignment": {"threshold": 0, "boundary": 64 * 2**10}})
    assert space.config(point) == {
        "lustre": {"stripe_count": -1, "stripe_size": 4 * 2**20},
        "mpiio": {"cb_nodes": 24, "cb_buffer_size": 4 * 2**20},
        "hdf5": {"alignment": {"threshold": 0, "boundary": 64 * 2**10}},
    }
    assert "stripe_size: 4MiB" in dump_config(space.config(point))


def test_stripe_count_over_the_platform_maximum_is_repaired() -> None:
    small = SpaceContext(filesystem="lustre", ranks=2048, max_stripe_count=48)
    space = load_space("poster").bind(small)
    point = space.point_of({"stripe_count": 128})
    repaired, notes = space.repair(point)
    assert space.values(repaired)["stripe_count"] == 48
    assert notes and "stripe_count=128 exceeds max_stripe_count=48" in notes[0]
    # "all OSTs" is never over the bound
    assert space.repair(space.point_of({"stripe_count": -1}))[1] == []


def test_a_reject_rule_refuses_with_the_reason() -> None:
    data = {"parameters": [{"name": "cb_nodes", "key": "mpiio.cb_nodes", "values": [1, 8],
                            "at_most": "ranks", "over_bound": "reject"}]}
    space = parse_space(data, "inline").bind(LOCAL)
    with pytest.raises(Rejected, match="cb_nodes=8 exceeds ranks=4"):
        space.repair(space.point_of({"cb_nodes": 8}))


def test_inactive_parameters_are_reset_so_equal_configs_are_one_point() -> None:
    space = load_space("local").bind(LOCAL)
    a = space.point_of({"transfer_mode": "independent", "cb_nodes": 1})
    b = space.point_of({"transfer_mode": "independent", "cb_nodes": 4})
    assert space.config(a) == space.config(b)
    assert space.repair(a)[0] == space.repair(b)[0]
    assert "mpiio" not in space.config(a) or "cb_nodes" not in space.config(a)["mpiio"]


def test_local_space_pairs_cb_nodes_with_cb_config_list() -> None:
    space = load_space("local").bind(LOCAL)
    config = space.config(space.point_of({"transfer_mode": "collective",
                                          "romio_cb_write": "enable", "cb_nodes": 2}))
    assert config["mpiio"]["cb_nodes"] == 2
    assert config["mpiio"]["cb_config_list"] == "*:2"
    assert config["dataset"]["transfer_mode"] == "collective"


def test_table3_passes_cb_nodes_as_bgl_nodes_pset_on_gpfs_only() -> None:
    """ROMIO's Blue Gene driver reads bgl_nodes_pset, not cb_nodes (paper 4.4)."""
    gpfs = load_space("table3").bind(INTREPID)
    config = gpfs.config(gpfs.point_of({"cb_nodes": 64}))
    assert config["mpiio"]["cb_nodes"] == 64
    assert config["mpiio"]["hints"] == {"bgl_nodes_pset": "64"}
    assert "bgl_nodes_pset" not in gpfs.describe(gpfs.point_of({"cb_nodes": 64}))
    lustre = load_space("table3").bind(HOPPER)
    assert "hints" not in lustre.config(lustre.point_of({"cb_nodes": 64}))["mpiio"]


def test_fixing_a_parameter_pins_it() -> None:
    space = load_space("table3").bind(HOPPER, fixed={"chunk_size": None})
    assert space.size == 10 * 8 * 12 * 14
    assert "dataset" not in space.config(space.random_point(random.Random(1)))


@pytest.mark.parametrize("data, message", [
    ({"parameters": [{"name": "x", "key": "mpiio.cb_nodes"}]}, "needs `values`"),
    ({"parameters": [{"name": "x", "key": "a.b", "values": [1], "colour": 1}]},
     r"parameters\[0\]\.colour: unknown key"),
    ({"parameters": [{"name": "x", "key": "mpiio.cb_nodes", "values": [1], "same_as": "y"}]},
     "'y'"),
    ({"parameters": [{"name": "x", "key": "lustre.stripe_size", "values": ["big"]}]},
     'lustre.stripe_size: expected a size .*, got "big"'),
    ({"params": []}, "`parameters` list"),
])
def test_bad_space_files_name_the_problem(data: dict, message: str) -> None:
    with pytest.raises(UserError, match=message):
        parse_space(data, "bad.yaml")


def test_unknown_space_lists_the_known_ones() -> None:
    with pytest.raises(UserError, match=r"known spaces are .*table3"):
        load_space("nosuch")


@pytest.mark.parametrize("name, context", [("table3", HOPPER), ("table3", INTREPID),
                                           ("poster", HOPPER), ("local", LOCAL)])
def test_every_config_of_a_space_is_valid_for_the_interposer(name: str,
                                                             context: SpaceContext) -> None:
    space = load_space(name).bind(context)
    rng = random.Random(11)
    for _ in range(200):
        config = space.config(space.random_point(rng))
        assert validate_config(config, name) == config


def test_the_default_space_holds_the_knobs_of_the_runs_file_system() -> None:
    from iotwin.space.parameters import default_space_for

    assert default_space_for("ufs") == "local"
    assert default_space_for("lustre") == "table3"  # striping: what Hopper's twin needs
    assert default_space_for("gpfs") == "table3"
    lustre = load_space("table3").bind(SpaceContext(filesystem="lustre", ranks=64,
                                                    max_stripe_count=156))
    assert any("lustre.stripe_count" in p.keys for p in lustre.genes)


def test_a_program_writing_no_hdf5_gets_no_hdf5_parameters() -> None:
    """Its files are MPI-IO's (a captured workload's api): HDF5 and dataset settings could not
    act on them."""
    everything = load_space("local").bind(LOCAL)
    mpiio_only = load_space("local").bind(SpaceContext(filesystem="ufs", ranks=4,
                                                       apis=("mpiio",)))
    blocks = {key.split(".")[0] for gene in mpiio_only.genes for key in gene.keys}
    assert "mpiio" in blocks and not blocks & {"hdf5", "dataset"}
    assert {key.split(".")[0] for gene in everything.genes for key in gene.keys} \
        >= {"hdf5", "dataset", "mpiio"}
    assert mpiio_only.size < everything.size


@pytest.mark.parametrize(("space", "context"), [("local", LOCAL), ("table3", HOPPER),
                                                 ("table3", INTREPID)])
def test_a_netcdf4_program_searches_every_hdf5_and_dataset_parameter(
        space: str, context: SpaceContext) -> None:
    """netCDF-4 writes HDF5 files (data/io-libraries.yaml): block3d-io's netCDF-4 run as it
    describes itself (`api: netcdf4`) is searched over its HDF5 run's parameters, HDF5's and
    the dataset's among them."""
    def keys(method: str) -> set[str]:
        workload = kernel_workload("block3d-io", 4, ["--block", "8", "--method", method])
        bound = load_space(space).bind(program_context(context, workload))
        return {key for gene in bound.genes for key in gene.keys}

    netcdf4 = keys("netcdf4")
    assert {key.split(".")[0] for key in netcdf4} >= {"hdf5", "dataset"}
    assert netcdf4 == keys("hdf5")


@pytest.mark.parametrize(("space", "context"), [("local", LOCAL), ("table3", HOPPER)])
def test_a_pnetcdf_program_searches_pnetcdfs_hints_beside_the_others(
        space: str, context: SpaceContext) -> None:
    """The default spaces of this machine and of Lustre: a program writing through PnetCDF
    searches its header and variable alignment beside the MPI-IO keys (and the striping on
    Lustre), never HDF5's; no other program gets PnetCDF's."""
    pnetcdf = load_space(space).bind(replace(context, apis=("pnetcdf",)))
    keys = {key for gene in pnetcdf.genes for key in gene.keys}
    blocks = {key.split(".")[0] for key in keys}
    assert {"pnetcdf.nc_header_align_size", "pnetcdf.nc_var_align_size"} <= keys
    assert "mpiio" in blocks and not blocks & {"hdf5", "dataset"}
    assert ("lustre" in blocks) == (context.filesystem == "lustre")
    rng = random.Random(5)
    configs = [pnetcdf.config(pnetcdf.random_point(rng)) for _ in range(100)]
    assert {config.get("pnetcdf", {}).get("nc_var_align_size") for config in configs} == {
        None, *next(g for g in pnetcdf.genes if g.name == "nc_var_align_size").values}
    for apis in (("hdf5",), ("mpiio",), ("posix",), ("netcdf4",), ("hdf5", "mpiio", "posix")):
        others = load_space(space).bind(replace(context, apis=apis))
        assert not any(k.startswith("pnetcdf.") for g in others.genes for k in g.keys), apis


@pytest.mark.parametrize(("space", "filesystem"), [("local", "ufs"), ("whatif", "lustre"),
                                                   ("table3", "lustre")])
def test_a_posix_program_searches_its_layout_alone(space: str, filesystem: str) -> None:
    """A POSIX program's one lever is its files' layout: the only parameters searched for it,
    on Lustre and (reported not effective by the interposer) on this machine's file system;
    the local space keeps them from programs writing through HDF5 or MPI-IO."""
    posix = load_space(space).bind(SpaceContext(filesystem=filesystem, ranks=4,
                                                max_stripe_count=16, apis=("posix",)))
    keys = {key for gene in posix.genes for key in gene.keys}
    assert keys and {key.split(".")[0] for key in keys} == {"lustre"}
    assert "lustre.stripe_count" in keys
    if space == "local":
        for apis in (("hdf5",), ("mpiio", "posix"), ("hdf5", "mpiio", "posix")):
            others = load_space(space).bind(SpaceContext(filesystem=filesystem, ranks=4,
                                                         apis=apis))
            assert not any(k.startswith("lustre.") for g in others.genes for k in g.keys)


@pytest.mark.parametrize(("parameter", "message"), [
    # before: internal errors ('int' has no attribute 'split', is not iterable, no 'items')
    ({"name": "a", "key": 3, "values": [1]}, "parameters[0].key: expected a non-empty "
                                             "string, got 3"),
    ({"name": "a", "key": "lustre.stripe_count", "values": 4},
     "parameters[0].values: expected a list, got 4"),
    ({"name": "a", "key": "lustre.stripe_count", "values": [1, 2], "active_when": 3},
     "parameters[0].active_when: expected a mapping parameter -> values, got 3"),
    ({"name": ["a"], "key": "lustre.stripe_count", "values": [1]},
     "parameters[0].name: expected a non-empty string, got ['a']"),
    # before: accepted, and the search "tuned" a key nothing reads, or set a value none takes
    ({"name": "a", "key": "lustre.stripe_cuont", "values": [1, 2]},
     "parameters[0].key: 'lustre.stripe_cuont' is not a key of the tuning config"),
    ({"name": "a", "key": "lustre.stripe_count", "values": [1, "banana"]},
     "parameters[0].values[1].lustre.stripe_count: expected an integer from -1 to 2000"),
    ({"name": "a", "key": "mpiio.cb_config_list", "template": "*:{cb_nodse}"},
     "parameters[0]: refers to unknown parameter 'cb_nodse'"),
    ({"name": "a", "key": "mpiio.cb_config_list", "template": "*:{"},
     "parameters[0].template: Single '{' encountered"),
])
def test_a_bad_parameter_is_refused_naming_its_field(parameter: dict, message: str) -> None:
    with pytest.raises(UserError) as raised:
        parse_space({"parameters": [parameter]}, "s.yaml")
    assert str(raised.value).startswith(f"s.yaml: {message}"), str(raised.value)
