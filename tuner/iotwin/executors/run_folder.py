"""A run's own folder in the scratch root, and what becomes of it.

The program runs in the working directory (iotwin.executors.working_dir); iotwin's own files
of a run live in a folder ``run-XXXX`` of the scratch root (``$IOTWIN_SCRATCH``, else ``runs/``
in the repository): the config the interposer reads, its report, the program's stdout and
stderr, the working directory's listing before the run, and a record of the iotwin process
that owns the run. The folder is removed when the run ends, or kept under ``--keep``.

An iotwin killed with SIGKILL removes nothing: its run's processes may still be running, and
what they wrote stays in the working directory. The next iotwin that runs anything with the
same scratch root on the same host (a new command, or the resume of the campaign) finds the
folders whose owner is gone, kills what is left of their runs, removes from the working
directory the paths that appeared there between the run's start and its end (the launcher's
exit, marked in the folder; else the folder's last change) and removes the folder, saying
what it removed. A path the user made in the directory after that end stays.

Every process of a run carries the run's folder in ``IOTWIN_RUN_DIR``: Hydra's proxies start
each rank in a session of its own, so neither the launcher's process group nor the terminal's
Ctrl-C reaches them, and on a timeout or an interrupt all of them are killed by that mark.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from iotwin.core.errors import UserError
from iotwin.core.owned_folder import foreign_path, listed, paths_below, read_list
from iotwin.core.progress import say
from iotwin.core.text import printable
from iotwin.executors.launch import ENDED_NAME
from iotwin.executors.working_dir import (
    LISTING_NAME,
    appeared,
    exclusive,
    move,
    remove,
    saved_listing,
)

RUN_MARKER = "IOTWIN_RUN_DIR"
RECORD_NAME = "iotwin-run.json"
KEPT_RUNS = "iotwin-runs"  # in a --keep folder: one folder per run, iotwin's files of it
KEPT_LIST = "kept.json"  # in KEPT_RUNS: the outputs iotwin kept in the --keep folder
KILL_POLL_S = 0.05
KILL_POLLS = 200  # how long killed processes may take to go (blocked in I/O, say)
SHOWN_PATHS = 5  # paths named when a killed run's files are removed


def check_scratch_root(scratch_root: Path, workdir: Path) -> None:
    """UserError for a scratch root that is the working directory: the run folders of other
    runs would appear in it during a run and be taken for the run's files."""
    if scratch_root.resolve() == workdir.resolve():
        raise UserError(f"the scratch root {scratch_root} ($IOTWIN_SCRATCH) is the working "
                        f"directory: other runs' folders would be taken for this run's files; "
                        f"name a folder of its own")


def new_run_folder(scratch_root: Path, workdir: Path, excluded: Collection[Path] = ()
                   ) -> Path:
    """A new run folder in ``scratch_root``, recording this process as its owner, the working
    directory and the folders left out of its listing."""
    scratch_root.mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=scratch_root))
    record = {"host": socket.gethostname(), "pid": os.getpid(),
              "pid_start": _start_ticks(os.getpid()),
              "workdir": str(workdir), "started": time.time(),
              "excluded": [str(path) for path in excluded]}
    (run_dir / RECORD_NAME).write_text(json.dumps(record))
    return run_dir


