"""The three readers of the workload format, each asked for its verdict on files: the Python
validator (iotwin.workloads.workload), iosim (`iosim --check-workload`) and the replay proxy
(`replay --check`). Each verdict is accepted, refused or cannot-run (a valid workload the reader
does not run), with the one-line error or the normal form. The C readers run for real, many
files per process, under a time-out and an address-space cap: a signal, a time-out, a missing
verdict or a message of more than one line fails the test that asked (ReaderFailure)."""

from __future__ import annotations

import json
import re
import resource
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.workloads.workload import check_workload_file, normalised_workload

#: the address space a C reader may take (its libraries mapped included)
MEMORY_CAP = 2 * 2**30
#: seconds a C reader may take for one batch of files
TIME_LIMIT = 120


class ReaderFailure(AssertionError):
    """A reader ended otherwise than with a verdict: signal, time-out, traceback, garbage."""


@dataclass(frozen=True)
class Verdict:
    kind: str  # accepted, refused, cannot-run
    error: str = ""
    normal: Any = None

    @property
    def accepted(self) -> bool:
        return self.kind != "refused"

    @property
    def message(self) -> str:
        return self.error


def python_verdicts(files: Sequence[Path]) -> list[Verdict]:
    out = []
    for path in files:
        try:
            normal = check_workload_file(path, normalised_workload)
        except UserError as error:
            out.append(Verdict("refused", str(error)))
        else:
            out.append(Verdict("accepted", "", normal))
    return out


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _c_verdicts(argv: list[str], files: Sequence[Path]) -> list[Verdict]:
    if not files:
        return []
    try:
        done = subprocess.run([*argv, *map(str, files)], capture_output=True, text=True,
                              timeout=TIME_LIMIT, preexec_fn=_cap_memory, check=False)
    except subprocess.TimeoutExpired as expired:
        raise ReaderFailure(f"{argv[0]} took over {TIME_LIMIT} s on {len(files)} files") \
            from expired
    if done.returncode < 0 or done.returncode not in (0, 2, 3):
        raise ReaderFailure(f"{argv[0]} ended with status {done.returncode}: {done.stderr[-2000:]}")
    lines = done.stdout.splitlines()
    if len(lines) != len(files):
        raise ReaderFailure(f"{argv[0]}: {len(lines)} verdicts for {len(files)} files")
    verdicts = []
    for line, path in zip(lines, files, strict=True):
        entry = json.loads(line)
        if entry["file"] != str(path) or "\n" in entry.get("error", ""):
            raise ReaderFailure(f"{argv[0]}: a verdict not of {path}, or of several lines: {line}")
        verdicts.append(Verdict(entry["verdict"], entry.get("error", ""), entry.get("normal")))
    return verdicts


def iosim_verdicts(files: Sequence[Path]) -> list[Verdict]:
    return _c_verdicts([str(paths.simulator_binary()), "--check-workload"], files)


def replay_verdicts(files: Sequence[Path]) -> list[Verdict]:
    return _c_verdicts([str(paths.kernel_binary("replay")), "--check"], files)


READERS: dict[str, Callable[[Sequence[Path]], list[Verdict]]] = {
    "python": python_verdicts, "iosim": iosim_verdicts, "replay": replay_verdicts}
#: iosim reads JSON only (its input): the readers of YAML text
YAML_READERS = ("python", "replay")


def verdicts(files: Sequence[Path], readers: Sequence[str] = tuple(READERS)
             ) -> dict[str, list[Verdict]]:
    """Each reader's verdicts on ``files``, in order."""
    return {name: READERS[name](files) for name in readers}


_UNWRITTEN = re.compile("[\x7f-\x9f\u2028\u2029\ufffe\uffff]")


def workload_json(document: Any) -> str:
    """JSON text every reader reads alike: characters as themselves (YAML has no surrogate
    pairs), but those the format's text may not hold as themselves escaped
    (iotwin.core.yaml_files); indented, each key and list item on a line of its own
    (:func:`json_lines`)."""
    text = json.dumps(document, ensure_ascii=False, indent=1)
    return _UNWRITTEN.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def json_lines(document: Any) -> dict[str, int]:
    """The line each key path of ``document`` (``files[0].name``; ``""`` the whole) starts on
    in :func:`workload_json`'s text, from json's indented layout: a key's value starts on the
    key's line, a non-empty list or mapping ends on a line of its own."""
    lines: dict[str, int] = {}

    def lay_out(value: Any, path: str, line: int) -> int:
        lines[path] = line
        entries = (value.items() if isinstance(value, dict)
                   else enumerate(value) if isinstance(value, list) else ())
        for key, item in entries:
            inner = f"{path}[{key}]" if isinstance(key, int) else (
                f"{path}.{key}" if path else str(key))
            line = lay_out(item, inner, line + 1)
        return line + 1 if isinstance(value, dict | list) and value else line

    lay_out(document, "", 1)
    return lines


def same_content(a: Any, b: Any) -> bool:
    """Two normal forms are the same document (numbers compared by value)."""
    return json.loads(json.dumps(a)) == json.loads(json.dumps(b))
