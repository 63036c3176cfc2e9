"""iosim estimates what a workload will cost before simulating it and refuses, in one line with
the estimate and the limit, what is beyond its limits; it runs with a memory cap and says
"out of memory at the estimate ..." instead of being killed (sim-models/src/run/cost_estimate.hpp,
memory_budget.hpp; issue "hostile input": the unbounded-memory inputs).

Each hostile workload of that issue ends in a clear error or, where the closed form makes it
cheap (a strided run through collective buffering), in the right answer, within the memory
cap given to iosim (its peak resident memory is checked against it). The subprocess timeout is
a guard against a hang, not a measure of speed.
"""

from __future__ import annotations

import json
import resource
import subprocess
from typing import Any

import pytest
from iotwin.core import paths
from iotwin.model.platforms import load_platform

GiB = 2**30
CAP = 2 * GiB  # the memory limit the hostile runs get
HANG_GUARD_S = 600


def run(workload: dict[str, Any], configs: list[dict[str, Any]] | None = None,
        options: dict[str, Any] | None = None, *flags: str) -> list[dict[str, Any]]:
    payload = {"platform": load_platform("hopper").data, "workload": workload,
               "configs": configs or [{"files": [{} for _ in workload["files"]]}],
               "options": options or {}}
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    done = subprocess.run([str(paths.simulator_binary()), "--jobs", "1", *flags, "-"],
                          input=json.dumps(payload), capture_output=True, text=True,
                          timeout=HANG_GUARD_S, check=False)
    assert done.returncode == 0, done.stderr
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if peak_kib > before:  # this run raised the children's peak: it is this run's
        assert peak_kib * 1024 < CAP + GiB, f"iosim grew to {peak_kib} KiB"
    return list(json.loads(done.stdout)["results"])


def block(grid: list[int], extents: list[int], name: str = "/d") -> dict[str, Any]:
    return {"name": name, "element_bytes": 8, "decomposition": {"grid": grid, "block": extents}}


def one_file(ranks: int, file: dict[str, Any]) -> dict[str, Any]:
    return {"iotwin_workload": 1, "name": "hostile", "ranks": ranks, "files": [file]}


def refused(result: dict[str, Any], *words: str) -> str:
    assert not result["ok"], "expected a refusal"
    error = str(result["error"])
    assert "\n" not in error
    for word in words:
        assert word in error, error
    return error


def test_a_billion_ranks_on_a_billion_slot_grid_is_refused_by_its_memory_estimate() -> None:
    workload = one_file(10**9, {"name": "f.h5", "datasets": [block([10**9], [1])]})
    [result] = run(workload, None, None, "--memory-limit", str(CAP))
    error = refused(result, "estimated memory", "beyond the memory limit of 2.0 GiB",
                    "workload.files[0].datasets[0]", "--memory-limit")
    assert "GiB" in error.split("beyond")[0]


def test_a_call_repeated_a_trillion_times_is_refused_naming_the_repeat() -> None:
    workload = one_file(4, {
        "name": "f.h5", "datasets": [{"name": "/s", "element_bytes": 8, "dims": [10**13, 4]}],
        "calls": [{"write": ["/s"], "selections": [{"grid": [1, 4], "block": [1, 1]}],
                   "repeat": {"times": 10**12, "origin_step": [1, 0]}}]})
    [result] = run(workload, None, None, "--memory-limit", str(CAP))
    refused(result, "estimated cost", "1e+12 write calls", "workload.files[0].calls[0].repeat",
            "beyond the limit of 4e+09 steps", "--max-steps")


def test_a_billion_files_per_rank_are_refused() -> None:
    workload = one_file(10**9, {"name": "f%r.h5", "mode": "per-rank",
                                "datasets": [block([1], [1024])]})
    [result] = run(workload, None, None, "--memory-limit", str(CAP))
    refused(result, "estimated", "1e+09 files", "workload.files[0]")


