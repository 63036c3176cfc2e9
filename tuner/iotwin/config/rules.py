"""The rules the tuner and the interposer apply identically, from the one C library that
holds them (interposer/rules/, ``libiotwin_rules.so``, loaded with ctypes; the interposer
links the same code): which blocks of a config apply to a file and a dataset, and which file
system holds a path. Loading it has no side effect (no MPI, no HDF5), unlike loading the
interposer.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from iotwin.core import paths

FILESYSTEMS = ("ufs", "lustre", "gpfs")  # enum iotwin_fs, in ROMIO's driver names
_NAME_LEN = 64


@cache
def _library() -> ctypes.CDLL:
    library = ctypes.CDLL(str(paths.built("interposer/libiotwin_rules.so")))
    library.iotwin_rule_matches.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    library.iotwin_rule_matches.restype = ctypes.c_int
    library.iotwin_rules_applying.argtypes = [
        ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_int),
        ctypes.POINTER(ctypes.c_char_p), ctypes.c_char_p, ctypes.c_char_p,
        ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    library.iotwin_rules_applying.restype = ctypes.c_int
    library.iotwin_filesystem.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    library.iotwin_filesystem.restype = ctypes.c_int
    return library


def _text(value: str) -> bytes:
    return os.fsencode(value)


def matches(pattern: str, name: str) -> bool:
    """The one glob rule: fnmatch (``*`` also matches ``/``) on the full name, or on its last
    ``/`` component."""
    return bool(_library().iotwin_rule_matches(_text(pattern), _text(name)))


def applying(file_patterns: Sequence[str], dataset_patterns: Sequence[Sequence[str]],
             file_name: str, dataset_name: str | None = None) -> list[tuple[int, int | None]]:
    """The scoped blocks that apply to a file (and a dataset), in applying order after the top
    level: (i, None) for ``files[i]``, (i, j) for ``files[i].datasets[j]``."""
    nfiles = len(file_patterns)
    flat = [_text(p) for patterns in dataset_patterns for p in patterns]
    first = [0]
    for patterns in dataset_patterns:
        first.append(first[-1] + len(patterns))
    room = nfiles + len(flat)
    out_file, out_dataset = (ctypes.c_int * max(room, 1))(), (ctypes.c_int * max(room, 1))()
    count = _library().iotwin_rules_applying(
        nfiles, (ctypes.c_char_p * max(nfiles, 1))(*[_text(p) for p in file_patterns]),
        (ctypes.c_int * len(first))(*first), (ctypes.c_char_p * max(len(flat), 1))(*flat),
        _text(file_name), None if dataset_name is None else _text(dataset_name),
        out_file, out_dataset, room)
    return [(out_file[k], None if out_dataset[k] < 0 else out_dataset[k]) for k in range(count)]


def filesystem(path: Path) -> tuple[str, str]:
    """(ROMIO's driver for it: lustre, gpfs or ufs; the file system's own name, e.g. ext4) of
    the file system holding ``path`` or, if it does not exist yet, its nearest ancestor."""
    name = ctypes.create_string_buffer(_NAME_LEN)
    kind = _library().iotwin_filesystem(_text(str(path)), name, _NAME_LEN)
    return FILESYSTEMS[kind], name.value.decode(errors="replace")
