"""The interposer's C parser and the Python validator accept and refuse the same configs,
with the same messages (both are driven by config-schema.yaml), each naming the file and the
line: ``FILE:LINE: FIELD: problem``; and the interposer and iotwin.config.resolve give every
file and dataset the same settings from the same blocks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from iotwin.config.resolution import matched_blocks, resolve
from iotwin.config.validation import ConfigError, load_config
from iotwin.core import paths

CASES = {
    "good": """
iotwin: 1
lustre: {stripe_count: 4, stripe_size: 1MiB, stripe_offset: -1}
mpiio:
  romio_cb_write: enable
  cb_nodes: 2
  cb_config_list: "*:*"
  cb_buffer_size: 4MiB
  hints: {romio_lustre_co_ratio: 2}
hdf5: {alignment: {threshold: 0, boundary: 1MiB}, coll_metadata_write: true}
dataset: {chunk_size: 1.5KiB, fill_time: never, transfer_mode: collective}
files:
  - match: "*.h5"
    datasets: [{match: "/Step#0/*", chunk_dims: [1024, 2]}]
""",
    "empty": "",
    "negative": "files: [{match: a, mpiio: {cb_nodes: -3}}]",
    "unknown": "mpiio: {cb_nodez: 2}",
    "unknown_top": "lustre2: {}",
    "unknown_field": "hdf5:\n  alignment:\n    threshold: 0\n    boundry: 1  # <-",
    "unknown_in_dataset": "files: [{match: a, datasets: [{match: b, chunk_sise: 1M}]}]",
    "enum": "mpiio: {romio_cb_write: on}",
    "size": "mpiio: {cb_buffer_size: 4 megs}",
    "fraction": "mpiio: {cb_buffer_size: 0.3K}",
    "stripe": "lustre: {stripe_size: 100K}",
    "bool": "mpiio: {romio_no_indep_rw: yes}",
    "quoted_int": "mpiio: {cb_nodes: '2'}",
    "list": "dataset:\n  chunk_dims:\n    - 4\n    - 0  # <-",
    "empty_list": "dataset: {chunk_dims: []}",
    "exclusive": "dataset:\n  chunk_size: 1MiB  # <-\n  chunk_dims: [4]",
    "required": "files:\n  - mpiio: {cb_nodes: 1}  # <-\n  - match: b",
    "not_list": "files: {match: a}",
    "not_mapping": "mpiio: 3",
    "top_list": "\n- a  # <-\n- b",
    "version": "iotwin: 2",
    "duplicate": "mpiio: {cb_nodes: 1}\nmpiio: {cb_nodes: 2}  # <-",
    "hint_value": "mpiio: {hints: {a: [1]}}",
    "glob": "files: [{match: 'a[^b]'}]",
    "null_value": "hdf5: {meta_block_size: ~}",
    # control characters: in a key, a hint's name and value, a pattern, a list item, a string
    "control_key": 'mpiio:  # <-\n  "cb\\nnodes": 1',
    "control_hint_name": 'mpiio: {hints: {"a\\x01": x}}',
    "nul_hint_name": 'mpiio: {hints: {"a\\0b": x}}',
    "control_hint_value": 'mpiio: {hints: {a: "x\\ny"}}',
    "control_pattern": 'files: [{match: "a\\tb"}]',
    "control_dataset_pattern": 'files: [{match: x, datasets: [{match: "a\\x1bb"}]}]',
    "control_string": 'mpiio: {cb_config_list: "*:\\x7f"}',
    "control_enum": 'mpiio: {romio_cb_write: "enable\\n"}',
    "control_list_item": 'dataset: {chunk_dims: [1, "2\\n"]}',
    # a noncharacter, refused by the one set the formats share (iotwin.core.text): before,
    # the config's readers took it
    "control_noncharacter": 'mpiio: {hints: {a: "x\\uFFFE"}}',
    # a progressive layout (lustre.components): each entry's fields, their order, the last's end
    "layout": "lustre: {components: [{end: 64KiB, mdt: true}, {end: 8MiB, stripe_count: 1, "
              "stripe_size: 1MiB, pool: flash, mdt: false}, {end: eof, stripe_count: -1, "
              "extension_size: 1GiB}]}",
    "layout_empty": "lustre: {components: []}",
    "layout_not_list": "lustre: {components: {end: eof}}",
    "layout_entry": "lustre: {components: [eof]}",
    "layout_unknown_field": "lustre: {components: [{end: eof, stripes: 2}]}",
    "layout_no_end": "lustre:\n  components:\n    - pool: flash  # <-\n      stripe_count: 2\n"
                     "    - {end: eof}",
    "layout_bad_end": "lustre: {components: [{end: soon}]}",
    "layout_decreasing": "files: [{match: a, lustre: {components: [{end: 8MiB}, {end: 1MiB}, "
                         "{end: eof}]}}]",
    "layout_equal": "lustre: {components: [{end: 1MiB}, {end: 1MiB}, {end: eof}]}",
    "layout_eof_early": "lustre: {components: [{end: eof}, {end: eof}]}",
    "layout_no_eof": "lustre:\n  components:\n    - end: 1MiB\n    - end: 8MiB  # <-",
    "layout_quoted_end": "lustre: {components: [{end: '1048576'}, {end: 'eof'}]}",
    "layout_mdt_striped": "lustre: {components: [{end: 1MiB, mdt: true, stripe_count: 2}, "
                          "{end: eof}]}",
    "layout_mdt_later": "lustre: {components: [{end: 1MiB}, {end: eof, mdt: true}]}",
    "layout_stripe": "lustre: {components: [{end: 1MiB, stripe_size: 100K}, {end: eof}]}",
}

# Integers beyond the C type the interposer gives them (a C int for MPI and Lustre, a long long
# for sizes and chunk dims): refused by the C side with the key's path, before any narrowing,
# in the words of the range the bounds table gives the key (data/bounds.yaml).
C_RANGE = {
    "mpiio: {cb_nodes: 9223372036854775808}":
        "mpiio.cb_nodes: expected an integer from 1 to 16777216, got 9223372036854775808",
    "mpiio: {cb_nodes: 2147483648}":
        "mpiio.cb_nodes: expected an integer from 1 to 16777216, got 2147483648",
    "lustre: {stripe_count: 3000000000}":
        "lustre.stripe_count: expected an integer from -1 to 2000, got 3000000000",
    "dataset: {chunk_dims: [18446744073709551617]}":
        "dataset.chunk_dims[0]: expected a positive integer, got 18446744073709551617",
    "mpiio: {cb_buffer_size: 99999999999TiB}":
        'mpiio.cb_buffer_size: expected a positive size such as 4MiB, at most 2147483647 bytes, '
        'got "99999999999TiB"',
}


def python_verdict(path: Path) -> str:
    try:
        load_config(path)
    except ConfigError as error:
        return str(error)
    return "ok"


@pytest.fixture(scope="module")
def config_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("configs")
    for name, text in CASES.items():
        (folder / f"{name}.yaml").write_text(text)
    return {name: folder / f"{name}.yaml" for name in CASES}


@pytest.fixture(scope="module")
def c_verdicts(config_files: dict[str, Path]) -> dict[str, tuple[str, str]]:
    checker = paths.built("tests/programs/config_check")
    files = list(config_files.values())
    lines = subprocess.run([checker, *files], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    return {name: (line, python_verdict(path))
            for name, line, path in zip(CASES, lines, files, strict=True)}


#: the cases both accept
ACCEPTED = {"good", "empty", "layout", "layout_quoted_end"}
#: cases refused as a whole document (not a field of it): "FILE: line N: problem"
def _refused_line(text: str) -> int:
    """The line a case is refused at: the one marked ``# <-``, else its only line."""
    lines = text.splitlines()
    marked = [i for i, line in enumerate(lines, 1) if line.endswith("# <-")]
    assert marked or len(lines) == 1, "a case of several lines marks its line"
    return marked[0] if marked else 1


