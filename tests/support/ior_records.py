"""IOR's hard write as a workload: each rank's 47,008-byte record after the previous rank's in
one shared file, and the layouts such a file gets."""

from __future__ import annotations

from typing import Any

from iotwin.workloads.ior import ior_workload, parse_ior

from support.small_platform import MiB

RECORD = 47008


def records(ranks: int, nodes: int, segments: int = 1, record: int = RECORD) -> dict[str, Any]:
    arguments = ["-a", "POSIX", "-w", "-t", str(record), "-b", str(record), "-s", str(segments)]
    return dict(ior_workload(parse_ior(arguments), ranks, nodes, "ior " + " ".join(arguments)))


def striped(count: int, size: int = MiB) -> dict[str, Any]:
    return {"lustre": {"stripe_count": count, "stripe_size": size}}
