"""The interposer's C parser and the Python validator accept and refuse the same configs,
with the same messages (both are driven by config-schema.yaml)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from iotwin.config.schema import ConfigError, load_config
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
    "unknown_field": "hdf5: {alignment: {boundry: 1}}",
    "unknown_in_dataset": "files: [{match: a, datasets: [{match: b, chunk_sise: 1M}]}]",
    "enum": "mpiio: {romio_cb_write: on}",
    "size": "mpiio: {cb_buffer_size: 4 megs}",
    "fraction": "mpiio: {cb_buffer_size: 0.3K}",
    "stripe": "lustre: {stripe_size: 100K}",
    "bool": "mpiio: {romio_no_indep_rw: yes}",
    "quoted_int": "mpiio: {cb_nodes: '2'}",
    "list": "dataset: {chunk_dims: [4, 0]}",
    "empty_list": "dataset: {chunk_dims: []}",
    "exclusive": "dataset: {chunk_size: 1MiB, chunk_dims: [4]}",
    "required": "files: [{mpiio: {cb_nodes: 1}}]",
    "not_list": "files: {match: a}",
    "not_mapping": "mpiio: 3",
    "top_list": "- a\n- b",
    "version": "iotwin: 2",
    "duplicate": "mpiio: {cb_nodes: 1}\nmpiio: {cb_nodes: 2}",
    "hint_value": "mpiio: {hints: {a: [1]}}",
    "glob": "files: [{match: 'a[^b]'}]",
    "null_value": "hdf5: {meta_block_size: ~}",
}


def python_verdict(path: Path) -> str:
    try:
        load_config(path)
    except ConfigError as error:
        return str(error)
    return "ok"


@pytest.fixture(scope="module")
def c_verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    checker = paths.built("tests/programs/config_check")
    folder = tmp_path_factory.mktemp("configs")
    files = []
    for name, text in CASES.items():
        (folder / f"{name}.yaml").write_text(text)
        files.append(folder / f"{name}.yaml")
    lines = subprocess.run([checker, *files], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    return {name: (line, python_verdict(path))
            for name, line, path in zip(CASES, lines, files, strict=True)}


@pytest.mark.parametrize("case", [name for name in CASES if name != "good"])
def test_c_and_python_give_the_same_verdict(c_verdicts, case):
    c_line, python_line = c_verdicts[case]
    assert c_line == python_line


def test_a_full_config_is_accepted_by_both(c_verdicts):
    assert c_verdicts["good"] == ("ok", "ok")