def _start_ticks(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks after boot; /proc/PID/stat field 22): a pid
    used again by a later process does not pass for the owner."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def _record(run_dir: Path) -> dict[str, Any] | None:
    try:
        record = json.loads((run_dir / RECORD_NAME).read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _owner_alive(record: dict[str, Any]) -> bool:
    """Whether the run's iotwin still runs; a run of another host (a scratch root that nodes
    share) counts as alive: its processes cannot be seen from here."""
    if record.get("host") != socket.gethostname():
        return True
    ticks = _start_ticks(int(record.get("pid", -1)))
    return ticks is not None and ticks == record.get("pid_start")


def clean_killed_runs(scratch_root: Path, progress: TextIO | None = sys.stderr) -> None:
    """Clean up after every run of ``scratch_root`` whose iotwin was killed (see the module's
    doc); the runs of a live iotwin are left alone."""
    if not scratch_root.is_dir():
        return
    for run_dir in sorted(scratch_root.glob("run-*")):
        record = _record(run_dir)
        if record is None or _owner_alive(record):
            continue
        still_running = kill_run(run_dir)
        removed = _remove_outputs(run_dir, record, [scratch_root], still_running, progress)
        shutil.rmtree(run_dir, ignore_errors=True)
        workdir = record.get("workdir")
        what = (f" and {len(removed)} path(s) it wrote in {workdir}: "
                f"{', '.join(removed[:SHOWN_PATHS])}{', ...' if len(removed) > SHOWN_PATHS else ''}"
                if removed else "")
        say(progress, f"iotwin: cleaned up after a killed run: removed its folder {run_dir}"
                      f"{what}")


def _remove_outputs(run_dir: Path, record: dict[str, Any], excluded: list[Path],
                    still_running: bool, progress: TextIO | None) -> list[str]:
    """Remove from the killed run's working directory what appeared there while it ran."""
    workdir, before = Path(str(record.get("workdir"))), saved_listing(run_dir)
    if before is None or not workdir.is_dir():  # killed before its program started
        return []
    excluded = [*excluded, *(Path(p) for p in record.get("excluded", []))]
    started = float(record.get("started", 0))
    with exclusive(workdir, progress):
        ended = time.time() if still_running else _ended(run_dir)
        paths = [p for p in appeared(workdir, before, excluded)
                 if started - 1 <= _mtime(workdir / p) <= ended + 1]
        remove(workdir, paths)
    return paths


def _ended(run_dir: Path) -> float:
    """When the killed run's program ended: its launcher's exit mark, else the last change
    of its folder (its output, the interposer's report)."""
    marks = [run_dir / ENDED_NAME] if (run_dir / ENDED_NAME).exists() else list(
        run_dir.iterdir())
    return max((_mtime(path) for path in marks), default=0.0)


def _mtime(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return float("inf")


def kill_run(run_dir: Path) -> bool:
    """SIGKILL every process of the run in ``run_dir`` (mpiexec, proxies, ranks); wait for
    them. Whether there were any."""
    marker = f"{RUN_MARKER}={run_dir}".encode()
    found = False
    for _ in range(KILL_POLLS):
        pids = run_processes(marker)
        if not pids:
            return found
        found = True
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(KILL_POLL_S)
    return found


def run_processes(marker: bytes) -> list[int]:
    """Live processes whose environment holds ``marker`` (a zombie's environment reads empty)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if marker in environ.split(b"\0"):
            pids.append(int(entry.name))
    return pids


@dataclass
class KeptRuns:
    """``--keep DIR``: the last run's output files, at their paths in the working directory,
    and every run's own folder as ``DIR/iotwin-runs/NNN`` (the program's stdout and stderr,
    the config, the interposer's report). What iotwin keeps in DIR is listed in
    ``DIR/iotwin-runs/kept.json``; before the first run, DIR must be new, empty or hold only
    what that list names (a folder iotwin kept runs in before), and only that is removed: a
    file of the user's in it is never deleted. DIR must not hold the working directory."""

    folder: Path
    _outputs: list[str] = field(default_factory=list)  # the last run's, in ``folder``
    _runs: int = 0
    _cleared: bool = False  # what an earlier iotwin kept here is gone

    def check(self, workdir: Path) -> None:
        """UserError, before anything runs, for a folder that cannot be the keep folder."""
        folder, work = self.folder.resolve(), workdir.resolve()
        if work == folder or work.is_relative_to(folder):
            raise UserError(f"--keep {self.folder}: holds the working directory {workdir}; "
                            f"name a folder of its own")
        if self.folder.exists() and not self.folder.is_dir():
            raise UserError(f"--keep {self.folder}: is a file, not a folder; name a new or "
                            f"empty folder")
        foreign = self._not_ours()
        if foreign is not None:
            raise UserError(f"--keep {self.folder}: exists and holds files iotwin did not "
                            f"keep ({printable(foreign)}); name a new or empty folder")

    def _earlier(self) -> tuple[list[str], set[str]] | None:
        """What an earlier iotwin kept here, as its list says: the outputs (top-most) and
        every path it put here; None without a list (or with one iotwin did not write)."""
        kept = read_list(self.folder / KEPT_RUNS / KEPT_LIST) or {}
        outputs, paths = listed(kept.get("outputs")), listed(kept.get("paths"))
        if outputs is None or paths is None:
            return None
        return outputs, set(paths)

    def _not_ours(self) -> str | None:
        """A path in the keep folder iotwin did not put there, None if there is none."""
        if not self.folder.is_dir() or not any(self.folder.iterdir()):
            return None
        earlier = self._earlier()
        if earlier is None:
            return min(os.listdir(self.folder))
        runs = self.folder / KEPT_RUNS
        for name in sorted(os.listdir(runs)):
            if name != KEPT_LIST and not (name.isdigit() and (runs / name).is_dir()
                                          and not (runs / name).is_symlink()):
                return f"{KEPT_RUNS}/{name}"
        return foreign_path(self.folder, earlier[1], skip=(KEPT_RUNS,))

    def outputs(self, workdir: Path, paths: Collection[str]) -> None:
        """Move a run's output ``paths`` here, in place of the previous run's (before the
        first run, of what an earlier iotwin kept here)."""
        self._clear()
        remove(self.folder, self._outputs)
        self.folder.mkdir(parents=True, exist_ok=True)
        move(workdir, paths, self.folder)
        self._outputs = list(paths)
        self._write_list()

    def _clear(self) -> None:
        """What an earlier iotwin kept here removed, and nothing else (once, before the first
        run is kept)."""
        if self._cleared:
            return
        self._cleared = True
        earlier = (self._earlier() or ([], set()))[0]
        remove(self.folder, earlier)
        for output in earlier:  # the folders made to hold them, once empty
            parent = Path(output).parent
            while parent != Path("."):
                with contextlib.suppress(OSError):
                    (self.folder / parent).rmdir()
                parent = parent.parent
        runs = self.folder / KEPT_RUNS
        if runs.is_dir():
            for name in os.listdir(runs):
                if name.isdigit():
                    shutil.rmtree(runs / name, ignore_errors=True)

    def _write_list(self) -> None:
        (self.folder / KEPT_RUNS).mkdir(parents=True, exist_ok=True)
        (self.folder / KEPT_RUNS / KEPT_LIST).write_text(
            json.dumps({"outputs": self._outputs,
                        "paths": sorted(paths_below(self.folder, skip=(KEPT_RUNS,)))}) + "\n")

    def run_folder(self, run_dir: Path) -> Path:
        """Move a run's own folder here; where it went."""
        self._clear()
        self._runs += 1
        target = self.folder / KEPT_RUNS / f"{self._runs:03d}"
        shutil.rmtree(target, ignore_errors=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        for bookkeeping in (RECORD_NAME, LISTING_NAME, ENDED_NAME):
            (run_dir / bookkeeping).unlink(missing_ok=True)
        shutil.move(str(run_dir), target)
        self._write_list()
        return target

