"""Issue 37's workload defects, each reproduced as a test: sizes that overflowed into 0 MB/s,
counts taken as 0, negative times and strides accepted, misleading messages, binary and deeply
nested files. Each is now refused, naming the file and the key, by every reader of the format:
the Python validator, iosim and the replay proxy (tests/support/workload_readers.py)."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from iotwin.core.errors import UserError
from iotwin.core.yaml_files import MAX_DEPTH, MAX_NODES
from iotwin.workloads.workload import load_workload, normalised_workload
from support.workload_readers import READERS, verdicts

BASE: dict[str, Any] = {
    "iotwin_workload": 1, "name": "t", "ranks": 4,
    "files": [{"name": "t.h5", "mode": "shared", "api": "hdf5", "create": True,
               "compute_before_s": 0, "flushes": 0,
               "datasets": [{"name": "/x", "element_bytes": 4,
                             "decomposition": {"grid": [4], "block": [1048576]}}]}]}


def _with(change: dict[str, Any], where: str = "file") -> dict[str, Any]:
    work = copy.deepcopy(BASE)
    target = {"file": work["files"][0], "dataset": work["files"][0]["datasets"][0],
              "top": work}[where]
    target.update(change)
    return work


def _strided(stride: list[int], block: list[int]) -> dict[str, Any]:
    work = _with({"datasets": [{"name": "/x", "element_bytes": 8, "dims": [8, 8]}],
                  "calls": [{"write": ["/x"], "selections": [{"runs": [
                      {"ranks": [0, 2], "start": [0, 0], "start_step": [4, 0],
                       "count": [2, 1], "stride": stride, "block": block}]}]}]})
    work["ranks"] = 2
    return work


#: issue 37: each was accepted (or ran as something else); the key each is refused at
DEFECTS: dict[str, tuple[dict[str, Any], str]] = {
    "block 2^62 x 4 bytes": (
        _with({"decomposition": {"grid": [4], "block": [2**62]}}, "dataset"),
        "files[0].datasets[0].decomposition.block[0]"),
    "block 2^58 x 4 bytes x 4 writers": (
        _with({"decomposition": {"grid": [4], "block": [2**58]}}, "dataset"),
        "files[0].datasets[0]"),
    "block 2^64+5": (_with({"decomposition": {"grid": [4], "block": [2**64 + 5]}}, "dataset"),
                     "files[0].datasets[0].decomposition.block[0]"),
    "dims 2^40 x 2^40": (_with({"decomposition": None, "dims": [2**40, 2**40]}, "dataset"),
                         "files[0].datasets[0]"),
    "flushes 10^12": (_with({"flushes": 10**12}), "files[0].flushes"),
    "flushes -1": (_with({"flushes": -1}), "files[0].flushes"),
    "compute_before_s -1": (_with({"compute_before_s": -1}), "files[0].compute_before_s"),
    "compute_before_s 1e309": (_with({"compute_before_s": 1.5e300}), "files[0].compute_before_s"),
    "stride [0, 1]": (_strided([0, 1], [1, 8]),
                      "files[0].calls[0].selections[0].runs[0].stride[0]"),
    "stride below the block": (_strided([1, 1], [2, 8]),
                               "files[0].calls[0].selections[0].runs[0].stride"),
    "ranks 2^31": (_with({"ranks": 2**31, "files": [{"name": "t.h5", "datasets": [
        {"name": "/x", "element_bytes": 4, "decomposition": {"grid": [2**31], "block": [1]}}]}]},
        "top"), "ranks"),
    "api cdf": (_with({"api": "cdf"}), "files[0].api"),
}


@pytest.fixture
def written(tmp_path: Path):
    """The workload as JSON text (1.5e300 written as 1e309, a number no double holds)."""
    def write(work: dict[str, Any], name: str = "w.json") -> Path:
        path = tmp_path / name
        path.write_text(json.dumps(work).replace("1.5e+300", "1e309"))
        return path
    return write


@pytest.mark.parametrize("case", DEFECTS)
def test_python_refuses_naming_file_and_key(written, case: str):
    work, key = DEFECTS[case]
    path = written(work)
    with pytest.raises(UserError) as caught:
        load_workload(path)
    assert str(caught.value).startswith(f"{path}:1: {key}: ")  # JSON on one line


@pytest.mark.parametrize("case", DEFECTS)
def test_every_reader_refuses_naming_file_and_key(written, case: str):
    work, key = DEFECTS[case]
    path = written(work)
    for reader, verdict in verdicts([path]).items():
        assert not verdict[0].accepted, (reader, verdict[0])
        assert verdict[0].message.startswith(f"{path}:1: {key}"), (reader, verdict[0].message)


def test_the_largest_values_are_accepted_by_every_reader(written):
    work = _with({"ranks": 2**24, "files": [{
        "name": "t.h5", "flushes": 2**20, "compute_before_s": 1e7,
        "datasets": [{"name": "/x", "element_bytes": 1,
                      "decomposition": {"grid": [2**12, 2**12], "block": [2**18, 2**18]}}]}]},
        "top")
    path = written(work)
    assert normalised_workload(work, "w")["files"][0]["flushes"] == 2**20
    assert all(v[0].accepted for v in verdicts([path]).values())


def test_a_yaml_float_too_large_for_a_double_names_file_and_key(tmp_path: Path):
    path = tmp_path / "w.yaml"
    path.write_text(json.dumps(BASE).replace('"compute_before_s": 0', '"compute_before_s": 1e309'))
    with pytest.raises(UserError, match=rf"^{path}:1: files\[0\]\.compute_before_s: expected a "
                       r"number from 0 to 1e\+07, got inf$"):
        load_workload(path)


def test_a_binary_workload_is_one_line_naming_it(tmp_path: Path):
    path = tmp_path / "w.yaml"
    path.write_bytes(json.dumps(BASE).encode() + b"\n# \xc3\x28\n")
    with pytest.raises(UserError) as caught:
        load_workload(path)
    assert str(caught.value) == (f"{path}: cannot read the workload: not UTF-8 text (byte 0xc3 "
                                 f"at offset {len(json.dumps(BASE)) + 3})")


def test_deep_nesting_is_one_line_naming_it(tmp_path: Path):
    path = tmp_path / "w.yaml"
    path.write_text("files: " + "[" * 20000 + "]" * 20000 + "\n")
    with pytest.raises(UserError) as caught:
        load_workload(path)
    assert str(caught.value) == (f"{path}:1: files: nested deeper than {MAX_DEPTH} lists "
                                 "and mappings")


def test_hundreds_of_thousands_of_datasets_are_refused_before_they_are_built(tmp_path: Path):
    """issue 37: 10^5-10^7 datasets took minutes and gigabytes with no word. The text's nodes
    are counted as it is read (aliases expanded): half a million datasets end in one line."""
    path = tmp_path / "w.yaml"
    path.write_text("iotwin_workload: 1\nname: many\nranks: 4\nfiles:\n- name: f.h5\n"
                    "  datasets:\n  - &d {name: /d, element_bytes: 8, "
                    "decomposition: {grid: [4], block: [16]}}\n" + "  - *d\n" * 500_000)
    with pytest.raises(UserError) as caught:
        load_workload(path)
    assert re.match(rf"{re.escape(str(path))}:\d+: files\[0\]\.datasets\[\d+\]: more than ",
                    str(caught.value))
    assert str(caught.value).endswith(f"more than {MAX_NODES} nodes (aliases counted expanded)")


def test_the_readers_are_the_ones_the_issue_names():
    assert set(READERS) == {"python", "iosim", "replay"}


@pytest.mark.parametrize("case", ["block 2^62 x 4 bytes", "dims 2^40 x 2^40", "flushes 10^12",
                                  "compute_before_s 1e309", "ranks 2^31"])
def test_iotwin_simulate_refuses_before_simulating(written, case: str):
    """issue 37: these predicted 0.0 MB/s with 0 RPCs, or ran with flushes taken as 0, or said
    "workload.ranks: must be >= 1" or "[json.exception.type_error.302]" without the file."""
    work, key = DEFECTS[case]
    path = written(work)
    done = subprocess.run([sys.executable, "-m", "iotwin", "simulate", "--platform", "local",
                           "--workload", str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith(f"iotwin: error: {path}:1: {key}: ")
    assert done.stderr.count("\n") == 1 and not done.stdout
