"""`simulate --workload W` and `run --config C` name the file on every error path: the
simulator's refusal said "simulation failed: [json.exception.type_error.302] type must be
number, but is string" and named nothing; a config the interposer refused was stored as an
ok run; a config whose files rule matched nothing said "does the program write HDF5?"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from iotwin.commands.run import settings_lines
from iotwin.core import paths
from iotwin.core.run_records import Target
from iotwin.executors import launch
from iotwin.executors.interposer_reports import setting_outcomes
from iotwin.executors.local import run_result


def iotwin(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iotwin", *argv], cwd=cwd, text=True,
                          capture_output=True, check=False, timeout=600)


def _described_workload(folder: Path) -> dict:
    done = subprocess.run([str(paths.kernel_binary("vpic-io")), "--describe", "--particles",
                           "1024"], capture_output=True, text=True, check=True, cwd=folder)
    return json.loads(done.stdout)


def _simulate(work: dict, folder: Path) -> tuple[Path, str]:
    path = folder / "w.yaml"
    path.write_text(json.dumps(work).replace('"@"', "1e309"))  # JSON has no infinity
    done = iotwin("simulate", "--platform", "local", "--workload", str(path), cwd=folder)
    assert done.returncode == 2, done.stdout
    [line] = done.stderr.splitlines()
    return path, line


def test_simulate_names_the_workload_a_time_out_of_range_is_in(tmp_path: Path) -> None:
    work = _described_workload(tmp_path)
    work["files"][0]["compute_before_s"] = "@"
    path, line = _simulate(work, tmp_path)
    assert line.startswith(f"iotwin: error: {path}")


def test_simulate_names_the_workload_whose_ranks_overflow_the_simulator(
        tmp_path: Path) -> None:
    work = _described_workload(tmp_path)
    work["ranks"] = 2**31
    for dataset in work["files"][0]["datasets"]:
        dataset["decomposition"] = {"grid": [2**31], "block": [1]}
    path, line = _simulate(work, tmp_path)
    assert line.startswith(f"iotwin: error: {path}")


def test_run_names_a_files_rule_that_matched_no_file(tmp_path: Path) -> None:
    config = tmp_path / "cfg.yaml"
    config.write_text("files: [{match: '*.nc', mpiio: {cb_nodes: 2}}]\n")
    done = iotwin("run", "vpic-io", "--ranks", "1", "--repeat", "1", "--config", str(config),
                  "--store", "s.db", "--", "--particles", "1024", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert ('settings: rule files[0] (match: "*.nc") matched no file the program opened'
            in done.stdout.splitlines())


def test_a_config_the_interposer_refuses_fails_the_run_naming_the_config(
        tmp_path: Path) -> None:
    # the interposer's own reading of a config (the C reader), whatever Python's says
    (tmp_path / "cfg.yaml").write_text("mpiio: {cb_nodez: 2}\n")
    report = tmp_path / "report.jsonl"
    argv = [paths.kernel_binary("vpic-io"), "--particles", "1024"]
    done = launch.run_mpi(1, argv, cwd=tmp_path, timeout=120, env={
        "LD_PRELOAD": str(paths.interposer_library()), "IOTWIN_REPORT": str(report),
        "IOTWIN_CONFIG": str(tmp_path / "cfg.yaml")})
    reports = [json.loads(line) for line in report.read_text().splitlines()]
    result = run_result(Target(1, kernel="vpic-io"), done, 1.0, reports, 120.0,
                        config_name="mine.yaml")
    assert done.returncode == 0 and result.status == "failed"  # it ran, but not as asked
    assert result.error == ("mine.yaml: refused by the interposer, nothing applied: "
                            "mpiio.cb_nodez: unknown key (expected one of romio_cb_write, "
                            "romio_cb_read, cb_nodes, cb_config_list, cb_buffer_size, "
                            "romio_ds_write, romio_ds_read, romio_no_indep_rw, "
                            "ind_wr_buffer_size, ind_rd_buffer_size, IBM_largeblock_io, "
                            "bglockless, hints)")
    assert settings_lines(setting_outcomes(reports), True, refused=True) == [
        "settings: none applied: the interposer refused the config (above)"]


def test_a_simulation_too_costly_for_the_prompt_is_refused_at_once_with_its_estimate(
        tmp_path: Path) -> None:
    """`dataset: {chunk_size: 1}` made vpic-io's datasets one element a chunk: simulate sat
    without a line for minutes. Now iosim's estimate is weighed against --max-steps first."""
    config = tmp_path / "c.yaml"
    config.write_text("dataset: {chunk_size: 1}\n")
    args = ("simulate", "--kernel", "vpic-io", "--ranks", "4", "--platform", "local",
            "--config", str(config))
    done = iotwin(*args, cwd=tmp_path)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert str(config) in line and "estimated cost 1.4e+09 steps" in line
    assert "beyond the limit of 6e+08 steps" in line and "(here: --max-steps)" in line
    # a smaller workload under the same config fits the limit and is answered
    small = iotwin(*args, "--", "--particles", "4096", cwd=tmp_path)
    assert small.returncode == 0 and "local:" in small.stdout, small.stderr


def test_a_kernel_name_that_is_a_path_is_an_unknown_kernel(tmp_path: Path) -> None:
    """Before: simulate --kernel ../../../bin/sh said the build's ../../../bin/sh "is not
    built", as if a kernel could be any path."""
    done = iotwin("simulate", "--kernel", "../../../bin/sh", "--ranks", "2", "--platform",
                  "hopper", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == ("iotwin: error: unknown kernel '../../../bin/sh': expected one of "
                           f"{', '.join(paths.KERNELS)}\n")
