"""The local executor: real mpiexec runs that fail, hang, or succeed, and the files they leave."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from iotwin.config import validation as tuning
from iotwin.core import paths
from iotwin.core.mpi_flavours import select_flavour
from iotwin.core.run_records import Target
from iotwin.executors.local import LocalExecutor, kernel_result_line, program_argv
from support.processes import with_default_sigint

VPIC_BYTES_PER_PARTICLE = 6 * 4 + 2 * 4  # 6 float and 2 int variables
REPLAY_WORKLOAD = """
iotwin_workload: 1
name: relative
ranks: 2
files:
  - name: relative.h5
    role: checkpoint
    mode: shared
    api: hdf5
    create: true
    datasets:
      - {name: /d, element_bytes: 8, decomposition: {grid: [2], block: [4096]},
         transfer: collective}
"""


@pytest.fixture
def executor(scratch: Path) -> LocalExecutor:
    return LocalExecutor(timeout_s=60, scratch_root=scratch / "runs", workdir=scratch)


def test_crashing_program_is_failed_with_its_stderr(executor: LocalExecutor) -> None:
    target = Target(ranks=2, command=("sh", "-c", "echo 'disk on fire' >&2; exit 3"))
    result = executor.run_once(target, {})
    assert result.status == "failed"
    assert result.error is not None
    assert "exit status 3" in result.error and "disk on fire" in result.error


def test_rank_killed_by_a_signal_is_failed(executor: LocalExecutor) -> None:
    result = executor.run_once(Target(ranks=2, command=("sh", "-c", "kill -SEGV $$")), {})
    assert result.status == "failed"
    assert (result.error or "").startswith("exit status ")


def _live_processes(marker: str) -> list[int]:
    """Processes (zombies excluded) whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or marker not in (entry / "cmdline").read_text():
                continue
            if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(entry.name))
        except OSError:
            continue  # the process ended while we looked
    return found


def _unique_sleep() -> str:
    return f"{os.getpid() % 1000 + 100}.{time.monotonic_ns() % 1000:03d}"  # no one else's


def _stubborn_ranks(marker: str) -> tuple[str, ...]:
    """Ranks that ignore every polite signal and sleep ``marker`` seconds."""
    return ("sh", "-c", f"trap '' TERM INT HUP; exec sleep {marker}")


def test_hanging_program_times_out_and_every_rank_is_gone_on_return(scratch: Path) -> None:
    marker = _unique_sleep()
    executor = LocalExecutor(timeout_s=2, scratch_root=scratch / "runs", workdir=scratch)
    result = executor.run_once(Target(ranks=2, command=_stubborn_ranks(marker)), {})
    assert result.status == "timeout"
    assert "killed after 2 s" in (result.error or "")
    assert _live_processes(marker) == []


INTERRUPTED_RUN = """
import sys
from pathlib import Path
from iotwin.executors.base import Target
from iotwin.executors.local import LocalExecutor
executor = LocalExecutor(timeout_s=600, scratch_root=Path(sys.argv[1]) / "runs",
                         workdir=Path(sys.argv[1]))
command = ("sh", "-c", "trap '' TERM INT HUP; exec sleep " + sys.argv[2])
try:
    executor.run_once(Target(ranks=2, command=command), {})
except KeyboardInterrupt:
    sys.exit(130)
"""


def test_an_interrupted_run_leaves_no_rank_behind(scratch: Path) -> None:
    marker = _unique_sleep()
    caller = subprocess.Popen([sys.executable, "-c", INTERRUPTED_RUN, str(scratch), marker],
                              preexec_fn=with_default_sigint)
    while len(_live_processes(marker)) < 2:
        assert caller.poll() is None, "the run ended before it could be interrupted"
        time.sleep(0.05)
    caller.send_signal(signal.SIGINT)  # Ctrl-C reaches iotwin, not the ranks' own sessions
    assert caller.wait(timeout=60) == 130
    assert _live_processes(marker) == []


def test_kernel_result_comes_from_its_json_line(executor: LocalExecutor) -> None:
    particles = 16384
    target = Target(ranks=2, kernel="vpic-io", args=("--particles", str(particles)))
    result = executor.run_once(target, {})
    assert result.status == "ok", result.error
    assert result.bytes == 2 * particles * VPIC_BYTES_PER_PARTICLE
    assert result.total_s is not None and result.rate_mbs is not None
    assert result.rate_mbs == pytest.approx(result.bytes / 1e6 / result.total_s, rel=0.01)
    assert {"open_s", "write_s", "sync_s", "close_s", "total_s"} <= set(result.phases)


def test_bad_kernel_arguments_are_a_failed_run(executor: LocalExecutor) -> None:
    target = Target(ranks=1, kernel="vpic-io", args=("--particles", "many"))
    result = executor.run_once(target, {})
    assert result.status == "failed"
    assert "particles" in (result.error or "")


