"""How each write call reached storage (two-phase or independent): every answer counts the
calls of each path; the list, one entry a call, only when options.write_paths asks for it
(IO500's hard phase makes millions of calls), and asking for it changes nothing else."""

from __future__ import annotations

from typing import Any

import pytest
from iotwin.workloads.ior import ior_workload, parse_ior
from support.small_platform import run, small_platform

CALLS = 100  # over the 64 repetitions a call needs before they fold (IOSIM.md)


def records(collective: bool) -> dict[str, Any]:
    arguments = ["-a", "MPIIO", "-w", "-t", "47008", "-b", "47008", "-s", str(CALLS)]
    arguments += ["-c"] if collective else []
    return dict(ior_workload(parse_ior(arguments), 2, 2, "ior " + " ".join(arguments)))


@pytest.mark.parametrize(("collective", "path"), [(True, "two-phase"), (False, "independent")])
def test_the_paths_are_counted_always_and_listed_on_request(collective: bool, path: str) -> None:
    enable = {"mpiio": {"romio_cb_write": "enable"}}
    [counted] = run(small_platform(), records(collective), enable)
    [listed] = run(small_platform(), records(collective), enable, write_paths=True)
    other = "independent" if path == "two-phase" else "two-phase"
    assert counted.breakdown["write_path_calls"] == {path: CALLS, other: 0}
    assert "write_paths" not in counted.breakdown
    assert listed.breakdown["write_paths"] == [path] * CALLS
    assert {k: v for k, v in listed.breakdown.items() if k != "write_paths"} == counted.breakdown
    assert (listed.time_s, listed.phases, listed.ceiling_mbs) == \
        (counted.time_s, counted.phases, counted.ceiling_mbs)