@pytest.mark.parametrize("case", [name for name in CASES if name != "good"])
def test_c_and_python_give_the_same_verdict(c_verdicts, case):
    c_line, python_line = c_verdicts[case]
    assert c_line == python_line


@pytest.mark.parametrize("case", [name for name in CASES if name not in ACCEPTED])
def test_both_name_the_line_of_the_refused_field(c_verdicts, config_files, case):
    line = _refused_line(CASES[case])
    where = f"{config_files[case]}:{line}: "
    for message in c_verdicts[case]:
        assert message.startswith(where), message


def test_a_full_config_is_accepted_by_both(c_verdicts):
    assert all(c_verdicts[case] == ("ok", "ok") for case in ACCEPTED)


def test_a_bad_layout_is_refused_naming_the_component_and_field(c_verdicts):
    messages = {case: c_verdicts[case][0].split(": ", 1)[1] for case in CASES
                if case.startswith("layout_") and case != "layout_quoted_end"}
    assert messages["layout_decreasing"] == (
        "files[0].lustre.components[1].end: expected more than 8388608 (the previous entry's "
        "end), got 1048576")
    assert messages["layout_eof_early"] == (
        "lustre.components[0].end: only the last entry may be eof")
    assert messages["layout_no_eof"] == (
        "lustre.components[1].end: expected eof in the last entry, got 8388608")
    assert messages["layout_mdt_striped"] == (
        "lustre.components[0].stripe_count: cannot be combined with mdt")
    assert messages["layout_mdt_later"] == (
        "lustre.components[1].mdt: only the first entry may set it")
    assert messages["layout_no_end"] == "lustre.components[0].end: required key is missing"


