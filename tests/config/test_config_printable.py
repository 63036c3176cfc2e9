"""Names, patterns and hints of a config with a control character in them are refused, naming
the file and the key: printed raw in a report, a newline in a hint made a line of its own, and
the interposer (C) cut a hint key at a NUL."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.config.validation import ConfigError, load_config, validate_config

# YAML's double-quoted escapes are how a control character gets into a config file
REFUSED = {
    "newline in a hint value": ('mpiio: {hints: {romio_lustre_co_ratio: "2\\nrate 9999 MB/s"}}',
                                "mpiio.hints.romio_lustre_co_ratio", "U+000A"),
    "NUL in a hint key": ('mpiio: {hints: {"cb_\\0nodes": "2"}}', "mpiio.hints", "U+0000"),
    "escape in a file pattern": ('files: [{match: "*.h5\\e[2K", mpiio: {cb_nodes: 2}}]',
                                 "files[0].match", "U+001B"),
    "bidi override in a dataset pattern": (
        'files: [{match: "*.h5", datasets: [{match: "\\u202ex", chunk_size: 4096}]}]',
        "files[0].datasets[0].match", "U+202E"),
    "carriage return in aggregator placement": ('mpiio: {cb_config_list: "*:1\\r*:*"}',
                                                "mpiio.cb_config_list", "U+000D"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_control_character_is_refused_naming_file_and_key(case: str, tmp_path: Path) -> None:
    text, key, char = REFUSED[case]
    path = tmp_path / "cfg.yaml"
    path.write_text(text + "\n")
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    message = str(refused.value)
    assert message.startswith(f"{path}:1: {key}: ") and "\n" not in message
    assert f"holds a control character ({char})" in message  # the interposer's words too


def test_printable_names_and_hints_pass() -> None:
    config = validate_config({"mpiio": {"hints": {"romio_lustre_co_ratio": "2"}},
                              "files": [{"match": "ckpt_*.h5", "datasets": [
                                  {"match": "/données/é", "chunk_size": 4096}]}]}, "cfg")
    assert config["files"][0]["datasets"][0]["match"] == "/données/é"


def test_run_refuses_such_a_config_before_running(tmp_path: Path) -> None:
    path = tmp_path / "cfg.yaml"
    path.write_text('mpiio: {hints: {"cb_\\0nodes": "2"}}\n')
    done = subprocess.run([sys.executable, "-m", "iotwin", "run", "--ranks", "1", "--config",
                           str(path), "--store", str(tmp_path / "s.db"), "--", "/bin/true"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == (f"iotwin: error: {path}:1: mpiio.hints: a key holds a control "
                           "character (U+0000)\n")
    assert not (tmp_path / "s.db").exists()  # nothing ran, nothing stored
