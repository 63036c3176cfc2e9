"""A folder iotwin writes into that the user may also use: what is iotwin's in it, and what is not.

iotwin writes, beside what it puts in a folder, a list of every path it put there; a path the
list does not name is the user's. One rule serves every such folder (``run --keep DIR``,
``-o DIR`` of report, experiment, validate local and landscape benchmark): a folder that holds
a path of the user's is refused before any work starts, and iotwin never removes a path its
list does not name.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotwin.core.errors import UserError
from iotwin.core.text import printable

WRITTEN_LIST = ".iotwin-written.json"  # in an -o folder: the paths iotwin wrote there


def paths_below(folder: Path, skip: Collection[str] = ()) -> set[str]:
    """Every path below ``folder`` (hidden ones too), relative to it, but those below the
    top-level names ``skip``."""
    found: set[str] = set()
    stack = [""]
    while stack:
        below = stack.pop()
        for entry in os.scandir(folder / below if below else folder):
            relative = f"{below}/{entry.name}" if below else entry.name
            if relative in skip:
                continue
            found.add(relative)
            if entry.is_dir(follow_symlinks=False):
                stack.append(relative)
    return found


def foreign_path(folder: Path, ours: Collection[str], skip: Collection[str] = ()) -> str | None:
    """The first path below ``folder`` that is not in ``ours`` (nor below ``skip``), None if
    every one is."""
    return min(paths_below(folder, skip) - set(ours), default=None)


def listed(value: Any) -> list[str] | None:
    """``value`` if it is a list of plain relative paths (no .., no leading /), else None: a
    list iotwin did not write is no list."""
    if not isinstance(value, list) or not all(
            isinstance(path, str) and _relative(path) for path in value):
        return None
    return value


def _relative(path: str) -> bool:
    parts = path.split("/")
    return bool(path) and all(part not in ("", ".", "..") for part in parts)


def read_list(path: Path) -> dict[str, Any] | None:
    """A list file as iotwin wrote it (a JSON mapping), None if there is none or it is not."""
    try:
        written = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return written if isinstance(written, dict) else None


@dataclass(frozen=True)
class OutputFolder:
    """``-o DIR``: a folder new, empty, or holding only what iotwin wrote there (its list,
    ``DIR/.iotwin-written.json``, names every path). ``own`` are folders of iotwin's inside it
    (a benchmark's campaigns, kept only for a run cut short to resume): what is below them is
    iotwin's too, and they are the only paths iotwin removes."""

    folder: Path
    option: str = "-o"
    own: tuple[str, ...] = ()

    def check(self, force: bool) -> None:
        """UserError, before any work starts, for a folder iotwin may not write into: a file,
        a folder holding a path of the user's (unless ``force``: then iotwin writes beside
        them, replacing only files of the names it writes), or one whose ``own`` folders are
        the user's (never, even with ``force``: iotwin would remove them)."""
        at = f"{self.option} {self.folder}"
        if self.folder.exists() and not self.folder.is_dir():
            raise UserError(f"{at}: is a file, not a folder; name a new or empty folder")
        if not self.folder.is_dir():
            return
        ours = self._ours()
        for name in self.own:
            if (self.folder / name).exists() and name not in ours:
                raise UserError(f"{at}: {name} in it was not written by iotwin; iotwin writes "
                                f"and removes a folder of that name there: name another folder")
        foreign = foreign_path(self.folder, ours | {WRITTEN_LIST}, self.own)
        if foreign is not None and not force:
            raise UserError(f"{at}: holds files iotwin did not write there "
                            f"({printable(foreign)}); name a new or empty folder, or give "
                            f"--force to write beside them")

    def _ours(self) -> set[str]:
        written = read_list(self.folder / WRITTEN_LIST) or {}
        return set(listed(written.get("paths")) or [])

    def claim(self, paths: Iterable[Path | str]) -> None:
        """Add ``paths`` (in the folder, or relative to it) to the list of what iotwin wrote
        there: before writing them, so that a run cut short leaves them listed."""
        self.folder.mkdir(parents=True, exist_ok=True)
        relative = [Path(p).relative_to(self.folder) if Path(p).is_relative_to(self.folder)
                    else Path(p) for p in paths]
        folders = {str(parent) for path in relative for parent in path.parents
                   if parent != Path(".")}
        self._write(self._ours() | folders | {str(path) for path in relative})

    def remove_own(self, name: str) -> None:
        """Remove ``name``, one of the ``own`` folders, and unlist it."""
        if name not in self.own:
            raise ValueError(f"{name} is not an own folder of {self.folder}")
        shutil.rmtree(self.folder / name, ignore_errors=True)
        self._write(self._ours() - {name})

    def _write(self, ours: set[str]) -> None:
        (self.folder / WRITTEN_LIST).write_text(json.dumps({"paths": sorted(ours)}) + "\n")
