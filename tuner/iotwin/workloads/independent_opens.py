"""A file several processes opened each on its own (POSIX: an open is no collective), merged
from their capture records into one record of the file's writers.

The interposer captures a POSIX data file per process (``comm_size`` 1, interposer/README.md):
one byte region ``bytes@0`` and each write a box of it. Where several processes wrote the same
file (IOR's shared file without ``-F``), their records become one: the region as far as the
farthest process wrote, and the k-th write of every process one independent call whose
selection names each process's bytes (runs of world ranks; ranks whose k-th writes are equal
in size and equally spaced one run, as IOR's segments are). A process's repeated write is
unrolled first: repetitions of different processes cannot be one repeated call. The call's
``compute_before_s`` is the slowest process's. The processes' syncs (fsync, IOR's ``-e``
before each close) are one flush after the writes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Box = tuple[int, int]   # (start, count) in bytes@0


def _boxes(selection: Mapping[str, Any], shift: int) -> list[Box]:
    """The boxes of a one-process selection of a one-dimensional region, moved by ``shift``."""
    if "grid" in selection:
        return [(int(selection.get("origin", [0])[0]) + shift, int(selection["block"][0]))]
    boxes = []
    for run in selection["runs"]:
        start, block = int(run["start"][0]), int(run.get("block", [1])[0])
        stride = int(run.get("stride", [1])[0])
        if block == 1:   # a box: count elements from start
            boxes.append((start + shift, int(run["count"][0])))
            continue
        boxes.extend((start + k * stride + shift, block) for k in range(int(run["count"][0])))
    return boxes


def unrolled(calls: Sequence[Mapping[str, Any]]) -> list[tuple[float, list[Box]]]:
    """One process's writes as (compute before, boxes), repetitions unrolled; flushes left
    out (see _flush)."""
    writes: list[tuple[float, list[Box]]] = []
    for call in calls:
        if "write" not in call:
            continue
        [selection] = call["selections"]
        repeat = call.get("repeat") or {"times": 1, "origin_step": [0]}
        for k in range(int(repeat["times"])):
            gap = (float(call.get("compute_before_s", 0.0)) if k == 0
                   else float(repeat.get("compute_between_s", 0.0)))
            writes.append((gap, _boxes(selection, k * int(repeat["origin_step"][0]))))
    return writes


def _runs(boxes: Sequence[tuple[int, Box]]) -> list[dict[str, Any]]:
    """(world rank, box) pairs as runs: consecutive ranks with equal counts and equally spaced
    starts one run."""
    runs: list[dict[str, Any]] = []
    for rank, (start, count) in sorted(boxes):
        last = runs[-1] if runs else None
        if last and last["count"] == [count] and rank == last["_next_rank"]:
            step = last.get("start_step", [start - last["start"][0]])[0]
            if step > 0 and start == last["start"][0] + last["ranks"][1] * step:
                last["ranks"][1] += 1
                last["start_step"] = [step]
                last["_next_rank"] = rank + 1
                continue
        runs.append({"ranks": [rank, 1, 1], "start": [start], "count": [count],
                     "_next_rank": rank + 1})
    for run in runs:
        del run["_next_rank"]
    return runs


def _flush(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The flush after the merged writes when any process synced the file (the slowest
    process's computation before its sync before it), else none."""
    gaps = [float(call.get("compute_before_s", 0.0)) for record in records
            for call in record["calls"] if call.get("flush")]
    return [{"flush": True, "compute_before_s": max(gaps)}] if gaps else []


def merge_independent(records: Sequence[Mapping[str, Any]], world: int) -> dict[str, Any]:
    """One record of the file the ``records`` (one per process, each ``comm_size`` 1) wrote,
    as a file of all ``world`` ranks (those that did not write it are named in no run)."""
    first = min(records, key=lambda r: float(r["t_open"]))
    per_rank = {int(r["world_rank"]): unrolled(r["calls"]) for r in records}
    extent = max((int(d["dims"][0]) for r in records for d in r["datasets"]), default=0)
    calls = []
    for k in range(max((len(w) for w in per_rank.values()), default=0)):
        taking_part = {rank: writes[k] for rank, writes in per_rank.items() if k < len(writes)}
        boxes = [(rank, box) for rank, (_, boxes) in taking_part.items() for box in boxes]
        calls.append({"write": ["bytes@0"], "transfer": "independent",
                      "compute_before_s": max(gap for gap, _ in taking_part.values()),
                      "selections": [{"runs": _runs(boxes)}]})
    dataset = {**first["datasets"][0], "dims": [extent]} if extent else None
    return {**first, "comm_size": world,
            "how": "create" if any(r["how"] == "create" for r in records) else first["how"],
            "t_open": min(float(r["t_open"]) for r in records),
            "t_close_done": max(float(r["t_close_done"]) for r in records),
            "datasets": [dataset] if dataset else [], "calls": calls + _flush(records),
            "unsupported": sorted({u for r in records for u in r.get("unsupported", [])})}
