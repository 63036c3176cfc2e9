"""Fuzzing the readers of the formats users write (issue 37): workloads and configs generated
from their schemas (tests/support/format_strategies.py), then made hostile (wrong types, values
beyond every bound and C type, deep nesting, removed and unknown keys, mangled text and
encodings), fed to every reader: the Python validators, iosim (workloads, and the configs it
is handed), the replay proxy, and the interposer's config reader (tests/programs/config_check).

Each must end in a verdict: a result, or a clear one-line error naming the file; never a
traceback (any Python exception but UserError fails the test), a signal, a hang or unbounded
memory (the C readers run under a time-out and an address-space cap,
tests/support/workload_readers.py); and the readers must agree.

`make test` runs a bounded, derandomized number of examples (well under a minute). A longer run,
random each time:
IOTWIN_FUZZ_EXAMPLES=5000 .venv/bin/python -m pytest tests/formats/test_fuzz_formats.py
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from iotwin.config.validation import ConfigError, load_config
from iotwin.core import paths
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulator_input
from support.format_strategies import (
    as_json,
    configs,
    mangled_text,
    mutated,
    workloads,
)
from support.workload_readers import (
    MEMORY_CAP,
    READERS,
    ReaderFailure,
    same_content,
    verdicts,
)

#: examples per property: IOTWIN_FUZZ_EXAMPLES for a long (random) run, else a few (fixed)
LONG_RUN = int(os.environ.get("IOTWIN_FUZZ_EXAMPLES", "0"))
#: documents per example: the C readers take them in one process
BATCH = 6


def examples(n: int) -> Callable[[Any], Any]:
    return settings(max_examples=LONG_RUN or n, deadline=None, derandomize=not LONG_RUN,
                    database=None, suppress_health_check=[HealthCheck.too_slow,
                                                          HealthCheck.data_too_large])


def _files(folder: Path, texts: list[bytes], suffix: str = ".json") -> list[Path]:
    files = []
    for i, text in enumerate(texts):
        files.append(folder / f"{i}{suffix}")
        files[-1].write_bytes(text)
    return files


def _one_line_naming(message: str, path: Path) -> bool:
    """``FILE: problem``, or ``FILE:LINE: FIELD: problem`` for a field refused."""
    return re.match(rf"{re.escape(str(path))}(:\d+)?: ", message) is not None and \
        "\n" not in message


def _judge(texts: list[bytes], readers: tuple[str, ...] = tuple(READERS)) -> list[dict[str, Any]]:
    """Each reader's verdict on each text, every refusal one line naming its file."""
    with tempfile.TemporaryDirectory() as folder:
        files = _files(Path(folder), texts)
        by_reader = verdicts(files, readers)
        out = []
        for i, path in enumerate(files):
            result = {reader: by_reader[reader][i] for reader in readers}
            for reader, verdict in result.items():
                assert verdict.accepted or _one_line_naming(verdict.error, path), (reader,
                                                                                   verdict)
            out.append(result)
        return out


# --- workloads -----------------------------------------------------------------------------------

@examples(5)
@given(st.lists(workloads(), min_size=BATCH, max_size=BATCH))
def test_generated_workloads_are_read_alike_by_every_reader(works: list[dict[str, Any]]):
    for result in _judge([as_json(work).encode() for work in works]):
        assert all(v.accepted for v in result.values()), result
        for reader in ("iosim", "replay"):
            assert same_content(result[reader].normal, result["python"].normal), reader


@examples(10)
@given(st.lists(workloads().flatmap(mutated), min_size=BATCH, max_size=BATCH))
def test_hostile_workloads_get_the_same_verdict_from_every_reader(works: list[Any]):
    for result in _judge([as_json(work).encode() for work in works]):
        kinds = {reader: verdict.accepted for reader, verdict in result.items()}
        assert len(set(kinds.values())) == 1, result
        if not result["python"].accepted:
            assert result["python"].error == result["replay"].error, result


@examples(6)
@given(st.lists(workloads().flatmap(lambda w: mangled_text(as_json(w))), min_size=BATCH,
                max_size=BATCH))
def test_mangled_workload_text_gets_the_same_verdict_from_both_yaml_readers(texts: list[bytes]):
    """iosim reads JSON, so it may refuse YAML the others read; it must still end cleanly."""
    for result in _judge(texts):
        assert result["python"].accepted == result["replay"].accepted, result
        assert result["iosim"].accepted <= result["python"].accepted, result


# --- configs -------------------------------------------------------------------------------------

WORKLOAD = {"iotwin_workload": 1, "name": "t", "ranks": 4, "files": [
    {"name": "f.h5", "datasets": [
        {"name": "/x", "element_bytes": 8, "decomposition": {"grid": [4], "block": [4096]}}]}]}


def _python_config(path: Path) -> tuple[bool, str, dict[str, Any] | None]:
    try:
        return True, "", load_config(path)
    except ConfigError as error:
        return False, str(error), None


