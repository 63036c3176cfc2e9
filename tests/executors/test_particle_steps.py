"""An h5bench-like program nobody wrote for iotwin (tests/programs/particle_steps.c: VPIC-like
particles, a group of eight 1-D datasets per timestep, a sleep between steps) captured
without a wrapper: every step's datasets and each rank's part of them are in its workload,
and its sleeps are computation, apart from its I/O time, in the run and in the workload."""

from __future__ import annotations

from pathlib import Path

import pytest
from iotwin.core import paths
from iotwin.core.run_records import Target
from iotwin.executors.capture_run import capture_program
from iotwin.workloads.workload import compute_s

STEPS = 3
SLEEP_S = 0.4  # the program's sleep between two steps
PARTICLES = 65536  # a rank's
PROPERTIES = {"x": 4, "y": 4, "z": 4, "id1": 4, "id2": 4, "px": 4, "py": 4, "pz": 4}


def particle_steps(folder: Path, *extra: str) -> Target:
    program = paths.build_dir() / "tests" / "programs" / "particle_steps"
    return Target(ranks=2, command=(str(program), str(folder / "particles.h5"), "--steps",
                                    str(STEPS), "--particles", str(PARTICLES), "--compute-s",
                                    str(SLEEP_S), *extra))


@pytest.mark.parametrize("layout", [(), ("--chunked", "--independent")],
                         ids=["contiguous-collective", "chunked-independent"])
def test_every_step_is_captured_and_its_sleeps_are_computation(
        scratch: Path, layout: tuple[str, ...]) -> None:
    captured = capture_program(particle_steps(scratch, *layout), workdir=scratch)
    run = captured.run
    assert run.ok, run.error
    [session] = captured.workload["files"]
    datasets = {d["name"]: d for d in session["datasets"]}
    expected = {f"/Timestep_{step}/{name}" for step in range(STEPS) for name in PROPERTIES}
    assert set(datasets) == expected
    for name, dataset in datasets.items():
        assert dataset["dims"] == [2 * PARTICLES], name
        assert dataset["element_bytes"] == PROPERTIES[name.rsplit("/", 1)[1]], name
        assert dataset["chunk_dims"] == ([PARTICLES] if layout else None), name
    transfers = {call["transfer"] for call in session["calls"] if call.get("write")}
    assert transfers == {"independent" if layout else "collective"}
    assert run.bytes == STEPS * 2 * PARTICLES * sum(PROPERTIES.values())
    # the sleeps between steps are outside every I/O call: the run's computation, and the
    # workload's as captured (the slowest rank's time in each kind of call, added up, can
    # take some of them: the ranks leave a step's last call at different times)
    sleeps = (STEPS - 1) * SLEEP_S
    phases = run.phases
    assert phases["compute_s"] > 0.75 * sleeps
    assert compute_s(captured.workload) == pytest.approx(phases["compute_s"], rel=0.1)
    assert run.total_s == phases["io_s"]
    assert phases["io_s"] + phases["compute_s"] <= phases["wall_s"]
