"""`iotwin show`: a campaign's spec for people, its captured workload a few short lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from iotwin.cli import main
from iotwin.store.database import Store
from iotwin.workloads.workload import kernel_workload


def test_a_campaigns_workload_is_shown_as_a_line_per_file_session(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    workload = kernel_workload("vpic-io", 4, [])   # 8 datasets in one file
    spec = {"ranks": 4, "strategy": "sim-screened", "command": ["./app"], "workload": workload,
            "fixed": {f"parameter_{n}": n for n in range(30)}}
    with Store(tmp_path / "s.db") as store:
        campaign = store.create_campaign("t", kind="tune", spec=spec)
        store.add_evaluation(campaign, config={"mpiio": {"cb_nodes": 2}}, workload="app",
                             ranks=4, platform="local", source="real", status="ok",
                             rate_mbs=120.0)
    assert main(["show", str(campaign), "--store", str(tmp_path / "s.db")]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  workload: "))
    sessions = lines[start + 1:start + 1 + len(workload["files"])]
    assert lines[start] == (f"  workload: {workload['name']}: 4 ranks, mpich, "
                            f"{len(workload['files'])} file session(s)")
    for line, session in zip(sessions, workload["files"], strict=True):
        assert line.startswith(f"    {session['name']} (shared, hdf5): 8 dataset(s): "
                               f"/Step#0/x [4194304] x4 B, ")
        assert line.endswith(", ... 5 more")
    assert "  fixed:" in lines and "    parameter_0: 0" in lines  # long: YAML, a line each
    assert "  command: [\"./app\"]" in lines
    assert any(line.endswith("mpiio.cb_nodes=2") for line in lines)
    assert max(len(line) for line in lines[:start + 1 + len(workload["files"])]) < 200
