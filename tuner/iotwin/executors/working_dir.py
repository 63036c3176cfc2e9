"""Where a program runs: the user's working directory, as under mpiexec.

A run starts in the directory iotwin was started in (``--workdir DIR`` names another), so that
relative paths, input files and the subdirectories a program expects are found as they are
under ``mpiexec``. What a run writes there is found by comparing the directory before and after
it: every path that appeared during the run is the run's output, removed when the run ends (or
moved to the ``--keep`` folder). So every run starts from the directory as the user left it, and
runs that write the same names never see each other's files.

What makes that safe:

- runs in one directory never overlap: a run holds an exclusive lock (flock) on the directory
  while it runs, and another iotwin waits for it (and says so);
- names that start with a dot are neither listed nor removed (.git, .venv, editor swap files),
  nor is anything below the scratch root or the keep folder when they lie inside;
- a file that existed before the run and that the program rewrites stays as the program leaves
  it, as under mpiexec;
- anything else that appears in the directory during a run is taken for the run's: iotwin is
  not run in a directory that other programs write into meanwhile (a build tree); ``--workdir``
  names a quieter one.

A Slurm job runs its program the same way, from its job script:
``python -m iotwin.executors.working_dir RUN_DIR -- LAUNCH...`` (see :func:`main`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import TextIO

from iotwin.core.progress import say

STATUS_NAME = "iotwin-job-status"  # a job's "<exit status> <start epoch s> <end epoch s>"
LISTING_NAME = "iotwin-listing.json"  # in a run's folder: the working directory before the run


def listing(workdir: Path, excluded: Collection[Path] = ()) -> set[str]:
    """Every path below ``workdir`` (relative, with /), but names starting with a dot and the
    ``excluded`` folders; symbolic links are listed, not followed."""
    found: set[str] = set()
    for relative, _ in _walk(workdir, _inside(workdir, excluded), lambda path: True):
        found.add(relative)
    return found


def appeared(workdir: Path, before: Collection[str], excluded: Collection[Path] = ()
             ) -> list[str]:
    """The paths below ``workdir`` that ``before`` (a :func:`listing`) does not hold, top-most
    only: a new folder stands for everything in it."""
    known = set(before)
    return sorted(relative for relative, _ in _walk(workdir, _inside(workdir, excluded),
                                                    lambda path: path in known)
                  if relative not in known)


def _walk(workdir: Path, pruned: set[str], descend: Callable[[str], bool]
          ) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """(relative path, entry) below ``workdir``, descending into the folders ``descend``
    allows; hidden names and ``pruned`` paths left out, unreadable folders read as empty."""
    stack = [""]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(workdir / folder if folder else workdir))
        except OSError:
            continue
        for entry in entries:
            relative = f"{folder}/{entry.name}" if folder else entry.name
            if entry.name.startswith(".") or relative in pruned:
                continue
            yield relative, entry
            if entry.is_dir(follow_symlinks=False) and descend(relative):
                stack.append(relative)


def _inside(workdir: Path, folders: Collection[Path]) -> set[str]:
    """The ``folders`` that lie below ``workdir``, relative to it."""
    root = workdir.resolve()
    return {path.resolve().relative_to(root).as_posix() for path in folders
            if path.resolve().is_relative_to(root) and path.resolve() != root}


def save_listing(run_dir: Path, before: Collection[str]) -> None:
    """Keep a run's :func:`listing` in its folder: what a killed run wrote can be found."""
    (run_dir / LISTING_NAME).write_text(json.dumps(sorted(before)))


def saved_listing(run_dir: Path) -> set[str] | None:
    """The listing :func:`save_listing` kept, None if there is none (or it was cut short)."""
    try:
        return set(json.loads((run_dir / LISTING_NAME).read_text()))
    except (OSError, ValueError):
        return None


def remove(workdir: Path, paths: Collection[str]) -> None:
    """Remove ``paths`` (relative to ``workdir``), folders with everything in them."""
    for relative in paths:
        path = workdir / relative
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def move(workdir: Path, paths: Collection[str], into: Path) -> None:
    """Move ``paths`` (relative to ``workdir``) to the same paths below ``into``."""
    for relative in paths:
        target = into / relative
        remove(into, [relative])
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(workdir / relative), str(target))


@contextlib.contextmanager
def exclusive(workdir: Path, progress: TextIO | None = sys.stderr) -> Iterator[None]:
    """Hold the run lock of ``workdir`` (flock on the folder itself: no file is made there);
    wait, saying so, while another iotwin's run holds it. On a file system without locks the
    runs go unguarded."""
    descriptor = os.open(workdir, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(progress, f"iotwin: waiting for another iotwin's run in {workdir} to end")
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except OSError:
            pass
        yield
    finally:
        os.close(descriptor)


def main(argv: list[str]) -> int:
    """A Slurm job's run: ``RUN_DIR -- LAUNCH...`` in the job's working directory (its script
    changed to it). The launch's output goes to RUN_DIR/stdout and stderr, its exit status and
    times to RUN_DIR/iotwin-job-status, and what it wrote in the directory is removed, as
    for a local run; a job cancelled (SIGTERM) removes it too."""
    if len(argv) < 3 or argv[1] != "--":
        print("usage: python -m iotwin.executors.working_dir RUN_DIR -- LAUNCH...",
              file=sys.stderr)
        return 2
    run_dir, launch, workdir = Path(argv[0]), argv[2:], Path.cwd()
    signal.signal(signal.SIGTERM, _cancelled)
    status = 1
    with exclusive(workdir, progress=None):
        excluded = [run_dir.parent, run_dir]
        before = listing(workdir, excluded)
        save_listing(run_dir, before)
        start = time.time()
        try:
            with (run_dir / "stdout").open("w") as out, (run_dir / "stderr").open("w") as err:
                status = subprocess.run(launch, stdout=out, stderr=err, check=False).returncode
            (run_dir / STATUS_NAME).write_text(f"{status} {start} {time.time()}\n")
        finally:
            remove(workdir, appeared(workdir, before, excluded))
    return status


def _cancelled(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
