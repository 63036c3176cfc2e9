"""Every YAML input a user writes (issue 53): a field its schema refuses is one line
``FILE:LINE: FIELD: problem``, the line that of the field in the file (or, for a field that is
missing, of the mapping that lacks it): one reader (iotwin.core.yaml_files.read_input) and one
error (iotwin.core.errors.InputError) for all. Configs and workloads have C readers too (the
interposer's; iosim's and the replay proxy's), which find the line as the Python reader does
(formats/input_error.h) and must print the same line.

Each case is a small document of the surface with one wrong field, marked ``# <-`` on its
line; the error must name that line and the field."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from iotwin.config.validation import load_config
from iotwin.core import paths
from iotwin.core.errors import InputError, UserError
from iotwin.core.yaml_files import MAX_DEPTH, field_line
from iotwin.executors.slurm import Site
from iotwin.model.platform_sheet import load_sheet
from iotwin.model.platforms import load_platform
from iotwin.observations.design import load_design
from iotwin.space.parameters import load_space, read_layouts
from iotwin.studies.experiment.spec import load_experiment
from iotwin.studies.strategy_benchmark import load_benchmark
from iotwin.validation.local import load_suite
from iotwin.workloads.workload import load_workload
from support.workload_readers import verdicts

SHEET = """\
platform_sheet: 1
name: mysite
compute:
  nodes: 64
  cores_per_node: 32
  nic_mbs: 100Gb/s
storage: {type: lustre, servers: 4, targets: 16, target_mbs: 800, server_mbs: 5 GB/s,
          metadata_servers: 1}
defaults:
  mpi: romio-lustre
  stripe_count: 2
"""

EXPERIMENT = """\
name: t
study: default-vs-tuned
platforms: [hopper]
workloads:
  - kernel: vpic-io
    ranks: 64
configs:
  - label: default
    config: {}
  - label: striped
    config:
      lustre: {stripe_count: 4}
"""

SPACE = """\
name: t
parameters:
  - name: stripe_count
    key: lustre.stripe_count
    values: [1, 2]
  - name: cb_nodes
    key: mpiio.cb_nodes
    values: [1, 2]
"""

SUITE = """\
kernel: vpic-io
ranks: 2
samples: 4
repetitions: 1
"""

BENCHMARK = """\
seeds: 2
strategies:
  random: 10
tables:
  t: landscape.yaml
"""

SITE = """\
name: cluster
cores_per_node: 32
sbatch:
  partition: batch
"""

LAYOUTS = """\
plain: null
two:
  - {end: 1MiB, stripe_count: 1}
  - {end: eof, stripe_count: 4}
"""

DESIGN = """\
name: d
kernel: vpic-io
repetitions: 3
probes:
  - name: streaming
    excites: [filesystem.target_mbs]
    why: the OSTs' streaming bandwidth
    nodes: 1
    args: [--particles, "1024"]
    config: {lustre: {stripe_count: 2}}
