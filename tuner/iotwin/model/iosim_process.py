"""How iosim is run as a process (sim-models/IOSIM.md): its command line, its output, and the
long-lived `iosim --serve` a process keeps for its batches.

Starting iosim costs about 65 ms of CPU, most of it the dynamic linker resolving SimGrid's,
ns-3's and HDF5's symbols; a campaign's refits simulate small batches (a median of 8 configs,
172 of them in a vpic-io-4 campaign), so a process keeps its servers (per binary and worker
count, one for each thread that simulates at the same time) and sends them its batches. A
served batch is simulated as a one-shot run simulates it (its workers forked for it alone):
the same answer, bit for bit.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import IO, Any

from iotwin.core import paths
from iotwin.core.errors import UserError


def argv(jobs: int, simulator: str | None = None) -> list[str]:
    """iosim reading its input from stdin with ``jobs`` worker processes."""
    return [simulator or str(paths.simulator_binary()), "--jobs", str(jobs), "-"]


def results(stdout: str) -> list[dict[str, Any]]:
    """One entry per config, in input order."""
    return list(json.loads(stdout)["results"])


class Server:
    """One `iosim --serve`: a batch per line in, its answer per line out; one caller at a
    time."""

    def __init__(self, binary: Path, jobs: int) -> None:
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (the server's life)
        self._process = subprocess.Popen(
            [str(binary), "--serve", "--jobs", str(jobs)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._stderr, text=True)

    @property
    def alive(self) -> bool:
        return self._process.poll() is None

    def answers(self, payload: Any) -> list[dict[str, Any]]:
        """The batch's entries, one per config, in order. UserError if iosim refuses the batch
        or dies (the server is then closed)."""
        try:
            reply = self._exchange(json.dumps(payload, separators=(",", ":")) + "\n")
        except BaseException:  # a reply half read, or an interrupt: the state is unknown
            self.close()
            raise
        if "error" in reply:
            raise UserError(f"iosim failed: iosim: {reply['error']}")
        return list(reply["results"])

    def _exchange(self, line: str) -> dict[str, Any]:
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(line)
            stdin.flush()
            answer = stdout.readline()
        except OSError:  # a broken pipe: the server has died
            answer = ""
        if not answer:
            raise UserError(f"iosim failed: {self._error_output()}")
        found: dict[str, Any] = json.loads(answer)
        return found

    def _error_output(self) -> str:
        self._process.wait(timeout=60)
        self._stderr.seek(0)
        text = self._stderr.read().decode(errors="replace").strip()[-2000:]
        return text or f"iosim ended with status {self._process.returncode}"

    def close(self) -> None:
        """Ends the server: end of input, then a kill if it does not leave."""
        self.forget()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    def forget(self) -> None:
        """Closes this process's ends of the pipes (in a forked child: its copies, leaving the
        server to the parent)."""
        for stream in (self._process.stdin, self._process.stdout, self._stderr):
            if stream is not None:
                with contextlib.suppress(OSError):  # what was left to flush to a dead server
                    stream.close()


_Key = tuple[str, int, int, int]  # the binary (path, size, mtime) and the worker count
_idle: dict[_Key, list[Server]] = {}  # servers between batches
_started: list[Server] = []  # every server this process started
_lock = threading.Lock()


def served(payload: Any, jobs: int) -> list[dict[str, Any]]:
    """iosim's entries for a prepared input, from an idle server of this process for the
    current binary and ``jobs`` (one is started when none is idle: threads that simulate at
    once each have one; one that died or a binary rebuilt is not reused)."""
    binary = paths.simulator_binary()
    stat = binary.stat()
    key = (str(binary), stat.st_size, stat.st_mtime_ns, jobs)
    server = _take(key) or _start(binary, jobs)
    try:
        return server.answers(payload)
    finally:
        if server.alive:
            with _lock:
                _idle.setdefault(key, []).append(server)


def _take(key: _Key) -> Server | None:
    with _lock:
        idle = _idle.get(key, [])
        while idle:
            server = idle.pop()
            if server.alive:
                return server
    return None


def _start(binary: Path, jobs: int) -> Server:
    server = Server(binary, jobs)
    with _lock:
        for ended in [s for s in _started if not s.alive]:
            ended.close()
            _started.remove(ended)
        _started.append(server)
    return server


def close_servers() -> None:
    """Ends this process's iosim servers and waits for them: what they used then counts in
    the process's children's resource usage (``getrusage(RUSAGE_CHILDREN)``), as a one-shot
    iosim's did once it ended. The next batch starts a server again."""
    with _lock:
        for server in _started:
            server.close()
        _started.clear()
        _idle.clear()


def _forget_all() -> None:
    global _lock
    _lock = threading.Lock()  # another thread may have held it at the fork
    for server in _started:
        server.forget()
    _started.clear()
    _idle.clear()


atexit.register(close_servers)
os.register_at_fork(after_in_child=_forget_all)
