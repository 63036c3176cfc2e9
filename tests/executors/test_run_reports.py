"""Reading the interposer's reports: bytes, and which settings took effect."""

from __future__ import annotations

import json
from pathlib import Path

from iotwin.executors.interposer_reports import (
    config_rejection,
    outside_writes,
    read_reports,
    setting_outcomes,
    total_bytes,
    unmatched_rules,
)

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


RUN = {"iotwin_run": 1, "config": "c.yaml", "config_error": None, "ranks": 4,
       "unmatched_rules": [{"rule": "files[1]", "match": "*.dat"}],
       "outside": {"bytes": 3 * 2**20, "writes": 30, "files": 2, "examples": ["/r/a.bin"]}}


def test_the_run_record_is_not_a_file() -> None:
    reports = [REPORT, RUN]
    assert total_bytes(reports) == 1000
    assert {o.file for o in setting_outcomes(reports)} == {"out.h5", "out.h5:/d"}


def test_a_rejected_config_is_found_in_the_run_record_or_any_file() -> None:
    assert config_rejection([REPORT, RUN]) is None
    # the reason without the path of the copy the run read (the user's file is not that copy)
    assert config_rejection([REPORT, {**RUN, "config_error": "c.yaml: mpiio.x: bad"}]) \
        == "mpiio.x: bad"
    assert config_rejection([{**REPORT, "config": "/run/7/c.yaml",
                              "config_error": "/run/7/c.yaml: y: bad"}]) == "y: bad"
    assert config_rejection([{**REPORT, "config": "/run/7/c.yaml",
                              "config_error": "/run/7/c.yaml:12: y: bad"}]) == "y: bad"
    # an error that does not start with the copy's path is kept whole
    assert config_rejection([{**REPORT, "config_error": "other.yaml: y: bad"}]) \
        == "other.yaml: y: bad"


def test_unmatched_rules_and_outside_writes_are_said() -> None:
    assert unmatched_rules([REPORT, RUN]) == ['files[1] (match: "*.dat") matched no file']
    # a program that exits without MPI_Finalize: one record per process; a rule is unmatched
    # when no process matched it
    matched_on_one = {**RUN, "unmatched_rules": []}
    assert unmatched_rules([RUN, matched_on_one]) == []
    assert unmatched_rules([REPORT]) == []
    outside = outside_writes([RUN, RUN])
    assert outside is not None and (outside.bytes, outside.files) == (6 * 2**20, 4)
    assert outside.describe() == ("6.0 MiB written outside HDF5 and MPI-IO, not tuned: 4 files "
                                  "(e.g. /r/a.bin, /r/a.bin)")
    assert outside_writes([{**RUN, "outside": {"bytes": 0}}]) is None