def test_control_characters_are_refused_naming_the_key(c_verdicts):
    messages = {case: c_verdicts[case][0] for case in CASES
                if case.startswith("control_") or case == "nul_hint_name"}
    assert messages["nul_hint_name"].endswith(
        "mpiio.hints: a key holds a control character (U+0000)")
    assert messages["control_pattern"].endswith(
        "files[0].match: holds a control character (U+0009)")
    assert messages["control_noncharacter"].endswith(
        "mpiio.hints.a: holds a control character (U+FFFE)")
    assert all("control character" in message for message in messages.values())


@pytest.mark.parametrize(("text", "message"), C_RANGE.items())
def test_the_interposer_refuses_integers_beyond_their_c_type(tmp_path: Path, text, message):
    (tmp_path / "range.yaml").write_text(text)
    checker = paths.built("tests/programs/config_check")
    got = subprocess.run([checker, tmp_path / "range.yaml"], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert got == f"{tmp_path / 'range.yaml'}:1: {message}"


SCOPED = """
mpiio: {cb_nodes: 2, cb_buffer_size: 4MiB, hints: {a: 1, keep: top}}
lustre: {stripe_count: 4}
openmpi: {fcoll: vulcan}
hdf5: {alignment: {threshold: 0, boundary: 1MiB}, meta_block_size: 64KiB}
dataset: {chunk_size: 1MiB, fill_time: never}
files:
  - match: "*.h5"
    mpiio: {cb_nodes: 4, hints: {a: 2, b: x}}
    hdf5: {alignment: {threshold: 5}}
    datasets:
      - {match: x, chunk_dims: [16, 2]}
      - {match: "/g/*", transfer_mode: independent, alloc_time: early}
      - {match: "[!x]*", chunk_size: 2KiB}
  - match: "ckpt_??.h5"
    lustre: {stripe_count: 8, stripe_size: 1MiB}
    dataset: {transfer_mode: collective}
    datasets: [{match: "*", fill_time: alloc}]
  - match: "/scratch/run/*"
    mpiio: {romio_cb_write: disable}
  - match: "out.bin"
    mpiio: {cb_nodes: 1}
  - match: "*.h5"
    lustre:
      components: [{end: 256KiB, mdt: true}, {end: eof, stripe_count: 8, pool: capacity}]
"""
NAMES = [("/scratch/run/ckpt_01.h5", None), ("/scratch/run/ckpt_01.h5", "/g/x"),
         ("/scratch/run/ckpt_01.h5", "/Step#0/px"), ("ckpt_01.h5", "x"),
         ("ckpt_001.h5", "/g/y"), ("/scratch/run/out.bin", None), ("out.bin", None),
         ("/other/out.bin.h5", "/a/b/x"), ("/scratch/run", None), ("plain", "/x"),
         ("/scratch/run/sub/dir/field.h5", "/x/[y]"), ("relative/ckpt_ab.h5", "y")]


def c_resolve(config: Path, file: str, dataset: str | None) -> dict:
    checker = paths.built("tests/programs/config_check")
    done = subprocess.run([checker, "--resolve", config, file, *([dataset] if dataset else [])],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize(("file", "dataset"), NAMES)
def test_the_interposer_and_python_resolve_the_same_settings(tmp_path: Path, file, dataset):
    path = tmp_path / "scoped.yaml"
    path.write_text(SCOPED)
    config = load_config(path)
    got = c_resolve(path, file, dataset)
    assert got["matched"].split(",") == [label for label, _ in
                                         matched_blocks(config, file, dataset)]
    assert got["settings"] == resolve(config, file, dataset)


def test_resolution_cases_cover_every_kind_of_block(tmp_path: Path):
    """The names above reach dataset blocks, file blocks matched by the full name and by the
    last component, and none at all: the parity above is not vacuous."""
    path = tmp_path / "scoped.yaml"
    path.write_text(SCOPED)
    labels = {label for file, dataset in NAMES
              for label in c_resolve(path, file, dataset)["matched"].split(",")}
    assert labels >= {"top", "files[0]", "files[1]", "files[2]", "files[3]",
                      "files[0].datasets[0]", "files[0].datasets[1]", "files[0].datasets[2]",
                      "files[1].datasets[0]"}
    assert c_resolve(path, "plain", "/x")["matched"] == "top"


def test_a_duplicate_key_after_a_stack_of_aliases_is_named_at_once(tmp_path: Path):
    # each alias links its node again: naming the duplicate's map walks each node once, not
    # once a path (2^40 paths here; before, the interposer never finished)
    anchors = ["a0: &a0 [x, x]", *(f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]" for i in range(1, 41))]
    config = tmp_path / "aliases.yaml"
    config.write_text("anchors:\n" + "".join(f"  {line}\n" for line in anchors)
                      + "mpiio:\n  romio_cb_write: enable\n  romio_cb_write: disable\n")
    checker = paths.built("tests/programs/config_check")
    out = subprocess.run([checker, config], capture_output=True, text=True, check=True,
                         timeout=120).stdout
    assert out.strip() == f"{config}:45: mpiio.romio_cb_write: duplicate key", out
