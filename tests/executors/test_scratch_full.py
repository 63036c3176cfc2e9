"""A real run whose scratch file system fills: the run fails, stored, with that reason (an
HDF5 stack trace and "exit status 11" before, or "iotwin: error: No space left on device" and
nothing stored when the config could not even be written)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from iotwin.store.database import Store
from support.small_disk import in_namespace, mount_line


def test_a_run_that_fills_its_disk_fails_with_that_reason(tmp_path: Path) -> None:
    """The program writes where it runs (--workdir) and iotwin's own files of the run go to
    the scratch root: both on a 1 MiB disk."""
    disk, store = tmp_path / "disk", tmp_path / "s.db"
    disk.mkdir()
    scratch = disk / "scratch"
    run = (f"IOTWIN_SCRATCH={scratch} {sys.executable} -m iotwin run vpic-io --ranks 1 "
           f"--repeat 1 --workdir {disk} --store {store} -- --particles 65536")  # 2 MiB in 1
    script = "\n".join([
        mount_line(disk, "1m"),
        f"{run} > {tmp_path}/first.out 2>&1; echo $? > {tmp_path}/first.rc",
        f"head -c 2000000 /dev/zero > {disk}/filler",  # full before the run starts
        f"{run} > {tmp_path}/second.out 2>&1; echo $? > {tmp_path}/second.rc"])
    subprocess.run([*in_namespace(), "sh", "-c", script], cwd=tmp_path, check=True,
                   timeout=600)
    for attempt in ("first", "second"):  # 1: some repetitions failed (and are stored)
        assert (tmp_path / f"{attempt}.rc").read_text().strip() == "1", \
            (tmp_path / f"{attempt}.out").read_text()
    with Store(store) as db:
        written, full = db.evaluations()
    assert written.status == full.status == "failed"
    assert written.error is not None and re.match(
        rf"the file system is full \(\d+ bytes left where the run wrote, {disk}\)",
        written.error)
    assert full.error is not None and full.error.startswith(f"scratch {scratch}")
    assert full.error.endswith("No space left on device")