"""

Loader = Callable[[Path], Any]

#: surface -> (its loader, its file name, a valid document, replaced -> the replacement on the
#: marked line, the field named)
CASES: dict[str, tuple[Loader, str, str, tuple[str, str], str]] = {
    "sheet: a figure out of bounds": (
        load_sheet, "s.yaml", SHEET, ("  nodes: 64", "  nodes: 0  # <-"), "compute.nodes"),
    "sheet: an unknown key": (
        load_sheet, "s.yaml", SHEET, ("  nic_mbs: 100Gb/s", "  nic_mbs: 100Gb/s\n"
                                      "  colour: blue  # <-"), "compute.colour"),
    "sheet: a forbidden config value": (
        load_sheet, "s.yaml", SHEET, ("  stripe_count: 2", "  stripe_count: 0  # <-"),
        "defaults.stripe_count"),
    "experiment: a count out of bounds": (
        load_experiment, "e.yaml", EXPERIMENT, ("    ranks: 64", "    ranks: 0  # <-"),
        "workloads[0].ranks"),
    "experiment: a seed of another type": (
        load_experiment, "e.yaml", EXPERIMENT, ("    config: {}", "    campaign: {strategy: "
                                                "random, space: t, budget: 2,\n"
                                                "      seeds: [1.5]}  # <-"),
        "configs[0].campaign.seeds[0]"),
    "experiment: a config inside it": (
        load_experiment, "e.yaml", EXPERIMENT, ("      lustre: {stripe_count: 4}",
                                                "      lustre: {stripe_count: -2}  # <-"),
        "configs[1].config.lustre.stripe_count"),
    "experiment: a study not known": (
        load_experiment, "e.yaml", EXPERIMENT, ("study: default-vs-tuned",
                                                "study: [sensitivity, tuning]  # <-"),
        "study[1]"),
    "space: a key not of the config": (
        load_space, "p.yaml", SPACE, ("    key: mpiio.cb_nodes", "    key: mpiio.cb_nodez  # <-"),
        "parameters[1].key"),
    "space: a value of the wrong type": (
        load_space, "p.yaml", SPACE, ("    values: [1, 2]\n  - name: cb",
                                      "    values: [1, two]  # <-\n  - name: cb"),
        "parameters[0].values[1].lustre.stripe_count"),
    "landscape suite: a count below its least": (
        load_suite, "l.yaml", SUITE, ("samples: 4", "samples: 1  # <-"), "samples"),
    "benchmark: a count out of bounds": (
        load_benchmark, "b.yaml", BENCHMARK, ("  random: 10", "  random: 0  # <-"),
        "strategies.random"),
    "site file: cores out of bounds": (
        Site.load, "site.yaml", SITE, ("cores_per_node: 32",
                                                    "cores_per_node: 0  # <-"),
        "cores_per_node"),
    "site file: an unknown sbatch key": (
        Site.load, "site.yaml", SITE, ("  partition: batch", "  partition: batch\n"
                                       "  colour: blue  # <-"), "sbatch.colour"),
    "calibration design: a probe's count": (
        load_design, "design.yaml", DESIGN, ("    nodes: 1", "    nodes: 0  # <-"),
        "probes[0].nodes"),
    "calibration design: a probe's config": (
        load_design, "design.yaml", DESIGN, ("    config: {lustre: {stripe_count: 2}}",
                                             "    config: {lustre: {stripe_count: -2}}  # <-"),
        "probes[0].config.lustre.stripe_count"),
    "layout list: a component's field": (
        read_layouts, "layouts.yaml", LAYOUTS, ("  - {end: eof, stripe_count: 4}",
                                                "  - {end: eof, stripe_count: -2}  # <-"),
        "two[1].stripe_count"),
}


def _marked_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.endswith("# <-"))


def _refusal(tmp_path: Path, load: Loader, name: str, text: str) -> InputError:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as raised:
        load(path)
    return raised.value


@pytest.mark.parametrize("case", CASES)
def test_a_refused_field_is_named_with_its_file_and_line(tmp_path: Path, case: str) -> None:
    load, name, valid, (old, new), field = CASES[case]
    assert old in valid
    (tmp_path / name).write_text(valid)
    if load is not load_benchmark:  # a benchmark's tables must exist to be read
        load(tmp_path / name)
    text = valid.replace(old, new, 1)
    error = _refusal(tmp_path, load, name, text)
    assert str(error).startswith(f"{tmp_path / name}:{_marked_line(text)}: {field}: "), str(error)
    assert "\n" not in str(error)


@pytest.mark.parametrize("loader", sorted({(case[0], case[1]) for case in CASES.values()},
                                           key=lambda pair: pair[1]),
                         ids=lambda pair: pair[1])
def test_a_deeply_nested_file_is_refused_before_its_reader_walks_it(
        tmp_path: Path, loader: tuple[Loader, str]) -> None:
    """Before: a deeply nested spec sheet was an internal error (a recursion limit)."""
    load, name = loader
    path = tmp_path / name
    path.write_text("name: x\nkey: " + "[" * 2000 + "]" * 2000 + "\n")
    with pytest.raises(UserError) as raised:
        load(path)
    assert str(raised.value) == (f"{path}:2: key: nested deeper than {MAX_DEPTH} lists and "
                                 "mappings")


def test_a_file_that_is_not_utf8_is_one_line_naming_the_byte(tmp_path: Path) -> None:
    """Before: a space that was not UTF-8 was an internal error."""
    path = tmp_path / "space.yaml"
    path.write_bytes(SPACE.encode().replace(b"name: t", b"name: t\xff"))
    with pytest.raises(UserError) as raised:
        load_space(path)
    assert str(raised.value) == (f"{path}: cannot read the space: not UTF-8 text (byte 0xff at "
                                 f"offset 7)")


def test_a_missing_field_is_named_at_the_mapping_that_lacks_it(tmp_path: Path) -> None:
    text = EXPERIMENT.replace("    ranks: 64\n", "")
    error = _refusal(tmp_path, load_experiment, "e.yaml", text)
    assert str(error) == f"{tmp_path / 'e.yaml'}:5: workloads[0].ranks: missing"


def test_a_platform_model_figure_is_named_with_its_line(tmp_path: Path) -> None:
    text = (paths.platforms_dir() / "hopper.yaml").read_text()
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("targets:"))
    indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
    lines[at] = f"{indent}targets: {{value: 10000000, source: a typo}}"
    path = tmp_path / "hopper.yaml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as raised:
        load_platform(path)
    assert str(raised.value).startswith(f"{path}:{at + 1}: filesystem.targets: "), raised.value


@pytest.mark.parametrize(("field", "line"), [
    ("a", 1), ("b.c", 3), ("b.d[1]", 6), ("b.d[1].e", 6), ("b.d[0].x", 5), ("b.d[7]", 5),
    ("dotted.key", 7), ("dotted.key.deeper", 7), ("", 1), ("nowhere", 1)])
def test_a_key_path_is_found_on_its_line(field: str, line: int) -> None:
    text = "a: 1\nb:\n  c: 2\n  d:\n    - x\n    - {e: 3}\ndotted.key: 4\n"
    assert field_line(text, field) == line


def test_an_error_about_another_file_keeps_its_own_words(tmp_path: Path) -> None:
    """A benchmark's table refers to a landscape spec: its error names that file, not a line
    of the benchmark spec's."""
    (tmp_path / "landscape.yaml").write_text(SUITE.replace("samples: 4", "samples: 1"))
    path = tmp_path / "b.yaml"
    path.write_text(BENCHMARK)
    with pytest.raises(InputError) as raised:
        load_benchmark(path)
    assert str(raised.value).startswith(f"{path}:5: tables.t: {tmp_path / 'landscape.yaml'}:3: "
                                        f"samples: "), raised.value


