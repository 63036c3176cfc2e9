"""ROMIO's romio_cb_write as its collective write applies it (romio_cb_write.hpp): what each
mode writes with and the collective steps it costs a call, on IOR's hard write (each rank one
47,008-byte record a call, rank after rank) and on records out of rank order."""

from __future__ import annotations

from typing import Any

import pytest
from iotwin.workloads.ior import ior_workload, parse_ior
from support.small_platform import run, small_platform

RECORD = 47008
CALLS = 8
STEP_S = 0.01  # a collective step of 2 ranks: ceil(log2 2) = 1 step a collective


def ior_hard(ranks: int = 2) -> dict[str, Any]:
    arguments = ["-a", "MPIIO", "-c", "-w", "-t", str(RECORD), "-b", str(RECORD),
                 "-s", str(CALLS)]
    return dict(ior_workload(parse_ior(arguments), ranks, ranks, "ior " + " ".join(arguments)))


def mode(hint: str) -> dict[str, Any]:
    return {"mpiio": {"romio_cb_write": hint}}


def test_automatic_writes_ior_hard_independently_yet_pays_the_offsets_exchange() -> None:
    automatic, disable, enable = run(small_platform(collective_step_s=STEP_S), ior_hard(),
                                     mode("automatic"), mode("disable"), mode("enable"))
    assert automatic.breakdown["write_paths"] == ["independent"] * CALLS
    assert disable.breakdown["write_paths"] == ["independent"] * CALLS
    assert enable.breakdown["write_paths"] == ["two-phase"] * CALLS
    assert automatic.breakdown["bytes_per_target"] == disable.breakdown["bytes_per_target"]
    # the two allgathers of the start and end offsets, every call
    extra = automatic.phases["write"] - disable.phases["write"]
    assert extra == pytest.approx(CALLS * 2 * STEP_S)
    # buffering adds the request exchange, the round count's and the error code's allreduces
    # and its round's exchange to the allgathers
    assert enable.phases["write"] - disable.phases["write"] >= CALLS * 6 * STEP_S


def test_without_collective_steps_automatic_and_disable_cost_the_same() -> None:
    automatic, disable = run(small_platform(), ior_hard(), mode("automatic"), mode("disable"))
    assert automatic.time_s == pytest.approx(disable.time_s)


def records_in_rank_order(reverse: bool) -> dict[str, Any]:
    """Two ranks, one record each a call; rank 1's before rank 0's when ``reverse``."""
    first = [1, 0] if reverse else [0, 1]
    runs = [{"ranks": [rank, 1], "start": [slot * RECORD], "count": [1], "block": [RECORD]}
            for slot, rank in enumerate(first)]
    return {"iotwin_workload": 1, "name": "order", "ranks": 2, "ranks_per_node": 1,
            "files": [{"name": "order.dat", "mode": "shared", "api": "mpiio", "create": True,
                       "datasets": [{"name": "bytes@0", "element_bytes": 1,
                                     "dims": [2 * RECORD], "chunk_dims": None}],
                       "calls": [{"write": ["bytes@0"], "transfer": "collective",
                                  "selections": [{"runs": runs}]}]}]}


@pytest.mark.parametrize(("reverse", "path"), [(False, "independent"), (True, "two-phase")])
def test_automatic_tests_interleaving_in_rank_order(reverse: bool, path: str) -> None:
    # ROMIO compares each rank's start with the previous rank's end: rank 1 before rank 0 in
    # the file counts as interleaved though the records do not overlap
    result, = run(small_platform(), records_in_rank_order(reverse), mode("automatic"))
    assert result.breakdown["write_paths"] == [path]
