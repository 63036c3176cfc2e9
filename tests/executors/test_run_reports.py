"""Reading the interposer's reports: bytes, and which settings took effect."""

from __future__ import annotations

import json
from pathlib import Path

from iotwin.executors.interposer_reports import read_reports, setting_outcomes, total_bytes

REPORT = {
    "file": "out.h5", "bytes": 1000,
    "applied": {"hints": {"cb_nodes": "2", "striping_factor": "4", "romio_ds_write": "disable"},
                "hdf5": {"alignment": {"threshold": 0, "boundary": 1048576}}},
    "effective": {"hints": {"cb_nodes": "2", "romio_ds_write": "automatic"},
                  "hdf5": {"alignment": {"threshold": 0, "boundary": 1048576}}},
    "not_effective": [{"key": "lustre.stripe_count", "requested": "4", "effective": None,
                       "reason": "not Lustre"}],
    "datasets": [{"name": "/d", "applied": {"chunk_dims": [8]},
                  "effective": {"chunk_dims": [8]}, "not_effective": []}],
}


def test_reports_are_read_as_json_lines_and_a_torn_line_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(REPORT) + "\n" + json.dumps({"file": "b.h5", "bytes": 24})
                    + '\n{"file": "c.h5", "byt\n')
    reports = read_reports(path)
    assert [r.get("file") for r in reports] == ["out.h5", "b.h5", None]
    assert reports[2]["unreadable"].startswith('{"file": "c.h5"')
    assert total_bytes(reports) == 1024
    assert read_reports(tmp_path / "never-written.jsonl") == []
    assert total_bytes([]) is None


def test_outcomes_name_config_keys_and_catch_silent_non_application() -> None:
    outcomes = {(o.file, o.key): o for o in setting_outcomes([REPORT])}
    assert outcomes["out.h5", "mpiio.cb_nodes"].took_effect
    assert outcomes["out.h5", "hdf5.alignment.boundary"].took_effect
    assert outcomes["out.h5:/d", "chunk_dims"].took_effect
    striping = outcomes["out.h5", "lustre.stripe_count"]  # reported under its config key, once
    assert (striping.took_effect, striping.reason) == (False, "not Lustre")
    assert not any(key == "hints.striping_factor" for _, key in outcomes)
    sieving = outcomes["out.h5", "mpiio.romio_ds_write"]  # dropped without the interposer noticing
    assert (sieving.took_effect, sieving.requested, sieving.effective) == (
        False, "disable", "automatic")
