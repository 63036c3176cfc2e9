"""IOR's own command line as a workload (``iotwin workload from-ior``).

IOR is what tenders and acceptance tests name, so its options are read as IOR reads them
(IOR's user guide, "Options"): ``-a POSIX|MPIIO|HDF5`` the API, ``-F`` a file per process,
``-t`` the transfer size (one write call), ``-b`` the block a process writes contiguously in a
segment, ``-s`` the segments, ``-c`` collective calls, ``-e`` an fsync at the end of the write
phase, ``-w``/``-r`` the phases, ``-o`` the file, ``-E`` an existing file; sizes with IOR's
binary suffixes (``2m``, ``2048k``, ``1g``). What IOR writes where:

    shared file:   process r, segment k, transfer i at byte  k*N*b + r*b + i*t
    file per proc: process r, segment k, transfer i at byte  k*b + i*t   of its own file

which is a regular selection, each transfer one call: with one transfer a block (IO500's hard
phase) or one writer a file, the file is one array of transfers and the calls one ``repeat``;
otherwise the file's bytes are (segments x writers) rows of ``b`` bytes, process r's transfer
i of segment k the block (row k*W + r, columns i*t ... i*t+t), a segment's transfers one
``repeat``. The
read phase is not simulated: a command line that only reads is refused, one that also reads
is simulated for its write phase, and the caller is told.

``IO500_PHASES`` holds IO500's two write phases as its rules fix them (the IO500 script's
defaults: POSIX, ``-t 2048k -F`` for ior-easy, ``-t 47008 -b 47008`` one shared file for
ior-hard; both ``-C -e -w``), their volume chosen by the caller.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from iotwin.core.cost import Cost, Driver, Limits, constant
from iotwin.core.document_cost import text_cost
from iotwin.core.errors import UserError
from iotwin.workloads.types import Workload
from iotwin.workloads.workload import validate_workload

_APIS = {"POSIX": "posix", "MPIIO": "mpiio", "HDF5": "hdf5"}
_SIZE = re.compile(r"^(\d+)([kKmMgGtT]?)$")
_SUFFIX = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
#: IOR options that take a value and do not change what the write phase writes where
_IGNORED_VALUES = {"-D": "stonewall deadline", "-G": "timestamp signature",
                   "-Q": "task offset for reads", "-U": "hints file", "-O": "extra options",
                   "-i": "repetitions", "-d": "delay between repetitions",
                   "-T": "maximum minutes", "-l": "data packet type", "-j": "outlier threshold"}
#: IOR flags that do not change what the write phase writes where (reads, reports, timing)
_IGNORED_FLAGS = {"-C": "reorder tasks for reads", "-g": "barriers between phases",
                  "-k": "keep the file", "-K": "keep the file on error", "-v": "verbose",
                  "-q": "quit on error", "-u": "a directory per task", "-x": "single attempt",
                  "-W": "check after write", "-R": "check after read", "-H": "show hints",
                  "-m": "multiple files per repetition", "-Y": "fsync every write"}
_NOT_MODELLED = {"-z": "random offsets", "-Z": "reordered offsets"}
_VALUED = {"-a", "-b", "-t", "-s", "-o", "-N", *_IGNORED_VALUES}
_FLAGS = {"-F", "-c", "-e", "-w", "-r", "-E", *_IGNORED_FLAGS, *_NOT_MODELLED}


@dataclass(frozen=True)
class IorRun:
    """The options of one IOR command line that decide its write phase."""

    api: str = "POSIX"
    transfer: int = 256 * 2**10   # IOR's default -t
    block: int = 2**20            # IOR's default -b
    segments: int = 1
    file_per_process: bool = False
    collective: bool = False
    fsync: bool = False
    writes: bool = True
    reads: bool = True
    existing: bool = False
    test_file: str = "testFile"
    ignored: tuple[str, ...] = field(default=())
    notes: tuple[str, ...] = field(default=())  # what the model made of an option, to tell


def ior_size(text: str, option: str) -> int:
    """Bytes in one of IOR's sizes (``47008``, ``2m``, ``2048k``: binary suffixes)."""
    match = _SIZE.match(text.strip())
    if not match or int(match.group(1)) == 0:
        raise UserError(f"IOR option {option}: expected a size such as 47008, 2048k or 2m, "
                        f"got {text!r}")
    return int(match.group(1)) * _SUFFIX[match.group(2).lower()]