def strided(count: int, cb: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    workload = one_file(1, {
        "name": "f.h5", "datasets": [{"name": "/s", "element_bytes": 8, "dims": [2 * count]}],
        "calls": [{"write": ["/s"], "selections": [{"runs": [
            {"ranks": [0, 1], "start": [0], "count": [count], "stride": [2], "block": [1]}]}]}]})
    return workload, [{"files": [{"mpiio": {"romio_cb_write": cb}}]}]


def test_a_strided_run_of_2_to_the_36_blocks_is_answered_in_closed_form_through_buffering() -> None:
    [result] = run(*strided(2**36, "enable"), None, "--memory-limit", str(CAP))
    assert result["ok"], result.get("error")
    bd, posix = result["breakdown"], result["breakdown"]["posix"]
    assert bd["payload_bytes"] == 2**36 * 8
    # every stripe of the buffer holds every other element: it is read, then written whole,
    # from its first element to the end of its last
    span = (2**36 - 1) * 16 + 8
    assert posix["writes"] == posix["reads"] == bd["rpcs"]
    assert sum(bd["bytes_per_target"]) == posix["read_bytes"]
    assert span - 16 * posix["reads"] <= posix["read_bytes"] <= span


def test_the_same_run_written_piece_by_piece_is_refused_with_its_pieces() -> None:
    [result] = run(*strided(2**36, "disable"), None, "--memory-limit", str(CAP))
    refused(result, "estimated cost", "6.9e+10 pieces", "workload.files[0].calls[0]")


def test_a_refused_workload_runs_once_its_limit_is_raised() -> None:
    workload, configs = strided(2**16, "disable")
    [low] = run(workload, configs, {"max_steps": 1e4})
    refused(low, "estimated cost", "beyond the limit of 10000 steps")
    [raised] = run(workload, configs, None, "--max-steps", "1e4")
    refused(raised, "beyond the limit of 10000 steps")
    [ok] = run(workload, configs, {"max_steps": 1e7})
    assert ok["ok"], ok.get("error")
    assert ok["breakdown"]["payload_bytes"] == 2**16 * 8


def test_running_out_of_the_memory_budget_says_so_with_the_estimate() -> None:
    """The estimate counts a listed piece once; reporting every range holds it twice more
    (the session's ranges and the report's), so a cap just above the estimate is passed while
    planning, which must end in a clear error, not a killed process."""
    ranks, side = 256, 64
    workload = one_file(ranks, {"name": "f.dat", "api": "mpiio",
                                "datasets": [block([4, 8, 8], [side, side, side])]})
    options = {"report_ranges": True, "memory_limit": 40 * 2**20}
    [result] = run(workload, None, options)
    refused(result, "out of memory at the estimate", "pieces held at once", "memory limit 40 MiB")
    [ok] = run(workload, None, {"report_ranges": True, "memory_limit": GiB})
    assert ok["ok"], ok.get("error")
    assert len(ok["breakdown"]["dataset_ranges"][0]["ranges"]) == ranks * side * side


@pytest.mark.parametrize("flag", [["--memory-limit", "lots"], ["--max-steps", "x"]])
def test_a_bad_limit_on_the_command_line_is_one_line(flag: list[str]) -> None:
    done = subprocess.run([str(paths.simulator_binary()), *flag, "-"], input="{}",
                          capture_output=True, text=True, timeout=HANG_GUARD_S, check=False)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and flag[0] in done.stderr


def test_estimate_only_answers_the_estimate_the_limit_would_refuse_and_simulates_nothing(
        ) -> None:
    """options.estimate_only: each config's estimate (what the tuner's cost bounds multiply),
    unchecked against max_steps, with no simulated time."""
    workload, configs = strided(2**16, "disable")
    [refused_run] = run(workload, configs, {"max_steps": 1e4})
    [estimate] = run(workload, configs, {"max_steps": 1e4, "estimate_only": True})
    assert estimate["ok"] and "time_s" not in estimate
    steps = estimate["estimate"]["steps"]
    assert steps > 1e4 and estimate["estimate"]["memory_bytes"] > 0
    assert refused_run["error"].startswith(
        f"estimated cost {estimate['estimate']['text'].partition(' and ')[0]} is beyond")
