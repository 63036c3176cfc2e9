"""The byte ranges a real HDF5 file holds and the ones iosim maps a workload to."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable
from typing import Any

from iotwin.core import paths


def merged(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """(start, length) ranges in order, adjacent ones joined."""
    out: list[list[int]] = []
    for start, length in sorted(ranges):
        if out and out[-1][1] == start:
            out[-1][1] = start + length
        else:
            out.append([start, start + length])
    return [(a, b - a) for a, b in out]


def real_extents(dataset: Any) -> list[tuple[int, int]]:
    if dataset.chunks is None:
        return [(dataset.id.get_offset(), dataset.id.get_storage_size())]
    infos = (dataset.id.get_chunk_info(i) for i in range(dataset.id.get_num_chunks()))
    return [(info.byte_offset, info.size) for info in infos]


def simulate(payload: dict[str, Any]) -> dict[str, Any]:
    """iosim's one result. It warns on stderr when it cannot read a dataset's chunk B-tree from
    its scratch file and queries the library chunk by chunk instead: stderr must stay empty."""
    done = subprocess.run([str(paths.simulator_binary()), "--jobs", "1", "-"],
                          input=json.dumps(payload), capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    [result] = json.loads(done.stdout)["results"]
    return dict(result)
