"""`iotwin platform new --io500`: an IO500 submission's system description becomes a spec
sheet whose unknowns are stated, bounded assumptions, and a model iosim simulates IO500's
phases on, Lustre and GPFS alike (a GPFS model without a block size is an error, not a crash);
the family calibration fits constants across machines and holds each system out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.model.family import accuracy, fit_family, leave_one_system_out, with_constants
from iotwin.model.io500_description import load_records, sheet_of_record
from iotwin.model.platform_sheet import parse_sheet, platform_tree, sheet_defaults
from iotwin.model.platforms import parse_platform
from iotwin.model.sim import simulate
from iotwin.observations.io500 import case_platform, family_cases, io500_cases, phase_workload

TRAIN = paths.repo_root() / "validation" / "data" / "io500-train.json"


def record(submission: int) -> dict:
    [found] = load_records(TRAIN, submission)
    return found


def model(found: dict) -> dict:
    sheet = parse_sheet(sheet_of_record(found, "test"), "test")
    return parse_platform(platform_tree(sheet), "test").data


def test_flash_devices_fewer_than_servers_are_per_server_and_each_a_target() -> None:
    data = model(record(9))  # 24 servers, 12 NVMe SSDs, OmniPath
    assert data["filesystem"]["targets"] == 24 * 12
    assert data["filesystem"]["target_mbs"] == sheet_defaults()["media"]["nvme"]["drive_mbs"][
        "value"]
    assert data["filesystem"]["server_mbs"] == 12500  # one OPA link
    assert data["site_defaults"]["directories"] == {"ior-easy": {"stripe_count": 1},
                                                    "ior-hard": {"stripe_count": -1}}


def test_disks_are_raid_groups_raw_or_as_an_array_exports_them() -> None:
    raw = model(record(166))  # Dell, QCT, HGST: 180 NL-SAS drives
    array = model(record(97))  # NetApp: 150 devices are its RAID volumes
    hdd = sheet_defaults()["media"]["hdd"]
    assert raw["filesystem"]["targets"] == 18 and array["filesystem"]["targets"] == 150
    for data in (raw, array):
        assert data["filesystem"]["target_mbs"] == 8 * hdd["drive_mbs"]["value"]
        assert data["filesystem"]["rpc_overhead_s"] == hdd["request_s"]["value"]


def test_an_arrays_volumes_are_cached_and_the_servers_own_groups_read_modify_write() -> None:
    raid = sheet_defaults()["raid"]
    raw, array, flash = (model(record(n))["filesystem"] for n in (166, 97, 9))
    assert raw["target_raid"] == "parity"
    assert raw["read_modify_write_passes"] == raid["read_modify_write_passes"]["value"]
    assert array["target_raid"] == "cached_array"
    assert array["cache_write_s"] == raid["cache_write_s"]["value"]
    assert "target_raid" not in flash


def test_servers_with_fewer_drives_than_a_raid_group_make_one_group_each() -> None:
    data = model(record(184))  # Dell: 108 NL-SAS drives on 18 servers, 6 a server
    hdd = sheet_defaults()["media"]["hdd"]
    assert data["filesystem"]["targets"] == 18
    assert data["filesystem"]["target_mbs"] == 4 * hdd["drive_mbs"]["value"]  # 4 data + 2 parity


def test_a_server_with_two_links_and_a_named_ethernet_rate() -> None:
    assert model(record(23))["filesystem"]["server_mbs"] == 2 * 12500  # "2x OPA HFIs"
    assert model(record(91))["filesystem"]["server_mbs"] == 2000  # "Ethernet 16Gbps"


def test_every_unknown_is_an_assumption_with_bounds_where_a_fit_may_move_it() -> None:
    sheet = sheet_of_record(record(64), "test")  # "Ethernet": rate unnamed
    assert "assumption" in sheet["compute"]["nic_mbs"] and sheet["compute"]["nic_mbs"]["bounds"]
    assert "assumption" in sheet["storage"]["targets"]
    tree = platform_tree(parse_sheet(sheet, "test"))
    assert tree["filesystem"]["target_mbs"]["bounds"]
    assert tree["filesystem"]["rpc_overhead_s"]["bounds"]


def test_a_known_client_node_kind_has_its_nics() -> None:
    found = {**record(44), "system": "DGX-2H SuperPOD"}
    data = model(found)
    assert data["compute"]["nic_mbs"] == 8 * 12500
    assert data["lustre_client"]["node_write_mbs"] == 8 * 12500


@pytest.mark.parametrize("field,value,says", [
    ("client_nodes", 0, "client_nodes: expected a whole number"),
    ("ds_storage_type", "tape", "names no storage media"),
    ("filesystem_family", "beegfs", "expected lustre or gpfs"),
    ("ds_nodes", None, "ds_nodes: missing"),
])
def test_a_description_it_cannot_read_is_one_error_naming_the_field(field: str, value: object,
                                                                     says: str) -> None:
    with pytest.raises(UserError, match=says):
        sheet_of_record({**record(9), "ds_storage_interface": "", field: value}, "r.json")


def test_a_gpfs_model_simulates_both_phases_and_refuses_no_block_size() -> None:
    case = next(c for c in io500_cases(TRAIN) if c.submission == 79)  # 400NV, GPFS
    platform = case_platform(case)
    assert platform.data["filesystem"]["lock_block_bytes"] == 4 * 2**20
    for phase in ("easy-write", "hard-write"):
        [result] = simulate(platform, phase_workload(platform, phase, 30, 10, segments=4), [{}],
                            jobs=1)
        assert result.ok and result.rate_mbs and result.rate_mbs <= result.ceiling_mbs * 1.0001
    tree = platform.tree
    del tree["filesystem"]["lock_block_bytes"]
    [broken] = simulate(parse_platform(tree, "x"),
                        phase_workload(platform, "easy-write", 30, 10, segments=4), [{}], jobs=1)
    assert not broken.ok and "lock_block_bytes" in (broken.error or "")


def test_hard_phase_gets_the_hard_directory_layout_unless_a_config_sets_one() -> None:
    case = next(c for c in io500_cases(TRAIN) if c.submission == 44)
    platform = case_platform(case)
    work = phase_workload(platform, "hard-write", 32, 2, segments=16)
    wide, narrow = simulate(platform, work, [{}, {"lustre": {"stripe_count": 1}}], jobs=1)
    used = lambda r: sum(1 for b in r.breakdown["bytes_per_target"] if b)  # noqa: E731
    assert used(wide) == platform.data["filesystem"]["targets"] and used(narrow) == 1


def test_platform_new_io500_writes_the_model_and_its_sheet(tmp_path: Path) -> None:
    out, sheet = tmp_path / "m.yaml", tmp_path / "s.yaml"
    done = subprocess.run([sys.executable, "-m", "iotwin", "platform", "new", "--io500",
                           str(TRAIN), "--submission", "130", "-o", str(out), "--sheet-out",
                           str(sheet)], text=True, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "(gpfs)" in done.stdout and yaml.safe_load(out.read_text())["filesystem"]["type"] == \
        "gpfs"
    assert yaml.safe_load(sheet.read_text())["storage"]["media"] == "nvme"
    many = subprocess.run([sys.executable, "-m", "iotwin", "platform", "new", "--io500",
                           str(TRAIN)], text=True, capture_output=True, timeout=120)
    assert many.returncode == 2 and "--submission" in many.stderr


def test_family_fit_moves_constants_toward_the_measurements_and_holds_systems_out(
        tmp_path: Path) -> None:
    table = tmp_path / "two.json"
    table.write_text(json.dumps({"submissions": [record(44), record(63), record(166)]}))
    cases = family_cases(table, segments=4)
    base = sheet_defaults()
    measured = [c.measured_mbs for c in cases]
    fit = fit_family(cases, base, max_evaluations=6, jobs=2)
    start = accuracy(fit_family(cases, base, max_evaluations=1, jobs=2).predicted, measured)
    after = accuracy(fit.predicted, measured)
    assert after["median_factor"] <= start["median_factor"]
    assert set(fit.constants) <= set(with_constants(base, fit.constants, "t")["media"]) | {
        *fit.constants}
    held = leave_one_system_out(cases, base, fit.constants, max_evaluations=2, jobs=2)
    assert len(held) == len(cases) and all(rate for rate in held)