def parse_ior(arguments: Sequence[str]) -> IorRun:
    """The write-phase options of IOR's command line ``arguments`` (without ``ior`` itself);
    UserError naming the option for one IOR does not have or this model cannot say."""
    options: dict[str, Any] = {}
    flags: set[str] = set()
    ignored: list[str] = []
    for option, value in _options(arguments):
        if option in _NOT_MODELLED:
            raise UserError(f"IOR option {option} ({_NOT_MODELLED[option]}): not modelled; "
                            "the simulator writes IOR's offsets in order")
        if option in _IGNORED_VALUES or option in _IGNORED_FLAGS:
            ignored.append(f"{option} ({_IGNORED_VALUES.get(option) or _IGNORED_FLAGS[option]})")
        elif value is None:
            flags.add(option)
        else:
            options[option] = value
    test_file, notes = _workload_file(options.get("-o", "testFile"))
    api = options.get("-a", "POSIX").upper()
    if api not in _APIS:
        raise UserError(f"IOR option -a: expected one of {', '.join(_APIS)}, got "
                        f"{options['-a']!r}")
    writes, reads = ("-w" in flags or "-r" not in flags), ("-r" in flags or "-w" not in flags)
    run = IorRun(api=api, transfer=ior_size(options.get("-t", "256k"), "-t"),
                 block=ior_size(options.get("-b", "1m"), "-b"),
                 segments=_whole(options.get("-s", "1"), "-s"),
                 file_per_process="-F" in flags, collective="-c" in flags, fsync="-e" in flags,
                 writes=writes, reads=reads, existing="-E" in flags,
                 test_file=test_file, ignored=tuple(ignored), notes=notes)
    if not run.writes:
        raise UserError("IOR without -w (only -r): the read phase is not simulated")
    if run.block % run.transfer:
        raise UserError(f"IOR options -b {run.block} and -t {run.transfer}: the block must be "
                        "a whole number of transfers (IOR refuses it too)")
    return run


def _workload_file(path: str) -> tuple[str, tuple[str, ...]]:
    """IOR's -o as a workload's file name, which is relative to the run's directory: an absolute
    path (a tender's /lustre/scratch/ior-hard/file) keeps its last directory and file name,
    the directory being what a site's per-directory default layout goes by."""
    parts = [p for p in PurePosixPath(path).parts if p not in ("/", ".", "..")]
    if not parts:
        raise UserError(f"IOR option -o: expected a file name, got {path!r}")
    name = "/".join(parts[-2:])
    if name == path:
        return name, ()
    return name, (f"IOR option -o {path}: simulated as {name} in the run's directory",)


def _options(arguments: Sequence[str]) -> list[tuple[str, str | None]]:
    """(option, value or None) pairs: ``-t 2m``, ``-t2m``, ``-t=2m``, grouped flags ``-Cew``;
    long options (``--posix.odirect``) are back-end options, kept as ignored flags."""
    out: list[tuple[str, str | None]] = []
    items = list(arguments)
    i = 0
    while i < len(items):
        word = items[i]
        i += 1
        if word.startswith("--") and len(word) > 2:
            out.append(("-O", word))  # a back-end option: does not move bytes
            continue
        if not word.startswith("-") or len(word) < 2:
            raise UserError(f"IOR command line: unexpected {word!r} (options only; IOR takes "
                            "no positional arguments)")
        option, rest = word[:2], word[2:].removeprefix("=")
        if option in _VALUED:
            if not rest:
                if i >= len(items):
                    raise UserError(f"IOR option {option}: missing its value")
                rest, i = items[i], i + 1
            out.append((option, rest))
            continue
        for letter in word[1:]:
            flag = f"-{letter}"
            if flag not in _FLAGS:
                raise UserError(f"IOR option {flag}: not an IOR option this model reads "
                                f"(known: {' '.join(sorted(_VALUED | _FLAGS))})")
            out.append((flag, None))
    return out


