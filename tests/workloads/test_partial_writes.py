"""Forced collective transfer on a program with a dataset written by rank 0 alone.

The parallel h5py script writes `/run/table` from rank 0 only, independently. A space config
forcing `transfer_mode: collective` would hang it; bound to the program's captured workload,
the space keeps that dataset independent, and the run completes with the field and the series
collective (as the interposer's read-back reports).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from iotwin.core.run_records import Target
from iotwin.executors.capture_run import capture_records, records_in
from iotwin.executors.interposer_reports import setting_outcomes
from iotwin.executors.local import LocalExecutor
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.workloads.from_capture import workload_from_capture
from iotwin.workloads.partial_writes import file_glob, partial_write_datasets
from support.programs import h5py_script

pytestmark = pytest.mark.slow


def test_file_glob_keeps_the_name_literal_and_matches_every_rank() -> None:
    assert file_glob("out.%r.h5") == "out.*.h5"
    assert file_glob("grp%g/data[1].h5") == "*grp*/data[[]1].h5"  # also as /abs/grp3/...
    assert file_glob("a*b?.h5") == "a[*]b[?].h5"


def test_a_workload_without_independent_subset_writes_has_none() -> None:
    grid = {"grid": [2], "block": [4]}
    workload = {"ranks": 2, "files": [
        {"name": "f.h5", "mode": "shared", "datasets": [{"name": "/a"}], "calls": [
            {"write": ["/a"], "transfer": "independent", "selections": [grid]},
            {"write": ["/a"], "transfer": "collective",
             "selections": [{"runs": [{"ranks": [0, 1], "start": [0], "count": [8]}]}]}]},
        {"name": "r.%r.h5", "mode": "per-rank", "datasets": [{"name": "/b"}], "calls": [
            {"write": ["/b"], "transfer": "independent",
             "selections": [{"runs": [{"ranks": [0, 1], "start": [0], "count": [8]}]}]}]}]}
    assert partial_write_datasets(workload) == ()


@pytest.mark.usefixtures("parallel_h5py")
def test_forced_collective_leaves_the_rank0_table_independent(tmp_path: Path) -> None:
    command = h5py_script(tmp_path)
    records = capture_records(command, 2, timeout_s=120, workdir=tmp_path)
    workload = workload_from_capture(records_in(tmp_path, records), "h5py_field",
                                     " ".join(command))
    partial = partial_write_datasets(workload)
    field = str(tmp_path / "field.h5")   # the name as the script passes it
    assert partial == (("field.h5", "/run/table"),)   # as the workload names it

    space = load_space("local").bind(SpaceContext("ufs", 2, partial_writes=partial))
    configs = (space.config(p) for p in space.points())
    config = next(c for c in configs if c.get("dataset", {}).get("transfer_mode") == "collective")
    assert config["files"][-1] == {"match": "field.h5", "datasets": [
        {"match": "/run/table", "transfer_mode": "independent"}]}

    result = LocalExecutor(timeout_s=120, workdir=tmp_path).run_once(
        Target(ranks=2, command=tuple(command)), config)
    assert result.ok, result.error
    modes = {o.file: o.effective for o in setting_outcomes(result.reports)
             if o.key == "transfer_mode"}
    assert modes == {f"{field}:/field": "collective", f"{field}:/run/table": "independent",
                     f"{field}:/series": "collective"}


def test_configs_without_forced_collective_are_unchanged() -> None:
    partial = (("field.h5", "/run/table"),)
    bound = load_space("local").bind(SpaceContext("ufs", 2, partial_writes=partial))
    plain = load_space("local").bind(SpaceContext("ufs", 2))
    for point in itertools.islice(plain.points(), 200):
        config = plain.config(point)
        if config.get("dataset", {}).get("transfer_mode") != "collective":
            assert bound.config(point) == config
