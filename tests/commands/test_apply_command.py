"""`iotwin apply CONFIG -- LAUNCHER ...`: a production job under a tuned config, the
interposer preloaded into the ranks only (a real MPICH run of a kernel: its report shows the
config applied; the launcher itself is not preloaded), and the launcher options printed for a
job script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from iotwin.core import paths


def apply(*args: str, cwd: Path, env: dict[str, str] | None = None
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iotwin", "apply", *args], cwd=cwd,
                          text=True, capture_output=True, timeout=300, env=env)


def test_a_job_runs_with_the_config_on_its_ranks_only(tmp_path: Path) -> None:
    config = tmp_path / "tuned.yaml"
    config.write_text("mpiio:\n  romio_cb_write: disable\n")
    report = tmp_path / "report.jsonl"
    env = {"PATH": "/usr/bin:/bin", "IOTWIN_REPORT": str(report)}
    done = apply(str(config), "--", "mpiexec.mpich", "-n", "2",
                 str(paths.kernel_binary("vpic-io")), "--particles", "1024", cwd=tmp_path,
                 env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1])["ranks"] == 2
    records = [json.loads(line) for line in report.read_text().splitlines()]
    [file] = [r for r in records if r.get("file") == "vpic-io.h5"]
    assert file["ranks"] == 2 and file["applied"]["hints"] == {"romio_cb_write": "disable"}
    assert file["effective"]["hints"]["romio_cb_write"] == "disable"  # read back from the file


def test_the_options_for_each_launcher_are_printed(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("{}\n")
    lines = {name: apply(str(config), "--print", name, cwd=tmp_path) for name in
             ("mpich", "openmpi", "srun")}
    assert all(done.returncode == 0 for done in lines.values())
    assert lines["mpich"].stdout.startswith("-genv LD_PRELOAD ")
    assert "build/openmpi/interposer/libiotwin_h5.so" in lines["openmpi"].stdout
    assert lines["srun"].stdout.startswith("--export=ALL,LD_PRELOAD=")
    assert f"IOTWIN_CONFIG={config}" in lines["srun"].stdout


def test_a_bad_config_or_unknown_launcher_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("mpiio:\n  romio_cb_wrte: disable\n")
    done = apply(str(bad), "--", "mpiexec.mpich", "-n", "1", "true", cwd=tmp_path)
    assert done.returncode == 2 and "romio_cb_wrte" in done.stderr
    good = tmp_path / "good.yaml"
    good.write_text("{}\n")
    other = apply(str(good), "--", "ls", cwd=tmp_path)
    assert other.returncode == 2 and "not a launcher iotwin knows" in other.stderr
