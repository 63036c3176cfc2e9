"""iosim's answers kept on disk: a config simulated once under a model is not simulated again.

iosim answers each config on its own (from time zero, with its own phase cache: a batch
answers alike in any order and with any number of jobs, sim-models/IOSIM.md), so an answer
depends only on the simulator, the platform model as calibrated, the placed workload, the
options and the config: together, its key. Many campaigns that screen the same configs under
the same model (a benchmark's seeds, each in a process of its own) share one memo file; each
asks iosim only for what none of them has asked before.

    with memoised(path):
        simulate(...)  # iotwin.model.sim.run_iosim reads its answers through the memo
"""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from iotwin.core import paths
from iotwin.core.hashing import canonical_json
from iotwin.model import sim_cluster

Answers = list[dict[str, Any]]

_active: list[SimulationMemo] = []  # the memo of the innermost `memoised`, if any


def _write_ahead_log(db: sqlite3.Connection, waits_s: float = 60.0) -> None:
    """The memo's file in WAL mode, so that readers and a writer do not wait for each other.
    Processes that open a new memo at the same moment each ask for the switch; SQLite answers
    a switch that would deadlock with "locked" at once, without its busy timeout, so it is
    asked again until the first one's switch has taken."""
    deadline = time.monotonic() + waits_s
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


class SimulationMemo:
    """One file of answers by key; several processes, and threads of one (a calibration
    simulates its workloads side by side), may read and add to it at once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.simulated = 0  # configs this process asked iosim for (not found in the memo)
        self._db = sqlite3.connect(path, timeout=60.0, isolation_level=None,
                                   check_same_thread=False)
        self._lock = threading.Lock()
        _write_ahead_log(self._db)
        self._db.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, "
                         "answer TEXT NOT NULL)")

    def answers(self, payload: Mapping[str, Any], simulate: Callable[[dict[str, Any]], Answers]
                ) -> Answers:
        """iosim's answer to each config of ``payload`` (iotwin.model.sim.simulator_input):
        the memo's, and ``simulate``'s for the configs it lacks (then kept)."""
        keys = _keys(payload)
        found = self._found(keys)
        missing = [i for i, key in enumerate(keys) if key not in found]
        if missing:
            fresh = simulate({**payload, "configs": [payload["configs"][i] for i in missing]})
            self.simulated += len(missing)
            new = {keys[i]: answer for i, answer in zip(missing, fresh, strict=True)}
            with self._lock:
                self._db.executemany("INSERT OR IGNORE INTO answers VALUES (?, ?)",
                                     [(key, json.dumps(answer)) for key, answer in new.items()])
            found.update(new)
        return [found[key] for key in keys]

    def close(self) -> None:
        self._db.close()

    def _found(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):  # under SQLite's limit of bound variables
            chunk = unique[start:start + 500]
            with self._lock:
                rows = self._db.execute(f"SELECT key, answer FROM answers WHERE key IN "
                                        f"({','.join('?' * len(chunk))})", chunk).fetchall()
            found.update((key, json.loads(answer)) for key, answer in rows)
        return found


@contextmanager
def memoised(path: Path) -> Iterator[SimulationMemo]:
    """Every simulation within reads and adds to the memo at ``path``."""
    memo = SimulationMemo(path)
    _active.append(memo)
    try:
        yield memo
    finally:
        _active.remove(memo)
        memo.close()


def active() -> SimulationMemo | None:
    return _active[-1] if _active else None


def _keys(payload: Mapping[str, Any]) -> list[str]:
    """Each config's key: everything its answer depends on."""
    shared = canonical_json({"simulator": simulator_identity(), "platform": payload["platform"],
                             "workload": payload["workload"], "options": payload["options"]})
    model = hashlib.sha256(shared.encode())
    keys = []
    for config in payload["configs"]:
        key = model.copy()
        key.update(canonical_json(config).encode())
        keys.append(key.hexdigest())
    return keys


def simulator_identity() -> str:
    """Which iosim answers: the cluster's (by its address), else the local binary's digest.
    Part of every kept answer's key: a rebuilt simulator's answers are not the old one's."""
    address = sim_cluster.cluster_address()
    if address:
        return f"cluster {address}"
    binary = paths.simulator_binary()
    stat = binary.stat()
    return _digest(binary, stat.st_size, stat.st_mtime_ns)


@functools.cache
def _digest(binary: Path, size: int, mtime_ns: int) -> str:
    """The binary's content digest, read once per process and build (size, mtime)."""
    return hashlib.sha256(binary.read_bytes()).hexdigest()
