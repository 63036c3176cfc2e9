"""A small disk for tests of a full file system: a tmpfs in a private mount namespace.

``unshare --mount`` (as root) or ``unshare --map-root-user --mount`` (where unprivileged user
namespaces are allowed) gives a mount namespace of its own: a tmpfs of a few hundred KiB
mounted there fills as a real disk does (ENOSPC), and nobody outside sees it. A file-size
limit (RLIMIT_FSIZE) would not do: every child process inherits it (the simulator, the
launcher, the ranks) and its writes fail with EFBIG, not with a full disk.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


def in_namespace() -> list[str]:
    """The command prefix that runs a shell script in a private mount namespace where tmpfs
    can be mounted; skips the test where there is none."""
    prefix = ["unshare", "--mount"] if os.geteuid() == 0 else [
        "unshare", "--map-root-user", "--mount"]
    if shutil.which("unshare") is None or subprocess.run(
            [*prefix, "sh", "-c", "mount -t tmpfs -o size=64k probe /mnt"],
            capture_output=True, check=False).returncode != 0:
        pytest.skip("no private mount namespace here (unshare refused): no tmpfs to fill")
    return prefix


def mount_line(folder: Path, size: str) -> str:
    """The shell line that mounts a tmpfs of ``size`` on ``folder``."""
    return f"mount -t tmpfs -o size={size} iotwin-small-disk {folder} || exit 99"


def resize_line(folder: Path, size: str) -> str:
    return f"mount -t tmpfs -o remount,size={size} iotwin-small-disk {folder} || exit 99"
