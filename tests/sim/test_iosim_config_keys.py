"""iosim reads the tuning config through a table generated from config-schema.yaml: a key the
schema lacks or a value out of its bounds is an error in iosim itself (not a silent no-op), a
key the schema says iosim does not model is skipped by name, and a key the schema gains fails
the build until the schema says which it is."""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from iotwin.config.schema import SchemaError, load_schema
from iotwin.config.validation import validate_config
from iotwin.core import paths
from iotwin.model.platforms import load_platform
from iotwin.model.sim import run_iosim, simulator_input

WORKLOAD: dict[str, Any] = {
    "iotwin_workload": 1, "name": "t", "ranks": 4,
    "files": [{"name": "t.h5", "datasets": [
        {"name": "/x", "element_bytes": 8, "decomposition": {"grid": [4], "block": [262144]}}]}]}


def _iosim(configs: list[dict[str, Any]], platform: str = "archer",
           edit: Any = None) -> list[dict[str, Any]]:
    payload = simulator_input(load_platform(platform), WORKLOAD, configs)
    if edit:
        edit(payload)
    return run_iosim(payload, jobs=1)


def _set(block: str, key: str, value: Any):
    def edit(payload: dict[str, Any]) -> None:
        payload["configs"][0]["files"][0].setdefault(block, {})[key] = value
    return edit


def test_a_key_the_schema_lacks_is_an_error_in_iosim():
    [result] = _iosim([{}], edit=_set("mpiio", "cb_nodez", 2))
    assert not result["ok"]
    assert result["error"] == "mpiio.cb_nodez: not a key of the config schema (config-schema.yaml)"


def test_a_block_iosim_does_not_know_is_an_error():
    def edit(payload: dict[str, Any]) -> None:
        payload["configs"][0]["files"][0]["dataset"] = {"chunk_size": 1048576}
    [result] = _iosim([{}], edit=edit)
    assert not result["ok"] and result["error"].startswith("config: dataset: not a block")


@pytest.mark.parametrize(("block", "key", "value"), [
    ("mpiio", "cb_nodes", 2147483648), ("mpiio", "cb_nodes", 9223372036854775808),
    ("mpiio", "cb_buffer_size", 0), ("lustre", "stripe_size", 100000),
    ("lustre", "stripe_count", 2001), ("mpiio", "romio_cb_write", True),
])
def test_values_out_of_bounds_are_errors_in_iosim(block: str, key: str, value: Any):
    """issue 37: `cb_nodes: 2147483648` predicted 1 aggregator."""
    [result] = _iosim([{}], edit=_set(block, key, value))
    assert not result["ok"]
    assert result["error"].startswith(f"{block}.{key}: expected ")


def test_keys_iosim_does_not_model_are_skipped_by_name():
    schema = load_schema()
    unmodelled = {block: {name: key for name, key in keys.items() if key.iosim != "read"}
                  for block, keys in schema.blocks.items()}
    assert {name for keys in unmodelled.values() for name in keys} == {
        "romio_cb_read", "romio_ds_read", "romio_no_indep_rw", "ind_rd_buffer_size",
        "bglockless", "sieve_buf_size", "alloc_time", "nc_in_place_swap", "nc_ibuf_size"}
    config = validate_config({"mpiio": {"romio_cb_read": "disable", "romio_ds_read": "enable",
                                        "romio_no_indep_rw": True, "ind_rd_buffer_size": 4096,
                                        "bglockless": True},
                              "pnetcdf": {"nc_in_place_swap": "disable", "nc_ibuf_size": 4096},
                              "hdf5": {"sieve_buf_size": 4096},
                              "dataset": {"alloc_time": "late"}}, "c")
    plain, unmodelled_only = _iosim([{}, config])
    assert plain["ok"] and unmodelled_only["ok"]
    assert (plain["time_s"], plain["breakdown"]) == (unmodelled_only["time_s"],
                                                      unmodelled_only["breakdown"])


def test_a_key_iosim_reads_changes_the_prediction():
    config = validate_config({"mpiio": {"cb_nodes": 2, "cb_config_list": "*:*"}}, "c")
    plain, two = _iosim([{}, config])
    assert plain["ok"] and two["ok"] and plain["breakdown"] != two["breakdown"]


def _schema_copy(tmp_path: Path, change) -> Path:
    """A copy of the repository's Python tree whose config schema has ``change`` applied."""
    root = tmp_path / "repo"
    shutil.copytree(paths.repo_root() / "tuner" / "iotwin", root / "tuner" / "iotwin",
                    ignore=shutil.ignore_patterns("__pycache__"))
    schema = root / "tuner" / "iotwin" / "data" / "config-schema.yaml"
    schema.write_text(change(schema.read_text()))
    return root


NEW_KEY = "    romio_new_hint: {type: bool, hint: romio_new_hint%s}\n    hints:"


def test_a_new_key_without_a_decision_fails_the_generator(tmp_path: Path):
    root = _schema_copy(tmp_path, lambda text: text.replace("    hints:", NEW_KEY % "", 1))
    with pytest.raises(SchemaError, match="romio_new_hint: says neither `iosim: read`"):
        load_schema.__wrapped__(root / "tuner" / "iotwin" / "data" / "config-schema.yaml")
    done = subprocess.run([sys.executable, paths.repo_root() / "sim-models" / "gen_config_keys.py",
                           root, tmp_path / "out.hpp"], capture_output=True, text=True)
    assert done.returncode != 0 and "romio_new_hint" in done.stderr


@pytest.mark.slow
def test_a_new_key_iosim_should_read_fails_to_compile_until_it_is_read(tmp_path: Path):
    root = _schema_copy(tmp_path, lambda text: text.replace("    hints:", NEW_KEY % ", iosim: read",
                                                            1))
    generated = tmp_path / "generated"
    subprocess.run([sys.executable, paths.repo_root() / "sim-models" / "gen_config_keys.py", root,
                    generated / "config_keys_table.hpp"], check=True)
    flags = (paths.build_dir() / "sim-models" / "CMakeFiles" / "iosim_core.dir"
             / "flags.make").read_text()
    includes = next(line for line in flags.splitlines() if line.startswith("CXX_INCLUDES"))
    command = ["c++", "-std=gnu++17", "-fsyntax-only", "-Werror=switch", f"-I{generated}",
               *includes.split("=", 1)[1].split(),
               str(paths.repo_root() / "sim-models" / "src" / "input" / "platform.cpp")]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode != 0
    assert re.search(r"enumeration value .romio_new_hint. not handled in switch", done.stderr)
    unchanged = subprocess.run([c for c in command if c != f"-I{generated}"],
                               capture_output=True, text=True)
    assert unchanged.returncode == 0, unchanged.stderr


def test_every_block_key_is_in_iosims_table():
    table = (paths.build_dir() / "sim-models" / "generated" / "config_keys_table.hpp").read_text()
    for block, keys in load_schema().blocks.items():
        for name in keys:
            assert f'{{"{block}", "{name}", ' in table


def test_the_site_defaults_of_every_platform_are_schema_keys():
    payload = simulator_input(load_platform("archer"), WORKLOAD, [{}])
    for platform in sorted(p.stem for p in paths.platforms_dir().glob("*.yaml")):
        edited = copy.deepcopy(payload)
        edited["platform"] = load_platform(platform).data
        [result] = run_iosim(edited, jobs=1)
        assert result["ok"], (platform, result.get("error"))
