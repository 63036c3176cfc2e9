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

KiB, MiB = 2**10, 2**20


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


PFL = """lustre:
  stripe_size: 4MiB
  pool: capacity
  components:
    - {end: 64KiB, mdt: true}
    - {end: 8MiB, stripe_count: 1, stripe_size: 1MiB, pool: flash}
    - {end: eof, stripe_count: -1}
"""


def test_a_progressive_layout_is_made_component_by_component(tmp_path: Path) -> None:
    """Each component on its extent (lfs setstripe -E), Data-on-MDT as the MDT pattern with its
    extent as stripe size, and what a component leaves out (the last's stripe size and pool)
    taken from the plain keys, as iosim takes it."""
    answer, calls = create(tmp_path, PFL)
    wide = 0x1000000000000001 + 2
    eof = 2**64 - 1
    assert calls == [
        "alloc", f"extent_set 0 {64 * KiB}", "pattern_set 2", f"stripe_size_set {64 * KiB}",
        "comp_add", f"extent_set {64 * KiB} {8 * MiB}", "stripe_count_set 1",
        f"stripe_size_set {MiB}", "pool_name_set flash",
        "comp_add", f"extent_set {8 * MiB} {eof}", f"stripe_count_set {wide}",
        f"stripe_size_set {4 * MiB}", "pool_name_set capacity",
        f"file_create {tmp_path / 'out.h5'}", f"get_by_path {tmp_path / 'out.h5'}"]
    assert answer == {"created": True, "layout": {"components": [
        {"end": 64 * KiB, "mdt": True, "stripe_size": 64 * KiB},
        {"end": 8 * MiB, "stripe_count": 1, "stripe_size": MiB, "pool": "flash"},
        {"end": "eof", "stripe_count": wide, "stripe_size": 4 * MiB, "pool": "capacity"}]}}


def test_a_files_own_layout_replaces_the_top_levels(tmp_path: Path) -> None:
    _, calls = create(tmp_path, PFL + "files: [{match: 'out.h5', lustre: {components: "
                                      "[{end: 1MiB, stripe_count: 2}, {end: eof}]}}]\n")
    assert "pattern_set 2" not in calls
    assert calls[1:4] == [f"extent_set 0 {MiB}", "stripe_count_set 2", f"stripe_size_set {4 * MiB}"]


def test_a_self_extending_component_is_made_to_its_end_and_said_not_effective(
        tmp_path: Path) -> None:
    answer, _ = create(tmp_path, "lustre: {components: [{end: 1GiB, extension_size: 64MiB}, "
                                 "{end: eof}]}\n")
    assert answer["created"] and len(answer["layout"]["components"]) == 2
    assert answer["not_effective"] == {"lustre.components[0].extension_size": (
        "self-extending components (lfs setstripe -z) are not made: the component is "
        "created to its end")}


def test_without_liblustreapi_a_progressive_layout_is_not_made_and_the_reason_given(
        tmp_path: Path) -> None:
    answer, calls = create(tmp_path, PFL, double=False)
    assert answer == {"created": False, "reason": "liblustreapi could not create the file with "
                      "its layout: no liblustreapi.so.1 with llapi_layout_file_create could be "
                      "loaded"}
    assert calls == [] and not (tmp_path / "out.h5").exists()