def _interposer_config(files: list[Path]) -> list[str]:
    checker = paths.built("tests/programs/config_check")
    done = subprocess.run([checker, *files], capture_output=True, text=True, timeout=120,
                          preexec_fn=_cap_memory, check=False)
    if done.returncode != 0:
        raise ReaderFailure(f"config_check ended with status {done.returncode}: {done.stderr}")
    lines = done.stdout.split("\n")[:-1]
    if len(lines) != len(files):
        raise ReaderFailure(f"config_check: {len(lines)} lines for {len(files)} files")
    return lines


def _cap_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _iosim_on(config_list: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """iosim's results for configs the validator accepted, on a small workload."""
    payload = simulator_input(load_platform("archer"), WORKLOAD, config_list)
    done = subprocess.run([paths.simulator_binary()], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=300, preexec_fn=_cap_memory,
                          check=False)
    if done.returncode != 0:
        raise ReaderFailure(f"iosim ended with status {done.returncode}: {done.stderr}")
    return json.loads(done.stdout)["results"]


#: what the interposer's reader (owned by the interposer) does not check yet, found here:
#: each a test of the text and the Python error
INTERPOSER_GAPS: dict[str, Callable[[bytes, str], bool]] = {
    "an int-list item above its kind's maximum (config.c reads no item max from its table)":
        lambda text, error: "is more than" in error and "the largest" in error,
    "an explicit tag (config.c resolves tagged scalars as untagged)":
        lambda text, error: "explicit tag" in error,
    "text after the first YAML document (config.c loads the first document only)":
        lambda text, error: ("but found another document" in error
                             or "did not find expected <document start>" in error),
    "UTF-16 or UTF-32 text (config.c lets libyaml take it by its byte order mark)":
        lambda text, error: text[:2] in (b"\xff\xfe", b"\xfe\xff") and "not UTF-8" in error,
}


def _judge_configs(texts: list[bytes]) -> list[tuple[bool, dict[str, Any] | None]]:
    """(accepted, config) per text, the Python and the interposer's verdicts agreeing."""
    with tempfile.TemporaryDirectory() as folder:
        files = _files(Path(folder), texts, ".yaml")
        lines = _interposer_config(files)
        out = []
        for text, path, line in zip(texts, files, lines, strict=True):
            accepted, error, config = _python_config(path)
            assert accepted or _one_line_naming(error, path), error
            assert line == "ok" or _one_line_naming(line, path), line
            gap = [why for why, applies in INTERPOSER_GAPS.items() if applies(text, error)]
            assert accepted == (line == "ok") or (gap and line == "ok"), (text, error, line)
            out.append((accepted, config))
        return out


def _check_iosim_takes(config_list: list[dict[str, Any]]) -> None:
    for result in _iosim_on(config_list):
        error = result.get("error") or ""
        assert result["ok"] or ("not a key" not in error and ": expected " not in error), error


@examples(4)
@given(st.lists(configs(), min_size=BATCH, max_size=BATCH))
def test_generated_configs_are_accepted_by_every_reader(config_list: list[dict[str, Any]]):
    judged = _judge_configs([json.dumps(config).encode() for config in config_list])
    assert all(accepted for accepted, _ in judged)
    _check_iosim_takes([config for _, config in judged if config is not None])


@examples(8)
@given(st.lists(configs().flatmap(mutated), min_size=BATCH, max_size=BATCH))
def test_hostile_configs_get_the_same_verdict_from_every_reader(config_list: list[Any]):
    judged = _judge_configs([as_json(config).encode() for config in config_list])
    _check_iosim_takes([config for accepted, config in judged if accepted and config])


@examples(6)
@given(st.lists(configs().flatmap(lambda c: mangled_text(as_json(c))), min_size=BATCH,
                max_size=BATCH))
def test_mangled_config_text_gets_the_same_verdict_from_both_readers(texts: list[bytes]):
    _judge_configs(texts)


#: a config showing each gap, the interposer accepting what the validator refuses
GAP_EXAMPLES = {
    "an int-list item above its kind's maximum (config.c reads no item max from its table)":
        b"dataset: {chunk_dims: [4294967296]}\n",
    "an explicit tag (config.c resolves tagged scalars as untagged)":
        b"mpiio: {cb_nodes: !!str 4}\n",
    "text after the first YAML document (config.c loads the first document only)":
        b"mpiio: {cb_nodes: 2}\n---\nlustre: 3\n",
    "UTF-16 or UTF-32 text (config.c lets libyaml take it by its byte order mark)":
        "mpiio: {cb_nodes: 2}\n".encode("utf-16"),
}


def test_each_interposer_gap_is_still_there():
    """When the interposer's reader closes a gap, this fails: take it out of INTERPOSER_GAPS."""
    assert set(GAP_EXAMPLES) == set(INTERPOSER_GAPS)
    with tempfile.TemporaryDirectory() as folder:
        files = _files(Path(folder), list(GAP_EXAMPLES.values()), ".yaml")
        lines = _interposer_config(files)
        for (gap, text), path, line in zip(GAP_EXAMPLES.items(), files, lines, strict=True):
            accepted, error, _ = _python_config(path)
            assert not accepted and INTERPOSER_GAPS[gap](text, error), (gap, error)
            assert line == "ok", f"the interposer now refuses it ({line}): close the gap {gap!r}"
