"""The tuning config's Python side: units, unknown keys, bad values, writing, scoping."""

from __future__ import annotations

from pathlib import Path

import pytest
from iotwin.config.dumping import dump_config
from iotwin.config.resolution import matched_blocks, resolve
from iotwin.config.validation import ConfigError, load_config, parse_yaml, validate_config
from iotwin.core.errors import UserError


def check(text: str) -> dict:
    return validate_config(parse_yaml(text, "cfg.yaml"), "cfg.yaml")


def error_of(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        check(text)
    return str(caught.value)


@pytest.mark.parametrize(("written", "nbytes"), [
    ("4MiB", 4 * 2**20), ("4MB", 4 * 2**20), ("4m", 4 * 2**20), ("64K", 65536),
    ("1.5KiB", 1536), (1048576, 1048576), ("1 GiB", 2**30),
])
def test_sizes_are_normalised_to_bytes(written, nbytes):
    assert check(f"mpiio: {{cb_buffer_size: {written}}}")["mpiio"]["cb_buffer_size"] == nbytes


def test_the_example_in_the_spec_has_the_documented_error():
    message = error_of("files: [{match: '*.h5', mpiio: {cb_nodes: -3}}]")
    assert message == (
        "cfg.yaml: files[0].mpiio.cb_nodes: expected an integer from 1 to 16777216, got -3")


@pytest.mark.parametrize(("text", "path"), [
    ("mpiio: {cb_nodez: 2}", "mpiio.cb_nodez: unknown key"),
    ("lustre2: {}", "lustre2: unknown key"),
    ("hdf5: {alignment: {boundry: 1MiB}}", "hdf5.alignment.boundry: unknown key"),
    ("files: [{match: a, datasets: [{match: b, chunk_sise: 1M}]}]",
     "files[0].datasets[0].chunk_sise: unknown key"),
])
def test_unknown_keys_are_named_by_their_path(text, path):
    assert error_of(text).startswith(f"cfg.yaml: {path}")


@pytest.mark.parametrize(("text", "fragment"), [
    ("mpiio: {romio_cb_write: on}",
     'romio_cb_write: expected one of enable, disable, automatic, got "on"'),
    ("mpiio: {cb_buffer_size: 4 megs}",
     'cb_buffer_size: expected a positive size such as 4MiB, at most 2147483647 bytes, '
     'got "4 megs"'),
    ("lustre: {stripe_size: 100K}",
     'stripe_size: expected a size that is a multiple of 64KiB, at most 2147483647 bytes, '
     'got "100K"'),
    ("mpiio: {romio_no_indep_rw: yes}", 'romio_no_indep_rw: expected true or false, got "yes"'),
    ("mpiio: {cb_nodes: 010x}", 'cb_nodes: expected an integer from 1 to 16777216, got "010x"'),
    ("dataset: {chunk_dims: [4, 0]}", "chunk_dims[1]: expected a positive integer, got 0"),
    ("dataset: {chunk_size: 1MiB, chunk_dims: [4]}",
     "chunk_size: cannot be combined with chunk_dims"),
    ("files: [{mpiio: {cb_nodes: 1}}]", "files[0].match: required key is missing"),
    ("files: {match: a}", "files: expected a list of file blocks, got a mapping"),
    ("iotwin: 2", "iotwin: expected 1 (the only format version), got 2"),
    ("mpiio: {cb_nodes: 1}\nmpiio: {cb_nodes: 2}", ":2: mpiio: duplicate key"),
    ("mpiio: [1", "malformed YAML"),
])
def test_bad_values_are_refused_with_the_key_path(text, fragment):
    assert fragment in error_of(text)


def test_decimal_integers_only_so_both_parsers_agree():
    assert check("mpiio: {cb_nodes: 010}")["mpiio"]["cb_nodes"] == 10


def test_free_form_hints_become_strings():
    hints = check("mpiio: {hints: {romio_lustre_co_ratio: 2, x: true, y: abc}}")["mpiio"]["hints"]
    assert hints == {"romio_lustre_co_ratio": "2", "x": "true", "y": "abc"}


def test_config_error_is_a_user_error_naming_the_file(tmp_path: Path):
    path = tmp_path / "mine.yaml"
    path.write_text("mpiio: {cb_nodes: 0}\n")
    with pytest.raises(UserError, match=r"mine\.yaml:1: mpiio\.cb_nodes"):
        load_config(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "absent.yaml")


def test_dump_writes_units_and_reads_back_the_same(tmp_path: Path):
    config = check("mpiio: {cb_buffer_size: 4194304, cb_config_list: '*:*'}\n"
                   "hdf5: {alignment: {threshold: 0, boundary: 1048576}}\n"
                   "files: [{match: '*.h5', datasets: [{match: x, chunk_size: 3000}]}]")
    text = dump_config(config)
    assert "cb_buffer_size: 4MiB" in text and "boundary: 1MiB" in text
    path = tmp_path / "out.yaml"
    path.write_text(text)
    assert load_config(path) == config


SCOPED = """
mpiio: {cb_nodes: 2, hints: {a: "1"}}
hdf5: {alignment: {threshold: 0, boundary: 1MiB}}
dataset: {chunk_size: 16MiB, transfer_mode: collective}
files:
  - match: "*ckpt*.h5"
    mpiio: {cb_nodes: 4, hints: {b: "2"}}
    hdf5: {alignment: {boundary: 4MiB}}
    datasets:
      - {match: "/Step#0/*", chunk_dims: [1024]}
      - {match: "px", transfer_mode: independent}
  - match: "/scratch/run/ckpt_001.h5"
    mpiio: {cb_nodes: 8}
"""


def test_resolve_applies_top_then_files_in_order_then_datasets():
    config = check(SCOPED)
    settings = resolve(config, "/scratch/run/ckpt_001.h5", "/Step#0/px")
    assert settings["mpiio"] == {"cb_nodes": 8, "hints": {"a": "1", "b": "2"}}
    assert settings["hdf5"]["alignment"] == {"threshold": 0, "boundary": 4 * 2**20}
    assert settings["dataset"] == {"chunk_dims": [1024], "transfer_mode": "independent"}
    blocks = matched_blocks(config, "/scratch/run/ckpt_001.h5", "/Step#0/px")
    labels = [label for label, _ in blocks]
    assert labels == ["top", "files[0]", "files[1]", "files[0].datasets[0]",
                      "files[0].datasets[1]"]


def test_resolve_leaves_non_matching_files_and_datasets_out():
    config = check(SCOPED)
    assert resolve(config, "/scratch/run/out.h5")["mpiio"]["cb_nodes"] == 2
    other_dataset = resolve(config, "ckpt.h5", "/Step#1/x")["dataset"]
    assert other_dataset == {"chunk_size": 16 * 2**20, "transfer_mode": "collective"}


def test_globs_match_full_name_or_basename():
    config = check("files: [{match: 'out*.h5', mpiio: {cb_nodes: 3}}]")
    assert resolve(config, "/deep/dir/out1.h5")["mpiio"] == {"cb_nodes": 3}
    assert resolve(config, "/deep/out/x.h5")["mpiio"] == {}
    assert "'[!'" in error_of("files: [{match: 'a[^b]'}]")


def test_dump_accepts_sizes_as_validation_does(tmp_path: Path):
    written = {"mpiio": {"cb_buffer_size": "4MiB"},
               "hdf5": {"alignment": {"threshold": "64k", "boundary": "1MiB"}},
               "files": [{"match": "*.h5", "datasets": [{"match": "x", "chunk_size": "3000"}]}]}
    text = dump_config(written)
    assert "cb_buffer_size: 4MiB" in text and "threshold: 64KiB" in text
    path = tmp_path / "out.yaml"
    path.write_text(text)
    assert load_config(path) == validate_config(written, "written")


def test_dump_refuses_a_bad_value_naming_it():
    with pytest.raises(ConfigError, match=r"tuned: mpiio\.cb_buffer_size: expected .*\"4 lots\""):
        dump_config({"mpiio": {"cb_buffer_size": "4 lots"}}, "tuned")


def test_config_types_are_generated_from_the_schema() -> None:
    """iotwin.config.types is what `python -m iotwin.config.typegen` writes from the schema."""
    from iotwin.config import typegen
    from iotwin.config.schema import load_schema

    assert typegen.OUTPUT.read_text() == typegen.render(load_schema())


LAYOUT = ("lustre: {components: [{end: 64KiB, mdt: true}, {end: 8MiB, stripe_size: 1MiB}, "
          "{end: eof, stripe_count: 8, pool: capacity}]}")


def test_a_progressive_layout_keeps_its_components_in_order_sizes_in_bytes():
    assert check(LAYOUT)["lustre"]["components"] == [
        {"end": 65536, "mdt": True}, {"end": 8 * 2**20, "stripe_size": 2**20},
        {"end": "eof", "stripe_count": 8, "pool": "capacity"}]


@pytest.mark.parametrize(("text", "message"), [
    ("files: [{match: a, lustre: {components: [{end: 8MiB}, {end: 1MiB}, {end: eof}]}}]",
     "files[0].lustre.components[1].end: expected more than 8388608 (the previous entry's "
     "end), got 1048576"),
    ("lustre: {components: [{end: 1MiB}, {end: 8MiB}]}",
     "lustre.components[1].end: expected eof in the last entry, got 8388608"),
    ("lustre: {components: [{end: eof}, {end: eof}]}",
     "lustre.components[0].end: only the last entry may be eof"),
    ("lustre: {components: [{end: 1MiB, mdt: true, pool: flash}, {end: eof}]}",
     "lustre.components[0].pool: cannot be combined with mdt"),
    ("lustre: {components: [{end: 1MiB}, {end: eof, mdt: true}]}",
     "lustre.components[1].mdt: only the first entry may set it"),
    ("lustre: {components: [{end: 1MiB, stripe_size: 100K}, {end: eof}]}",
     'lustre.components[0].stripe_size: expected a size that is a multiple of 64KiB'),
    ("lustre: {components: [{end: never}]}",
     'lustre.components[0].end: expected a positive size such as 4MiB, at most '
     '1152921504606846976 bytes, or eof, got "never"'),
    ("lustre: {components: []}",
     "lustre.components: expected a non-empty list of mappings with keys end, mdt, "
     "stripe_count, stripe_size, pool, extension_size, got a list"),
])
def test_a_bad_layout_is_refused_naming_its_component(text, message):
    assert error_of(text).startswith(f"cfg.yaml: {message}")


def test_a_layout_is_written_with_units_and_read_back_the_same(tmp_path: Path):
    config = check(LAYOUT)
    text = dump_config(config)
    assert "end: 64KiB" in text and "end: eof" in text
    path = tmp_path / "out.yaml"
    path.write_text(text)
    assert load_config(path) == config


def test_a_later_layout_replaces_an_earlier_one_whole():
    config = check(LAYOUT + "\nfiles: [{match: '*.h5', lustre: {components: [{end: eof}]}}]")
    assert resolve(config, "a.h5")["lustre"]["components"] == [{"end": "eof"}]
