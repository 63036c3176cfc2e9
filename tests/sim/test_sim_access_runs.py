"""iosim cuts every writer's block of a contiguous dataset into the file's byte runs.

The runs come out in file order without a sort; each writer's must be exactly the runs of its
block in a row-major array (touching runs of one writer as one), whatever the decomposition:
split along any axes, uneven, with empty slots, or not split at all.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from iotwin.model.platforms import load_platform
from iotwin.model.sim import run_iosim, simulator_input

ELEMENT = 8


def expected_runs(grid: list[int], extents: list[list[int]]) -> set[tuple[int, int, int]]:
    """Each writer's (offset, length, writer) runs: its elements, touching ones merged."""
    dims = [sum(axis) for axis in extents]
    starts = [[sum(axis[:s]) for s in range(len(axis))] for axis in extents]
    elements: list[tuple[int, int, int]] = []
    for writer, slots in enumerate(itertools.product(*(range(g) for g in grid))):
        ranges = [range(starts[a][s], starts[a][s] + extents[a][s]) for a, s in enumerate(slots)]
        elements += [(_linear(index, dims) * ELEMENT, ELEMENT, writer)
                     for index in itertools.product(*ranges)]
    return _merged(elements)


def _linear(index: tuple[int, ...], dims: list[int]) -> int:
    lin = 0
    for i, d in zip(index, dims, strict=True):
        lin = lin * d + i
    return lin


def _merged(pieces: list[tuple[int, int, int]]) -> set[tuple[int, int, int]]:
    runs: list[list[int]] = []
    for offset, length, writer in sorted(pieces):
        if runs and runs[-1][2] == writer and runs[-1][0] + runs[-1][1] == offset:
            runs[-1][1] += length
        else:
            runs.append([offset, length, writer])
    return {(o, n, w) for o, n, w in runs}


def simulated_runs(grid: list[int], extents: list[list[int]]) -> list[tuple[int, int, int]]:
    ranks = 1
    for g in grid:
        ranks *= g
    workload: dict[str, Any] = {
        "iotwin_workload": 1, "name": "runs", "ranks": ranks,
        "files": [{"name": "runs.dat", "mode": "shared", "api": "mpiio", "create": True,
                   "datasets": [{"name": "d", "element_bytes": ELEMENT,
                                 "decomposition": {"grid": grid, "extents": extents},
                                 "transfer": "independent"}]}]}
    payload = simulator_input(load_platform("local"), workload, [{}], {"report_ranges": True})
    [result] = run_iosim(payload, jobs=1)
    assert result["ok"], result.get("error")
    [dataset] = result["breakdown"]["dataset_ranges"]
    return [(int(o), int(n), int(w)) for o, n, w in dataset["ranges"]]


DECOMPOSITIONS = [
    ([4], [[3, 1, 4, 2]]),                     # 1-D: one run per writer
    ([1, 1], [[5], [7]]),                      # one writer: the whole array
    ([2, 3], [[2, 3], [4, 1, 2]]),             # split on the last axis: rows cross writers
    ([3, 1], [[2, 2, 3], [6]]),                # last axis whole: blocks are single runs
    ([2, 2, 1], [[2, 1], [3, 2], [4]]),        # 3-D, trailing axis whole
    ([2, 2, 2], [[1, 2], [2, 3], [3, 1]]),     # 3-D, split everywhere
    ([3, 2], [[2, 0, 3], [4, 2]]),             # an empty slot on the first axis
    ([2, 3], [[3, 2], [0, 5, 0]]),             # one writer per row band owns whole rows
    ([2, 2, 3], [[1, 1], [2, 0], [0, 4, 2]]),  # empty slots on two axes
]


@pytest.mark.parametrize(("grid", "extents"), DECOMPOSITIONS)
def test_runs_are_each_writers_block_in_file_order(grid: list[int],
                                                   extents: list[list[int]]) -> None:
    runs = simulated_runs(grid, extents)
    offsets = [offset for offset, _, _ in runs]
    assert offsets == sorted(offsets), "runs not in file order"
    assert len(runs) == len(set(runs))
    assert set(runs) == expected_runs(grid, extents)