# --- configs and workloads: the Python reader and the C ones -----------------------------------

CONFIG = """\
iotwin: 1
lustre:
  stripe_count: 4
mpiio:
  cb_nodes: 2
  hints: {romio_lustre_co_ratio: 2}
files:
  - match: "*.h5"
    dataset:
      chunk_dims: [4, 4]
"""

#: case -> (replaced -> the replacement on the marked line, the field named)
CONFIG_CASES: dict[str, tuple[tuple[str, str], str]] = {
    "a value out of bounds": (("  stripe_count: 4", "  stripe_count: -2  # <-"),
                              "lustre.stripe_count"),
    "an unknown key": (("  cb_nodes: 2", "  cb_nodez: 2  # <-"), "mpiio.cb_nodez"),
    "a hint that is not a string": (("  hints: {romio_lustre_co_ratio: 2}",
                                     "  hints: {romio_lustre_co_ratio: [2]}  # <-"),
                                    "mpiio.hints.romio_lustre_co_ratio"),
    "a list's item": (("      chunk_dims: [4, 4]", "      chunk_dims:\n        - 4\n"
                       "        - 0  # <-"), "files[0].dataset.chunk_dims[1]"),
    "a key missing from its mapping": (('  - match: "*.h5"\n    dataset:', "  - dataset:  # <-"),
                                       "files[0].match"),
}


def _config_check(files: list[Path]) -> list[str]:
    """The interposer's verdicts (its own parser, tests/programs/config_check)."""
    checker = paths.built("tests/programs/config_check")
    return subprocess.run([checker, *files], capture_output=True, text=True,
                          check=True).stdout.splitlines()


