"""Experiment specs: a bad spec is refused with the file and the key path of what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from iotwin.core.errors import UserError
from iotwin.studies.experiment.published import load_published
from iotwin.studies.experiment.spec import load_experiment, parse_experiment, set_dotted
from support.programs import REPO_ROOT

REPO = REPO_ROOT

GOOD = {
    "name": "t", "study": "sensitivity", "measure": "sim", "platforms": ["hopper"],
    "workloads": [{"kernel": "vpic-io", "ranks": 8, "args": ["--particles", "1024"]}],
    "configs": [{"label": "default", "config": {}},
                {"label": "tuned", "search": {"space": "table3", "budget": 4}},
                {"label": "lustre-only", "from": "tuned", "keep": ["lustre"]},
                {"label": "cb", "sweep": {"key": "mpiio.cb_buffer_size",
                                          "values": ["1MiB", "4MiB"]}}],
}


def with_change(path: list[str | int], value: object) -> dict:
    data = yaml.safe_load(yaml.safe_dump(GOOD))
    node = data
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return data


def test_the_good_spec_parses_into_its_entries() -> None:
    spec = parse_experiment(GOOD, "good.yaml")
    assert [e.kind for e in spec.configs] == ["config", "search", "from", "sweep"]
    assert spec.study == ("sensitivity",)
    assert spec.configs[2].body == {"from": "tuned", "keep": ["lustre"]}


@pytest.mark.parametrize(("path", "value", "message"), [
    (["colour"], "red", "x.yaml: colour: unknown key"),
    (["configs", 3, "sweep", "kye"], "a", "x.yaml: configs[3].sweep.kye: unknown key"),
    (["workloads", 0, "rank"], 4, "x.yaml: workloads[0].rank: unknown key"),
    (["workloads", 0, "ranks"], 0, "x.yaml: workloads[0].ranks: expected an integer from 1 to"),
    (["study"], "histogram", "x.yaml: study[0]: expected one of default-vs-tuned, "),
    (["measure"], "guess", "x.yaml: measure: expected one of sim, twin, real, got 'guess'"),
    (["configs", 2, "from"], "missing", "x.yaml: configs[2].from: 'missing' is not the label"),
    (["configs", 1, "search", "budget"], -1,
     "x.yaml: configs[1].search.budget: expected an integer from 1 to"),
    (["configs", 1, "search", "samples"], 16,
     "x.yaml: configs[1].search.samples: unknown key (expected one of space, strategy, budget"),
    (["configs", 1, "search", "strategy"], "sim-screened",
     "x.yaml: configs[1].search.strategy: 'sim-screened' is not one of"),
    (["configs", 1, "search", "sections"], ["lustre", "posix"],
     "x.yaml: configs[1].search.sections[1]: expected one of openmpi, lustre, mpiio, "
     "pnetcdf, hdf5, dataset, got 'posix'"),
    (["configs", 1, "search", "space"], "nosuchspace", "x.yaml: configs[1].search.space: "),
    (["configs", 1, "search", "seed"], "one", "x.yaml: configs[1].search.seed: expected a whole"),
    (["configs", 1, "search", "budget"], {"vpic-io": 4, "gcrm-io": 8},
     "x.yaml: configs[1].search.budget: give one budget per workload label (vpic-io), got "
     "gcrm-io, vpic-io"),
    (["workloads", 0, "fixed"], {"chunk": None},
     "x.yaml: workloads[0].fixed: space table3: no parameter 'chunk' to fix"),
    (["workloads", 0, "fixed"], {"chunk_size": "3MiB"},
     "x.yaml: workloads[0].fixed: space table3: chunk_size: 3145728 is not one of"),
    (["configs", 1, "search", "budget"], {"vpic-io": 0},
     "x.yaml: configs[1].search.budget.vpic-io: expected an integer from 1 to"),
    (["configs", 0, "config"], {"mpiio": {"cb_nodes": -3}}, "configs[0].config"),
    (["configs", 3, "sweep", "values"], ["1MiB", "lots"],
     "configs[3].sweep.values[1].mpiio.cb_buffer_size"),
    (["configs", 1, "label"], "default", "configs[1].label: 'default' is used twice"),
    (["ranks_per_node"], {"nowhere": 4}, "ranks_per_node.nowhere: not one of the platforms"),
])
def test_a_bad_spec_names_the_key_path(path: list[str | int], value: object,
                                        message: str) -> None:
    with pytest.raises(UserError) as error:
        parse_experiment(with_change(path, value), "x.yaml")
    assert message in str(error.value)


CAMPAIGN = {"label": "c", "campaign": {"strategy": "random", "space": "table3", "budget": 4}}


@pytest.mark.parametrize(("path", "value", "message"), [
    # before: 10^12 ranks ran out of memory, a budget of 10^12 never ended
    (["workloads", 0, "ranks"], 10**12, "x.yaml: workloads[0].ranks: expected an integer from "
                                        "1 to 16777216, got 1000000000000"),
    (["configs", 1, "search", "budget"], 10**12,
     "x.yaml: configs[1].search.budget: expected an integer from 1 to 1000000, got "
     "1000000000000"),
    (["configs", 4, "campaign", "budget"], 10**12,
     "x.yaml: configs[4].campaign.budget: expected an integer from 1 to 1000000"),
    (["ranks_per_node"], {"hopper": 10**12}, "x.yaml: ranks_per_node.hopper: expected an "
                                             "integer from 1 to 16777216"),
    # before: any positive count, 10^12 repetitions of every cell (now experiment-schema.yaml)
    (["repetitions"], 10**12, "x.yaml: repetitions: expected an integer from 1 to 16777216, "
                              "got 1000000000000"),
    (["configs", 4, "campaign", "repetitions"], 2**40,
     "x.yaml: configs[4].campaign.repetitions: expected an integer from 1 to 16777216"),
    # before: internal errors, or 1.5 truncated to 1
    (["configs", 4, "campaign", "seeds"], [1.5],
     "x.yaml: configs[4].campaign.seeds[0]: expected a whole number, got 1.5"),
    (["configs", 4, "campaign", "seeds"], 3,
     "x.yaml: configs[4].campaign.seeds: expected a non-empty list"),
    (["configs", 4, "campaign", "truth_seed"], "x",
     "x.yaml: configs[4].campaign.truth_seed: expected a whole number, got 'x'"),
    (["configs", 4, "campaign", "settings"], [1],
     "x.yaml: configs[4].campaign.settings: expected a mapping, got [1]"),
    (["configs", 4, "campaign", "fixed"], "lustre",
     "x.yaml: configs[4].campaign.fixed: expected a mapping, got 'lustre'"),
    (["configs", 3, "sweep", "base"], [1],
     "x.yaml: configs[3].sweep.base: expected a mapping of config blocks, got a list"),
    # found by the input fuzz suite: internal errors before
    (["configs", 3, "sweep", "key"], -1, "x.yaml: configs[3].sweep.key: expected a config key"),
    (["configs", 3, "sweep", "key"], ["mpiio.cb_buffer_size", 7],
     "x.yaml: configs[3].sweep.key[1]: expected a config key"),
    (["configs", 3, "sweep", "base"], {"mpiio": 5}, "x.yaml: configs[3].sweep.base.mpiio: "),
    (["configs", 3, "sweep", "a\nb"], 1, 'x.yaml: configs[3].sweep."a\\nb": unknown key'),
])
def test_an_absurd_cost_or_a_wrong_type_is_refused_naming_the_field(
        path: list[str | int], value: object, message: str) -> None:
    data = yaml.safe_load(yaml.safe_dump({**GOOD, "configs": [*GOOD["configs"], CAMPAIGN]}))
    node = data
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    with pytest.raises(UserError) as error:
        parse_experiment(data, "x.yaml")
    assert str(error.value).startswith(message), str(error.value)


def test_an_entry_needs_exactly_one_kind() -> None:
    data = with_change(["configs", 0, "search"], {"space": "table3"})
    with pytest.raises(UserError, match=r"configs\[0\]: give exactly one of"):
        parse_experiment(data, "x.yaml")


def test_real_measurements_need_the_local_platform() -> None:
    with pytest.raises(UserError, match="platforms: `measure: real` runs on this machine"):
        parse_experiment(with_change(["measure"], "real"), "x.yaml")


def test_malformed_yaml_is_reported_with_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nstudy: [sensitivity\nplatforms: [a]\n")
    with pytest.raises(UserError, match=r"bad.yaml:\d+: malformed YAML"):
        load_experiment(bad)


def test_every_shipped_experiment_parses() -> None:
    shipped = [p for p in sorted((REPO / "experiments").glob("*.yaml"))
               if "study" in (yaml.safe_load(p.read_text()) or {})]
    assert len(shipped) >= 6
    for path in shipped:
        assert load_experiment(path).name == path.stem


def test_set_dotted_sets_every_key_and_leaves_the_original_alone() -> None:
    base = {"mpiio": {"romio_cb_write": "enable"}}
    changed = set_dotted(base, ["mpiio.cb_buffer_size", "lustre.stripe_size"], 4)
    assert changed == {"mpiio": {"romio_cb_write": "enable", "cb_buffer_size": 4},
                       "lustre": {"stripe_size": 4}}
    assert base == {"mpiio": {"romio_cb_write": "enable"}}


def test_a_search_restricted_to_sections_keeps_only_their_parameters() -> None:
    from iotwin.space.parameters import load_space
    from iotwin.studies.experiment.search import section_space

    table3 = load_space("table3")
    names = {sections: [p.name for p in section_space(table3, sections).parameters]
             for sections in (("lustre",), ("mpiio",), ("hdf5", "dataset"), ("pnetcdf",))}
    assert names[("lustre",)] == ["stripe_count", "stripe_size"]
    assert names[("mpiio",)] == ["cb_buffer_size", "cb_nodes", "bgl_nodes_pset", "bglockless",
                                  "IBM_largeblock_io"]
    assert names[("hdf5", "dataset")] == ["alignment", "chunk_size"]
    assert names[("pnetcdf",)] == ["nc_header_align_size", "nc_var_align_size"]
    every = [p for group in names.values() for p in group]
    assert sorted(every) == sorted(p.name for p in table3.parameters)


@pytest.mark.parametrize(("row", "message"), [
    # before: internal errors (int('4²'), float(None) of a short row) or accepted
    ("s,Hopper,VPIC-IO,4\u00b2,default,rate,400,MB/s", "cores: expected an integer from 1 to"),
    ("s,Hopper,VPIC-IO,many,default,rate,400,MB/s", "cores: expected an integer from 1 to"),
    ("s,Hopper,VPIC-IO,128,default,rate", "6 fields where the header has 8"),
    ("s,Hopper,VPIC-IO,128,default,rate,inf,MB/s", "value: expected a number from 0.001 to"),
])
def test_a_bad_row_of_published_figures_names_its_line_and_column(
        tmp_path: Path, row: str, message: str) -> None:
    path = tmp_path / "figures.csv"
    path.write_text("source,platform,kernel,cores,setting,metric,value,unit\n"
                    "s,Hopper,VPIC-IO,128,default,rate,400,MB/s\n" + row + "\n")
    with pytest.raises(UserError) as raised:
        load_published(str(path))
    assert str(raised.value).startswith(f"{path}:3: {message}"), str(raised.value)


def test_a_search_may_name_every_config_block_as_a_section() -> None:
    from iotwin.config.schema import load_schema

    blocks = list(load_schema().blocks)
    spec = parse_experiment(with_change(["configs", 1, "search", "sections"], blocks), "x.yaml")
    assert spec.configs[1].body["sections"] == blocks
