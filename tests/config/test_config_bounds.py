"""Issue 37's config defects, each reproduced as a test: out-of-range integers and sizes, bad
encodings and deep or exploding YAML end in one line naming the file and the key, both in the
Python validator and in the interposer's C reader (its table carries the bounds)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from iotwin.config.schema import load_schema
from iotwin.config.validation import ConfigError, load_config
from iotwin.core import paths
from iotwin.core.yaml_files import MAX_DEPTH, MAX_NODES
from iotwin.formats.bounds import C_TYPES, load_bounds

#: issue 37: each passed validation, then ran as something else (or not at all)
OUT_OF_RANGE = {
    "cb_nodes 2^63": ("mpiio: {cb_nodes: 9223372036854775808}", "mpiio.cb_nodes"),
    "cb_nodes 2^31": ("mpiio: {cb_nodes: 2147483648}", "mpiio.cb_nodes"),
    "cb_nodes 1e30": ("mpiio: {cb_nodes: 1000000000000000000000000000000}", "mpiio.cb_nodes"),
    "cb_buffer_size 99999999999TiB": ("mpiio: {cb_buffer_size: 99999999999TiB}",
                                      "mpiio.cb_buffer_size"),
    "chunk_dims 2^64+1": ("dataset: {chunk_dims: [18446744073709551617]}",
                          "dataset.chunk_dims[0]"),
    "cb_buffer_size 2GiB": ("mpiio: {cb_buffer_size: 2GiB}", "mpiio.cb_buffer_size"),
    "stripe_count 2001": ("lustre: {stripe_count: 2001}", "lustre.stripe_count"),
    "stripe_offset 65535": ("lustre: {stripe_offset: 65535}", "lustre.stripe_offset"),
    "chunk_size 4GiB": ("dataset: {chunk_size: 4GiB}", "dataset.chunk_size"),
    "scoped cb_nodes 0": ("files: [{match: a, mpiio: {cb_nodes: 0}}]", "files[0].mpiio.cb_nodes"),
}


def _error(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return str(caught.value)


@pytest.mark.parametrize("case", OUT_OF_RANGE)
def test_out_of_range_values_are_refused_naming_file_and_key(tmp_path: Path, case: str):
    text, key = OUT_OF_RANGE[case]
    path = tmp_path / "cfg.yaml"
    path.write_text(text)
    message = _error(path)
    assert message.startswith(f"{path}:1: {key}: ") and "\n" not in message


@pytest.mark.parametrize("case", OUT_OF_RANGE)
def test_the_interposer_reader_refuses_them_too(tmp_path: Path, case: str):
    checker = paths.built("tests/programs/config_check")
    path = tmp_path / "cfg.yaml"
    path.write_text(OUT_OF_RANGE[case][0])
    line = subprocess.run([checker, path], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert line.startswith(f"{path}:1: {OUT_OF_RANGE[case][1]}: ")


def test_values_at_the_bounds_are_accepted(tmp_path: Path):
    path = tmp_path / "cfg.yaml"
    path.write_text("mpiio: {cb_nodes: 16777216, cb_buffer_size: 2147483647}\n"
                    "lustre: {stripe_count: 2000, stripe_offset: 65534, stripe_size: 2147418112}\n"
                    "dataset: {chunk_dims: [4294967295]}\n")
    config = load_config(path)
    assert config["mpiio"] == {"cb_nodes": 2**24, "cb_buffer_size": 2**31 - 1}
    assert config["lustre"]["stripe_size"] == 2**31 - 2**16


def test_every_integer_key_names_a_kind_within_its_c_type():
    for block in load_schema().blocks.values():
        for key in [*block.values(), *(f for k in block.values() for f in k.fields.values())]:
            if key.type in ("int", "size", "int-list"):
                assert key.bounds is not None, key.name
                low, high = C_TYPES[key.bounds.c_type] or (None, None)
                assert low <= key.bounds.min <= key.bounds.max <= high, key.name
    assert load_bounds()["processes"].max == 2**24


def test_a_binary_file_is_one_line_naming_it(tmp_path: Path):
    path = tmp_path / "cfg.yaml"
    path.write_bytes(b"mpiio: {cb_nodes: 2}\n# \xff\xfe\x00\n")
    assert _error(path) == (f"{path}: cannot read the config: not UTF-8 text (byte 0xff at "
                            "offset 23)")


def test_deep_nesting_is_one_line_naming_it(tmp_path: Path):
    path = tmp_path / "cfg.yaml"
    path.write_text("a: " + "[" * 20000 + "]" * 20000 + "\n")
    assert _error(path) == f"{path}:1: a: nested deeper than {MAX_DEPTH} lists and mappings"


def test_an_alias_bomb_is_refused_before_anything_walks_it(tmp_path: Path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    path = tmp_path / "cfg.yaml"
    path.write_text("\n".join(lines) + "\n")
    assert _error(path).endswith(f"more than {MAX_NODES} nodes (aliases counted expanded)")


@pytest.mark.parametrize(("text", "fragment"), [
    ("a: &x [1, *x]", "the alias *x is inside its own anchor"),
    ("mpiio: {cb_nodes: !!int '2'}", "explicit tag tag:yaml.org,2002:int"),
])
def test_recursive_aliases_and_tags_are_refused(tmp_path: Path, text: str, fragment: str):
    path = tmp_path / "cfg.yaml"
    path.write_text(text)
    assert fragment in _error(path)
