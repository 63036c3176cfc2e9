"""The layout the interposer gives a file it creates on Lustre, built from a config through
liblustreapi's llapi_layout_* calls (interposer/src/lustre/layout.c), and what it says where
there is no liblustreapi.

The real liblustreapi needs a Lustre client, which this machine has not: the layout is made
through a recording double of the calls the interposer makes (tests/programs/llapi_double.c,
built as liblustreapi.so.1 in a folder of its own and put on LD_LIBRARY_PATH), which logs each
call and keeps the layout it was given beside the file for the read-back."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from iotwin.core import paths

MiB = 2**20


def create(tmp_path: Path, config: str, double: bool = True) -> tuple[dict[str, Any], list[str]]:
    """(the program's answer, the double's log of calls) for a file created under ``config``."""
    cfg, log = tmp_path / "cfg.yaml", tmp_path / "llapi.log"
    cfg.write_text(config)
    env = {**os.environ, "IOTWIN_LLAPI_LOG": str(log)}
    env.pop("LD_LIBRARY_PATH", None)
    if double:
        env["LD_LIBRARY_PATH"] = str(paths.built("tests/programs/llapi_double"))
    done = subprocess.run([str(paths.built("tests/programs/lustre_layout")), str(cfg),
                           str(tmp_path / "out.h5")], capture_output=True, text=True, env=env,
                          timeout=60, check=True)
    return json.loads(done.stdout), log.read_text().splitlines() if log.exists() else []


def test_a_plain_layout_is_made_with_its_count_size_and_first_ost(tmp_path: Path) -> None:
    answer, calls = create(tmp_path, "lustre: {stripe_count: 4, stripe_size: 4MiB, "
                                     "stripe_offset: 2}\n")
    assert calls == ["alloc", "stripe_count_set 4", f"stripe_size_set {4 * MiB}",
                     "ost_index_set 0 2", f"file_create {tmp_path / 'out.h5'}",
                     f"get_by_path {tmp_path / 'out.h5'}"]
    assert answer == {"created": True, "layout": {"components": [
        {"end": "eof", "stripe_count": 4, "stripe_size": 4 * MiB}]}}
    assert (tmp_path / "out.h5").exists()


def test_every_ost_and_lustres_defaults_are_asked_for_as_lustreapi_names_them(
        tmp_path: Path) -> None:
    _, calls = create(tmp_path, "lustre: {stripe_count: -1}\n")
    wide, default = 0x1000000000000001 + 2, 0x1000000000000001 + 1  # lustreapi.h
    assert calls[1:3] == [f"stripe_count_set {wide}", f"stripe_size_set {default}"]


def test_without_liblustreapi_the_file_is_not_created_and_the_reason_given(
        tmp_path: Path) -> None:
    answer, calls = create(tmp_path, "lustre: {stripe_count: 4}\n", double=False)
    assert answer == {"created": False, "reason": "liblustreapi could not create the file with "
                      "its layout: no liblustreapi.so.1 with llapi_layout_file_create could be "
                      "loaded"}
    assert calls == [] and not (tmp_path / "out.h5").exists()


def test_a_pool_is_given_to_the_layout_and_read_back(tmp_path: Path) -> None:
    answer, calls = create(tmp_path, "lustre: {stripe_count: 8, pool: capacity}\n")
    assert "pool_name_set capacity" in calls
    assert calls.index("pool_name_set capacity") < calls.index(
        f"file_create {tmp_path / 'out.h5'}")
    [component] = answer["layout"]["components"]
    assert component["pool"] == "capacity" and component["stripe_count"] == 8


def test_a_pool_name_lustre_cannot_take_creates_nothing(tmp_path: Path) -> None:
    answer, calls = create(tmp_path, "lustre: {pool: a_pool_name_of_20ch}\n")
    assert answer == {"created": False,
                      "reason": "the pool name is longer than Lustre's 15 characters"}
    assert calls == [] and not (tmp_path / "out.h5").exists()
