"""Progress lines from processes that share one stderr."""

from __future__ import annotations

import os
import subprocess
import sys

#: a worker writing numbered lines through say(), as a benchmark's campaigns do
_WRITER = """
import sys
from iotwin.core.progress import say
for i in range(2000):
    say(sys.stderr, f"worker {sys.argv[1]} line {i} " + "x" * 200)
"""


def test_lines_of_two_unbuffered_processes_on_one_stream_stay_whole() -> None:
    """Python unbuffered (PYTHONUNBUFFERED, as CI shells and many sites set it) writes what
    print() is given apart from its newline; each line must be one write."""
    read, write = os.pipe()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    workers = [subprocess.Popen([sys.executable, "-c", _WRITER, name], stderr=write, env=env)
               for name in ("a", "b")]
    os.close(write)
    with os.fdopen(read) as stream:
        lines = stream.read().splitlines()
    assert [w.wait(timeout=60) for w in workers] == [0, 0]
    expected = {f"worker {name} line {i} " + "x" * 200 for name in "ab" for i in range(2000)}
    assert len(lines) == len(expected) and set(lines) == expected