def test_run_files_are_removed_and_the_last_run_kept_on_request(scratch: Path) -> None:
    runs, keep = scratch / "runs", scratch / "kept"
    config = {"mpiio": {"cb_nodes": 2, "cb_config_list": "*:*", "cb_buffer_size": "4MiB"}}
    target = Target(ranks=1, kernel="vpic-io", args=("--particles", "1024"))
    LocalExecutor(scratch_root=runs, workdir=scratch).run_once(target, config)
    assert list(runs.iterdir()) == []
    assert sorted(p.name for p in scratch.iterdir()) == ["runs"]  # vpic-io.h5 removed
    kept = LocalExecutor(scratch_root=runs, workdir=scratch, keep=keep)
    kept.run_once(target, config)
    kept.run_once(target, config)
    assert list(runs.iterdir()) == []
    assert sorted(p.name for p in scratch.iterdir()) == ["kept", "runs"]
    assert sorted(p.name for p in keep.iterdir()) == ["iotwin-runs", "vpic-io.h5"]
    assert (keep / "vpic-io.h5").stat().st_size > 1024 * VPIC_BYTES_PER_PARTICLE
    for run in ("001", "002"):  # every run's own files, the program's output among them
        folder = keep / "iotwin-runs" / run
        assert tuning.load_config(folder / "iotwin-config.yaml") == tuning.validate_config(
            config, "x")
        assert kernel_result_line((folder / "stdout").read_text()) is not None
        assert (folder / "stderr").exists()


def _bytes_written_by_this_process() -> int:
    return int(next(line.split()[1] for line in Path("/proc/self/io").read_text().splitlines()
                    if line.startswith("wchar:")))


def test_warm_up_writes_its_bytes_before_the_run_and_leaves_nothing(scratch: Path) -> None:
    runs, warm_up = scratch / "runs", 8 * 2**20 + 1
    executor = LocalExecutor(timeout_s=60, scratch_root=runs, workdir=scratch,
                             warm_up_bytes=warm_up)
    before = _bytes_written_by_this_process()
    result = executor.run_once(Target(ranks=1, kernel="vpic-io", args=("--particles", "1024")),
                               {})
    assert result.ok
    assert _bytes_written_by_this_process() - before >= warm_up  # the ranks' writes not counted
    assert list(runs.iterdir()) == []
    assert sorted(p.name for p in scratch.iterdir()) == ["runs"]


def test_kernel_result_line_is_the_last_json_object_with_a_total() -> None:
    stdout = ('{"total_s": 1}\nwarning: {not json\n{"note": "no total"}\n'
              '{"total_s": 2.5, "bytes": 10}\ntrailing text\n')
    assert kernel_result_line(stdout) == {"total_s": 2.5, "bytes": 10}
    assert kernel_result_line("no json here\n") is None


def test_a_relative_program_is_found_from_here_and_its_arguments_left_to_its_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "app").write_text("")
    (tmp_path / "input.yaml").write_text("")
    monkeypatch.chdir(tmp_path)
    mpich, openmpi = select_flavour("mpich"), select_flavour("openmpi")
    argv = program_argv(Target(ranks=1, command=("./app", "input.yaml", "out.h5", "-v")), mpich)
    assert argv == [str(tmp_path / "app"), "input.yaml", "out.h5", "-v"]
    assert program_argv(Target(ranks=1, command=("sh", "-c", "true")), mpich)[0] == "sh"
    replay = Target(ranks=1, kernel="replay", args=("--compute-scale", "0", "input.yaml"))
    argv = program_argv(replay, mpich)
    assert argv[1:] == ["--compute-scale", "0", "input.yaml"]
    assert program_argv(replay, openmpi)[0] == str(paths.kernel_binary("replay", "openmpi"))


def test_a_kernel_reads_a_relative_input_file_from_its_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "w.yaml").write_text(REPLAY_WORKLOAD)
    monkeypatch.chdir(tmp_path)
    executor = LocalExecutor(timeout_s=60, scratch_root=tmp_path / "runs")  # runs here
    result = executor.run_once(Target(ranks=2, kernel="replay", args=("w.yaml",)), {})
    assert result.status == "ok", result.error
    assert result.bytes == 2 * 4096 * 8
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs", "w.yaml"]


def test_a_terminated_iotwin_run_leaves_no_rank_behind(scratch: Path) -> None:
    marker = _unique_sleep()
    command = ["sh", "-c", f"trap '' TERM INT HUP; exec sleep {marker}"]
    caller = subprocess.Popen([sys.executable, "-m", "iotwin", "run", "--ranks", "2", "--repeat",
                               "1", "--store", str(scratch / "s.db"), "--", *command],
                              env={**os.environ, "IOTWIN_SCRATCH": str(scratch / "runs")},
                              stderr=subprocess.PIPE, text=True, cwd=scratch)
    while len(_live_processes(marker)) < 2:
        assert caller.poll() is None, "the run ended before it could be terminated"
        time.sleep(0.05)
    caller.terminate()  # as timeout(1) or a scheduler ends it
    assert caller.wait(timeout=60) == 143
    assert "interrupted; everything measured so far is in the store" in caller.stderr.read()
    assert _live_processes(marker) == []
