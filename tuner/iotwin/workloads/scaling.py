"""A workload at another rank count: capture small, predict big.

Weak scaling keeps each writer's block and grows the datasets; strong scaling keeps the
datasets and splits them among more writers. What a program would do at N ranks is inferred
from what it did at R, and only where the workload says it unambiguously:

    for every regular selection or decomposition {grid: g, ...} of a shared file:
        the program's process grid rule, the first of
          one axis:     all R writers along the one axis where g is R   -> N along it
          balanced:     g is MPI_Dims_create(R, axes) in g's axis order  -> the same for N
        is the one that gives g at R (else: refused, naming the dataset)
    a dataset's extent along an axis the grid spans follows (weak: grid x block);
    a chunk extent equal to the dataset's or the block's along a scaled axis follows it
    a selection naming a fixed set of ranks (a table rank 0 writes) stays as it is

Explicit per-rank runs naming many writers, N-M files and writers' origins along a scaled axis
say nothing of the pattern at other scales: such a workload is refused with the reason.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from iotwin.core.errors import UserError
from iotwin.core.mpi_flavours import DEFAULT_MPI
from iotwin.workloads.process_grids import dims_create
from iotwin.workloads.types import Workload
from iotwin.workloads.workload import validate_workload

Scaling = Literal["weak", "strong"]


@dataclass(frozen=True)
class GridRule:
    """How a program lays out its writers: along one axis, or balanced over all axes (the axis
    order of MPI_Dims_create's factors: non-increasing or non-decreasing)."""

    kind: Literal["one-axis", "balanced"]
    axis: int = 0
    ascending: bool = False

    def grid(self, ranks: int, axes: int, mpi: str) -> list[int]:
        if self.kind == "one-axis":
            return [ranks if a == self.axis else 1 for a in range(axes)]
        factors = dims_create(ranks, axes, mpi)
        return sorted(factors) if self.ascending else factors

    def describe(self) -> str:
        if self.kind == "one-axis":
            return f"all writers along axis {self.axis}"
        order = "ascending" if self.ascending else "descending"
        return f"MPI_Dims_create over every axis, {order}"


def infer_rule(grid: Sequence[int], ranks: int, new_ranks: int, mpi: str, where: str
               ) -> GridRule:
    """The rule that gives ``grid`` for ``ranks`` writers; UserError naming ``where`` if none
    does, or if rules that all give it disagree at ``new_ranks``."""
    axes = len(grid)
    candidates = [GridRule("one-axis", axis=a) for a in range(axes) if grid[a] == ranks]
    candidates += [GridRule("balanced", ascending=up) for up in (True, False)]
    matching = [rule for rule in candidates
                if list(grid) == rule.grid(ranks, axes, mpi) and math.prod(grid) == ranks]
    if not matching:
        raise UserError(f"{where}: its writers' grid {list(grid)} for {ranks} ranks is neither "
                        "one axis nor MPI_Dims_create's: cannot tell what it is at other scales")
    answers = {tuple(rule.grid(new_ranks, axes, mpi)) for rule in matching}
    if len(answers) > 1:
        raise UserError(f"{where}: its writers' grid {list(grid)} for {ranks} ranks fits "
                        f"{' and '.join(rule.describe() for rule in matching)}, which disagree "
                        f"at {new_ranks} ranks ({', '.join(map(str, sorted(answers)))}): "
                        "capture at a rank count that tells them apart")
    return matching[0]


@dataclass
class _Scaler:
    old: int
    new: int
    mode: Scaling
    mpi: str
    rules: list[str]

    def selection(self, sel: Mapping[str, Any], where: str) -> tuple[dict[str, Any], list[float]]:
        """The scaled selection and, per axis, the factor its covered extent grows by."""
        if "runs" in sel:
            return self._runs(sel, where)
        grid = list(sel["grid"])
        rule = infer_rule(grid, self.old, self.new, self.mpi, where)
        self.rules.append(f"{where}: {rule.describe()}")
        new_grid = rule.grid(self.new, len(grid), self.mpi)
        out = {k: copy.deepcopy(v) for k, v in sel.items() if k not in ("block", "dims",
                                                                          "extents")}
        out["grid"] = new_grid
        extent = _extent(sel, where)
        if self.mode == "weak":
            block = _block(sel, where)
            out["block"] = block
            growth = [n * b / e for n, b, e in zip(new_grid, block, extent, strict=True)]
        else:
            out.update(_split(extent, new_grid))
            growth = [1.0] * len(grid)
        if "origin" in sel:
            out["origin"] = scaled_offsets(sel["origin"], extent, growth, f"{where} origin")
        return out, growth

    def _runs(self, sel: Mapping[str, Any], where: str) -> tuple[dict[str, Any], list[float]]:
        for run in sel["runs"]:
            if [*run["ranks"], 1][1] > 1:
                raise UserError(f"{where}: explicit runs of several writers: cannot tell the "
                                "pattern at other scales")
        axes = len(sel["runs"][0]["start"])
        return copy.deepcopy(dict(sel)), [1.0] * axes


def scaled_offsets(offsets: Sequence[int], extent: Sequence[int], growth: Sequence[float],
                   where: str) -> list[int]:
    """A selection's origin or a repetition's step at the new scale: whole tiles of the
    selection's extent stay whole tiles of the grown extent (an interleaved pattern: rank r's
    k-th record at k x ranks + r); an offset on a growing axis that is no whole number of
    tiles has no meaning at another scale."""
    out = []
    for offset, size, grows in zip(offsets, extent, growth, strict=True):
        if grows == 1.0:
            out.append(int(offset))
        elif offset % size:
            raise UserError(f"{where}: {offset} is not a whole number of the writers' extent "
                            f"{size} on an axis that grows: cannot tell where it lies at "
                            "other scales")
        else:
            out.append(round(offset // size * size * grows))
    return out


def scale_workload(workload: Workload, ranks: int, mode: Scaling = "weak"
                   ) -> tuple[Workload, list[str]]:
    """``workload`` at ``ranks`` ranks, and how each selection's grid was read."""
    old = int(workload["ranks"])
    if ranks < 1:
        raise UserError(f"--ranks: expected a positive number of ranks, got {ranks}")
    scaler = _Scaler(old, ranks, mode, str(workload.get("mpi", DEFAULT_MPI)), [])
    out = copy.deepcopy(dict(workload))
    out["ranks"] = ranks
    out["source"] = f"{workload.get('source', '')} (scaled {mode} from {old} to {ranks} ranks)"
    out["files"] = [_session(s, scaler, f"files[{i}]") for i, s in enumerate(workload["files"])]
    return validate_workload(out, f"the workload scaled to {ranks} ranks"), scaler.rules


def _session(session: Mapping[str, Any], scaler: _Scaler, where: str) -> dict[str, Any]:
    mode = session.get("mode", "shared")
    if mode == "per-rank":
        return copy.deepcopy(dict(session))  # each rank's own file is unchanged
    if mode != "shared":
        raise UserError(f"{where}: an N-M file ({mode}): cannot tell its groups at other scales")
    out = copy.deepcopy(dict(session))
    growth: dict[str, list[float]] = {}
    if "calls" in session:
        for c, call in enumerate(out["calls"]):
            steps = []
            for s, sel in enumerate(call.get("selections", [])):
                name = call["write"][s]
                scaled, grows = scaler.selection(sel, f"{where}.calls[{c}] {name}")
                call["selections"][s] = scaled
                growth[name] = _agree(growth.get(name), grows, f"{where} {name}")
                if "repeat" in call and "grid" in sel:
                    steps.append(scaled_offsets(call["repeat"]["origin_step"],
                                                _extent(sel, where), grows,
                                                f"{where}.calls[{c}].repeat.origin_step"))
            if steps:
                if any(step != steps[0] for step in steps):
                    raise UserError(f"{where}.calls[{c}].repeat: its selections scale its "
                                    "step differently")
                call["repeat"]["origin_step"] = steps[0]
    for d, dataset in enumerate(out["datasets"]):
        name = dataset["name"]
        if "decomposition" in dataset:
            scaled, grows = scaler.selection(dataset["decomposition"], f"{where} {name}")
            dataset["decomposition"] = scaled
            growth[name] = grows
        if name in growth and "dims" in dataset:
            _grow_dataset(dataset, growth[name], f"{where}.datasets[{d}]")
    return out


def _grow_dataset(dataset: dict[str, Any], growth: Sequence[float], where: str) -> None:
    old = list(dataset["dims"])
    new = [round(e * g) for e, g in zip(old, growth, strict=True)]
    chunks = dataset.get("chunk_dims")
    if chunks:
        dataset["chunk_dims"] = [_chunk(c, e, n, where) for c, e, n in
                                 zip(chunks, old, new, strict=True)]
    dataset["dims"] = new


def _chunk(chunk: int, old: int, new: int, where: str) -> int:
    if old == new:
        return chunk
    if chunk == old:
        return new  # a chunk spanning the whole axis spans it still
    raise UserError(f"{where}: chunk extent {chunk} of an axis that grows from {old} to {new}: "
                    "cannot tell how the program chooses its chunks at other scales")


def _agree(seen: list[float] | None, grows: list[float], where: str) -> list[float]:
    if seen is not None and any(abs(a - b) > 1e-9 for a, b in zip(seen, grows, strict=True)):
        raise UserError(f"{where}: written by calls that scale it differently")
    return grows


def _extent(sel: Mapping[str, Any], where: str) -> list[int]:
    grid = list(sel["grid"])
    if "block" in sel:
        return [g * b for g, b in zip(grid, sel["block"], strict=True)]
    if "dims" in sel:
        return list(sel["dims"])
    if "extents" in sel:
        return [sum(axis) for axis in sel["extents"]]
    raise UserError(f"{where}: a selection without block, dims or extents")


def _block(sel: Mapping[str, Any], where: str) -> list[int]:
    if "block" in sel:
        return list(sel["block"])
    extent = _extent(sel, where)
    if all(e % g == 0 for e, g in zip(extent, sel["grid"], strict=True)):
        return [e // g for e, g in zip(extent, sel["grid"], strict=True)]
    raise UserError(f"{where}: writers' blocks of unequal sizes: weak scaling cannot keep them")


def _split(extent: Sequence[int], grid: Sequence[int]) -> dict[str, Any]:
    """A strong-scaled selection: the same extent over the new grid (even blocks if they are)."""
    if all(e % g == 0 for e, g in zip(extent, grid, strict=True)):
        return {"block": [e // g for e, g in zip(extent, grid, strict=True)]}
    return {"dims": list(extent)}
