"""Each rank's bytes in a captured MPI-IO file session, as the capture describes them
(sim-models/WORKLOAD.md, api: mpiio: the session's datasets laid end to end from offset 0)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from support.file_layout import merged


def hyperslabs(selection: dict, rank: int, dims: list[int]) -> Iterator[tuple[list, list]]:
    """The boxes (start, count) rank ``rank`` writes in one captured selection."""
    if "grid" in selection:
        grid, block = selection["grid"], selection["block"]
        origin = selection.get("origin", [0] * len(grid))
        coords, rest = [], rank
        for extent in reversed(grid):
            coords.insert(0, rest % extent)
            rest //= extent
        yield [o + c * b for o, c, b in zip(origin, coords, block, strict=True)], list(block)
        return
    for run in selection["runs"]:
        first, n = run["ranks"][:2]
        step = run["ranks"][2] if len(run["ranks"]) > 2 else 1
        if rank < first or (rank - first) % step or (rank - first) // step >= n:
            continue
        k = (rank - first) // step
        start = [s + k * d for s, d in zip(run["start"], run.get("start_step", [0] * len(dims)),
                                           strict=True)]
        stride = run.get("stride", [1] * len(dims))
        block = run.get("block", [1] * len(dims))
        for index in np.ndindex(*run["count"]):   # each block of a strided hyperslab
            yield [s + i * t for s, i, t in zip(start, index, stride, strict=True)], block


def repetitions(call: dict) -> Iterator[list[dict]]:
    """The selections of each time a call is made: a `repeat` moves every (regular)
    selection's origin by `origin_step` each time (WORKLOAD.md)."""
    selections = call.get("selections", [])
    repeat = call.get("repeat", {"times": 1})
    for k in range(repeat["times"]):
        if k == 0:
            yield selections
            continue
        yield [{**selection, "origin": [o + k * step for o, step in zip(
                    selection.get("origin", [0] * len(selection["grid"])),
                    repeat["origin_step"], strict=True)]}
               for selection in selections]


def rank_writes(record: dict, rank: int) -> Iterator[list[tuple[int, int]]]:
    """The (offset, length) runs of each write ``rank`` takes part in, in the capture's order
    of calls (a rank's k-th write of a dataset is its k-th call there), adjacent runs of one
    write joined."""
    base, bases = 0, {}
    for dataset in record["datasets"]:
        bases[dataset["name"]] = base
        base += int(np.prod(dataset["dims"])) * dataset["element_bytes"]
    datasets = {d["name"]: d for d in record["datasets"]}
    for call in record["calls"]:
        for selections in repetitions(call):
            runs: list[tuple[int, int]] = []
            for name, selection in zip(call.get("write", []), selections, strict=True):
                dims, element = datasets[name]["dims"], datasets[name]["element_bytes"]
                for start, count in hyperslabs(selection, rank, dims):
                    for corner in np.ndindex(*count[:-1]):   # one run per row of the box
                        index = [s + c for s, c in zip(start[:-1], corner, strict=True)]
                        linear = int(np.ravel_multi_index([*index, start[-1]], dims))
                        runs.append((bases[name] + linear * element, count[-1] * element))
            if runs:
                yield merged(runs)


def captured_bytes(record: dict, rank: int) -> list[tuple[int, int]]:
    """(offset, length) runs of the file that ``rank`` writes in a captured MPI-IO session."""
    return merged({run for runs in rank_writes(record, rank) for run in runs})