def test_the_config_is_valid_to_both_readers(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(CONFIG)
    load_config(tmp_path / "c.yaml")
    assert _config_check([tmp_path / "c.yaml"]) == ["ok"]


@pytest.mark.parametrize("case", CONFIG_CASES)
def test_a_config_field_is_named_on_its_line_by_both_readers(tmp_path: Path, case: str) -> None:
    (old, new), field = CONFIG_CASES[case]
    assert old in CONFIG
    text = CONFIG.replace(old, new, 1)
    python = str(_refusal(tmp_path, load_config, "c.yaml", text))
    assert python.startswith(f"{tmp_path / 'c.yaml'}:{_marked_line(text)}: {field}: "), python
    assert _config_check([tmp_path / "c.yaml"]) == [python]


# JSON, which all three readers of the format read (iosim reads nothing else)
WORKLOAD = """\
{
 "iotwin_workload": 1,
 "ranks": 4,
 "files": [
  {
   "name": "shared.h5",
   "datasets": [
    {"name": "/x", "element_bytes": 4,
     "decomposition": {"grid": [4], "block": [1024]}}
   ]
  }
 ]
}
"""

#: case -> (replaced -> the replacement, the field named); the replacement's line is the one
#: named (JSON has no comments to mark it)
WORKLOAD_CASES: dict[str, tuple[tuple[str, str], str]] = {
    "a count out of bounds": (('"ranks": 4,', '"ranks": 0,'), "ranks"),
    "an unknown key": (('"name": "shared.h5",', '"name": "shared.h5", "colour": "blue",'),
                       "files[0].colour"),
    "a key missing from its mapping": (('{"name": "/x", "element_bytes": 4,', '{"name": "/x",'),
                                       "files[0].datasets[0].element_bytes"),
    "a list's item": (('"block": [1024]', '"block": [-1]'),
                      "files[0].datasets[0].decomposition.block[0]"),
    "a rule across fields": (('"grid": [4]', '"grid": [3]'),
                             "files[0].datasets[0].decomposition.grid"),
}


def test_the_workload_is_valid_to_every_reader(tmp_path: Path) -> None:
    (tmp_path / "w.json").write_text(WORKLOAD)
    assert all(found[0].accepted for found in verdicts([tmp_path / "w.json"]).values())


@pytest.mark.parametrize("case", WORKLOAD_CASES)
def test_a_workload_field_is_named_on_its_line_by_every_reader(tmp_path: Path,
                                                                case: str) -> None:
    (old, new), field = WORKLOAD_CASES[case]
    assert old in WORKLOAD
    text = WORKLOAD.replace(old, new, 1)
    line = text[:text.index(new)].count("\n") + 1
    python = str(_refusal(tmp_path, load_workload, "w.json", text))
    assert python.startswith(f"{tmp_path / 'w.json'}:{line}: {field}: "), python
    by_reader = verdicts([tmp_path / "w.json"])
    assert {reader: found[0].error for reader, found in by_reader.items()} == {
        reader: python for reader in by_reader}


@pytest.mark.parametrize("option", ["--config", "--workload"])
def test_the_command_line_prints_the_line(tmp_path: Path, option: str) -> None:
    """`iotwin simulate` (as run, tune and whatif, which read them alike) refuses a bad config
    or workload before anything runs, with the one line."""
    (tmp_path / "c.yaml").write_text(CONFIG.replace("  cb_nodes: 2", "  cb_nodez: 2"))
    (tmp_path / "w.json").write_text(WORKLOAD.replace('"ranks": 4,', '"ranks": 0,'))
    bad = {"--config": ["--config", "c.yaml", "--kernel", "vpic-io", "--ranks", "4"],
           "--workload": ["--workload", "w.json"]}[option]
    done = subprocess.run([sys.executable, "-m", "iotwin", "simulate", "--platform", "hopper",
                           *bad], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(paths.repo_root() / "tuner")})
    expected = {"--config": "c.yaml:5: mpiio.cb_nodez: unknown key (expected one of ",
                "--workload": "w.json:3: ranks: expected an integer from 1 to "}[option]
    assert done.returncode == 2 and done.stderr.startswith(f"iotwin: error: {expected}"), \
        done.stderr


def test_a_duplicate_workload_key_is_named_on_its_line_by_every_reader(tmp_path: Path) -> None:
    """The document refused as a whole, in the words of the YAML readers: before, iosim's
    JSON reader did not say the line."""
    path = tmp_path / "w.json"
    path.write_text(WORKLOAD.replace('"ranks": 4,', '"ranks": 4,\n "ranks": 2,'))
    assert {reader: found[0].error for reader, found in verdicts([path]).items()} == {
        reader: f"{path}:4: ranks: duplicate key" for reader in ("python", "iosim",
                                                                         "replay")}


def test_nesting_too_deep_is_named_on_its_line_by_every_reader(tmp_path: Path) -> None:
    """Before: iosim's JSON reader said neither line nor field (an exception's text)."""
    path = tmp_path / "w.json"
    path.write_text(WORKLOAD.replace('"ranks": 4,', '"ranks": 4,\n "name": ' + "[" * 40
                                     + "]" * 40 + ","))
    assert {reader: found[0].error for reader, found in verdicts([path]).items()} == {
        reader: f"{path}:4: name: nested deeper than 32 lists and mappings"
        for reader in ("python", "iosim", "replay")}