def _whole(text: str, option: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise UserError(f"IOR option {option}: expected a whole number >= 1, got {text!r}")
    return int(text)


def ior_workload(run: IorRun, ranks: int, nodes: int, command: str) -> Workload:
    """The workload of ``run``'s write phase on ``ranks`` processes over ``nodes`` nodes."""
    if ranks < 1 or nodes < 1 or ranks % nodes:
        raise UserError(f"--ranks {ranks} --nodes {nodes}: expected whole nodes (ranks a "
                        "multiple of nodes, both >= 1)")
    api = _APIS[run.api]
    element = 8 if api == "hdf5" else 1
    if run.transfer % element:
        raise UserError(f"IOR -a HDF5 -t {run.transfer}: the transfer must be whole 8-byte "
                        "elements (IOR's HDF5 back end writes long integers)")
    writers = 1 if run.file_per_process else ranks
    transfers = run.block // run.transfer
    rows = 1 if transfers == 1 or writers == 1 else run.segments * writers
    dims = [run.segments * writers * run.block // element // rows]
    if rows > 1:
        dims.insert(0, rows)
    dataset = {"name": "data", "element_bytes": element, "dims": dims, "chunk_dims": None}
    session = {"name": f"{run.test_file}.%r" if run.file_per_process else run.test_file,
               "role": "checkpoint", "mode": "per-rank" if run.file_per_process else "shared",
               "api": api, "create": not run.existing, "datasets": [dataset],
               "calls": _calls(run, writers, element, rows > 1)}
    workload = {"iotwin_workload": 1, "name": "ior", "source": command, "ranks": ranks,
                "ranks_per_node": ranks // nodes, "files": [session]}
    return validate_workload(workload, "IOR workload")


#: more calls than this (segments, each of several transfers) make a workload too long to read
_MAX_CALLS = 10_000


def _calls(run: IorRun, writers: int, element: int, by_rows: bool) -> list[dict[str, Any]]:
    """Each transfer one call, repeated: a block of one transfer (IO500's hard phase) or a
    file of one writer is one array of transfers, rank r's k-th at (k x writers + r); a shared
    file of several transfers a block is (segment x writer) rows of blocks, one call per
    segment, its transfers repeated along the row."""
    transfers = run.block // run.transfer
    width = run.transfer // element
    transfer = "collective" if run.collective else "independent"

    def call(grid: list[int], block: list[int], origin: list[int], times: int,
             step: list[int]) -> dict[str, Any]:
        made: dict[str, Any] = {"write": ["data"], "transfer": transfer, "selections": [
            {"grid": grid, "block": block, "origin": origin}]}
        if times > 1:
            made["repeat"] = {"times": times, "origin_step": step}
        return made

    if not by_rows:
        times = run.segments * transfers
        calls = [call([writers], [width], [0], times, [writers * width])]
    elif run.segments > _MAX_CALLS:
        raise UserError(f"IOR -s {run.segments} with {transfers} transfers a block: more than "
                        f"{_MAX_CALLS} calls; give -b equal to -t, or fewer segments")
    else:
        calls = [call([writers, 1], [1, width], [k * writers, 0], transfers, [0, width])
                 for k in range(run.segments)]
    if run.fsync:
        calls.append({"flush": True})
    return calls


def written_cost(run: IorRun, limits: Limits) -> Cost:
    """The workload of ``run`` as written, estimated from its calls (one a segment when a
    block holds several transfers and the file is shared), refused beyond ``limits`` naming
    IOR's -s."""
    calls = min(run.segments, _MAX_CALLS) if run.block // run.transfer > 1 else 1
    driver = Driver("IOR -s", run.segments, f"{calls} calls written")
    return text_cost(calls * constant("documents", "bytes_per_ior_call"), driver, limits)


#: IO500's write phases as its rules and its script's defaults fix them (the volume aside)
IO500_PHASES = {
    "easy-write": "-a POSIX -C -e -w -F -t 2048k",
    "hard-write": "-a POSIX -C -e -w -t 47008 -b 47008",
}
IO500_SECONDS = 300  # IO500: a write phase runs for at least 300 s
#: where IO500 writes each phase's files (a platform's per-directory layouts apply there)
IO500_FILES = {"easy-write": "ior-easy/ior_file_easy", "hard-write": "ior-hard/IOR_file"}


def io500_arguments(phase: str, ranks: int, volume_bytes: int | None = None,
                    segments: int | None = None) -> list[str]:
    """IOR's arguments for IO500 phase ``phase`` writing about ``volume_bytes`` in all (or
    ``segments`` of the hard phase's records a process)."""
    if phase not in IO500_PHASES:
        raise UserError(f"--io500: expected one of {', '.join(IO500_PHASES)}, got {phase!r}")
    base = shlex.split(IO500_PHASES[phase])
    transfer = ior_size(base[base.index("-t") + 1], "-t")
    if segments is None and volume_bytes is None:
        raise UserError("--io500 needs the volume: --segments N, or a platform to write "
                        f"{IO500_SECONDS} s at its ceiling")
    if phase == "hard-write":
        count = segments or max(1, (volume_bytes or 0) // (ranks * transfer))
        return [*base, "-s", str(count)]
    per_rank = (segments or 1) * transfer if volume_bytes is None else volume_bytes // ranks
    transfers = max(1, per_rank // transfer)
    return [*base, "-b", f"{transfers * transfer // 2**10}k"]
