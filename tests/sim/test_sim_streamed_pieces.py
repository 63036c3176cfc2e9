"""iosim answers regular selections in closed form (sim-models/src/selection/box_region.hpp)
and the same as when it materialises every contiguous piece and walks them (the old path, kept
behind the option `walk_pieces`).

Hypothesis draws decompositions (1 to 4 axes; uniform, balanced and listed blocks, empty ones
among them), selections of captured calls (grids at an origin, strided hyperslab runs,
repeated calls), file modes, layouts (contiguous, chunked, HDF5 and MPI-IO), platforms whose
drivers cut file domains differently (Lustre stripe-cyclic, GPFS even domains, Blue Gene
psets), ROMIO and OMPIO, and configs whose stripes, buffers and windows cut rows, elements and
pieces at odd places; every number of the two answers must agree to 1e-9.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from iotwin.model.sim import run_iosim, simulator_input
from iotwin.model.sim_answers import differences
from support.platform_strategies import shipped

KiB, MiB = 2**10, 2**20
EXAMPLES = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def decompositions(draw: st.DrawFn, writers_max: int = 24) -> dict[str, Any]:
    nd = draw(st.integers(1, 4))
    grid = [draw(st.integers(1, 4)) for _ in range(nd)]
    while math.prod(grid) > writers_max:
        grid[grid.index(max(grid))] -= 1
    form = draw(st.sampled_from(("block", "dims", "extents")))
    if form == "block":
        return {"grid": grid, "block": [draw(st.integers(1, 9)) for _ in grid]}
    if form == "dims":
        return {"grid": grid, "dims": [draw(st.integers(1, 20)) for _ in grid]}
    extents = [[draw(st.integers(0, 7)) for _ in range(g)] for g in grid]
    for axis in extents:
        if sum(axis) == 0:
            axis[0] = 1
    return {"grid": grid, "extents": extents}


def dims_of(decomposition: dict[str, Any]) -> list[int]:
    grid = decomposition["grid"]
    if "block" in decomposition:
        return [g * b for g, b in zip(grid, decomposition["block"], strict=True)]
    if "dims" in decomposition:
        return list(decomposition["dims"])
    return [sum(axis) for axis in decomposition["extents"]]


@st.composite
def decomposed_files(draw: st.DrawFn, writers: int) -> dict[str, Any]:
    """A file whose datasets are written one call each (or in one call) by their decomposition."""
    datasets = []
    for i in range(draw(st.integers(1, 3))):
        decomposition = draw(decompositions())
        while math.prod(decomposition["grid"]) != writers:
            decomposition = {"grid": [writers], "block": [draw(st.integers(1, 40))]}
        dataset: dict[str, Any] = {"name": f"/d{i}", "decomposition": decomposition,
                                   "element_bytes": draw(st.sampled_from((1, 3, 8)))}
        if draw(st.integers(0, 4)) == 0:
            dataset["chunk_dims"] = [max(1, d // draw(st.integers(1, 3)))
                                     for d in dims_of(decomposition)]
        datasets.append(dataset)
    file: dict[str, Any] = {"name": "f.h5", "datasets": datasets}
    if draw(st.booleans()):
        file["write_calls"] = "one-call"
    return file


@st.composite
def selections(draw: st.DrawFn, dims: list[int], writers: int) -> tuple[dict[str, Any], bool]:
    """A selection of a dataset of `dims` by `writers` writers, and whether it may repeat."""
    if draw(st.booleans()):
        nd = len(dims)
        grid = [1] * nd
        grid[draw(st.integers(0, nd - 1))] = writers
        extents = [[draw(st.integers(0, max(0, d // g))) for _ in range(g)]
                   for g, d in zip(grid, dims, strict=True)]
        origin = [draw(st.integers(0, d - sum(e))) for d, e in zip(dims, extents, strict=True)]
        return {"grid": grid, "extents": extents, "origin": origin}, True
    runs = []
    for _ in range(draw(st.integers(1, 3))):
        n = draw(st.integers(1, writers))
        first = draw(st.integers(0, writers - n))
        step = draw(st.integers(0, (writers - 1 - first) // max(1, n - 1))) if n > 1 else 1
        run: dict[str, Any] = {"ranks": [first, n, step]}
        count, block, stride, start, start_step = [], [], [], [], []
        for d in dims:
            b = draw(st.integers(1, max(1, d // 4)))
            s = b + draw(st.integers(0, 2))
            c = draw(st.integers(1, max(1, (d - b) // s + 1)))
            span = (c - 1) * s + b
            st_step = draw(st.integers(0, max(0, (d - span) // max(1, n - 1)))) if n > 1 else 0
            first_start = draw(st.integers(0, max(0, d - span - st_step * (n - 1))))
            count.append(c), block.append(b), stride.append(s)
            start.append(first_start), start_step.append(st_step)
        run.update(start=start, start_step=start_step, count=count, stride=stride, block=block)
        runs.append(run)
    return {"runs": runs}, False


@st.composite
def captured_files(draw: st.DrawFn, writers: int) -> dict[str, Any]:
    """A file written through `calls`: grid selections at an origin (some repeated), runs."""
    datasets, calls = [], []
    for i in range(draw(st.integers(1, 2))):
        dims = [draw(st.integers(1, 24)) for _ in range(draw(st.integers(1, 3)))]
        dataset: dict[str, Any] = {"name": f"/c{i}", "dims": dims,
                                   "element_bytes": draw(st.sampled_from((1, 4, 8)))}
        if draw(st.integers(0, 4)) == 0:
            dataset["chunk_dims"] = [max(1, d // 2) for d in dims]
        datasets.append(dataset)
        for _ in range(draw(st.integers(1, 2))):
            selection, repeatable = draw(selections(dims, writers))
            transfer = draw(st.sampled_from(("collective", "independent")))
            call: dict[str, Any] = {"write": [f"/c{i}"], "selections": [selection],
                                    "transfer": transfer}
            if repeatable and draw(st.booleans()):
                axis = draw(st.integers(0, len(dims) - 1))
                room = dims[axis] - selection["origin"][axis] - sum(selection["extents"][axis])
                step = draw(st.integers(0, max(0, room)))
                times = 1 + (room // step if step else draw(st.integers(1, 3)))
                origin_step = [step if a == axis else 0 for a in range(len(dims))]
                call["repeat"] = {"times": min(times, 4), "compute_between_s": 0.01,
                                  "origin_step": origin_step}
            calls.append(call)
    return {"name": "c.h5", "datasets": datasets, "calls": calls}


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    platform = draw(st.sampled_from(("hopper", "archer", "intrepid", "stampede")))
    ranks = draw(st.sampled_from((1, 2, 3, 4, 6, 8, 12, 16, 24)))
    mode = draw(st.sampled_from(("shared", "shared", "per-rank", "groups")))
    writers = 1 if mode == "per-rank" else ranks
    file: dict[str, Any]
    if mode == "groups" and ranks % 2 == 0:
        writers = ranks // 2
    else:
        mode = "shared" if mode == "groups" else mode
    file = draw(captured_files(writers)) if draw(st.booleans()) else draw(decomposed_files(writers))
    file["mode"] = mode
    if mode == "per-rank":
        file["name"] = "f%r.h5"
    if mode == "groups":
        file.update(groups=2, name="f%g.h5")
    file["api"] = draw(st.sampled_from(("hdf5", "hdf5", "mpiio")))
    if file["api"] == "mpiio":
        for d in file["datasets"]:
            d.pop("chunk_dims", None)
    workload = {"iotwin_workload": 1, "name": "random", "ranks": ranks,
                "ranks_per_node": draw(st.sampled_from((1, 2, 4))), "files": [file]}
    if draw(st.integers(0, 3)) == 0:
        workload["mpi"] = "openmpi"
    hints = ("enable", "disable", "automatic")
    configs = []
    for _ in range(2):
        config: dict[str, Any] = {"mpiio": {
            "romio_cb_write": draw(st.sampled_from(hints)),
            "romio_ds_write": draw(st.sampled_from(hints)),
            "cb_nodes": draw(st.sampled_from((1, 2, 3, 8))),
            "cb_buffer_size": draw(st.sampled_from((64, 100, 4 * KiB))),
            "ind_wr_buffer_size": draw(st.sampled_from((16, 64, 1000)))}}
        if platform != "intrepid":
            config["lustre"] = {"stripe_count": draw(st.sampled_from((1, 2, 3))),
                                "stripe_size": draw(st.sampled_from((64 * KiB, MiB)))}
        if draw(st.booleans()):
            config["dataset"] = {"fill_time": draw(st.sampled_from(("alloc", "never")))}
        configs.append(config)
    options = {"aggregate": draw(st.booleans()),
               "placement": draw(st.sampled_from(("packed", "target-grouped")))}
    return platform, workload, configs, options


def check_equal(case: tuple) -> None:
    platform_name, workload, configs, options = case
    platform = shipped(platform_name)
    streamed = run_iosim(simulator_input(platform, workload, configs, options), jobs=1)
    walking = {**options, "walk_pieces": True}
    walked = run_iosim(simulator_input(platform, workload, configs, walking), jobs=1)
    for a, b in zip(streamed, walked, strict=True):
        assert a.get("ok") == b.get("ok"), (a.get("error"), b.get("error"))
        assert a.get("ok"), a.get("error")
        found = differences(a, b)
        assert not found, found[:10]


@EXAMPLES
@given(cases())
def test_closed_form_answers_equal_the_walked_pieces(case: tuple) -> None:
    check_equal(case)


@st.composite
def chunked_cases(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[Any], dict[str, Any]]:
    """Every dataset chunked, its chunks cut anywhere (not dividing the dataset, smaller and
    larger than the blocks), written by its decomposition or by grid selections."""
    platform, workload, configs, options = draw(cases())
    file = workload["files"][0]
    file["api"] = "hdf5"
    for d in file["datasets"]:
        dims = d["dims"] if "dims" in d else dims_of(d["decomposition"])
        d["chunk_dims"] = [draw(st.integers(1, n)) for n in dims]
    return platform, workload, configs, options


@settings(EXAMPLES, max_examples=40)
@given(chunked_cases())
def test_chunked_datasets_answer_as_their_walked_pieces(case: tuple) -> None:
    check_equal(case)
