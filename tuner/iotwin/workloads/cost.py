"""What making a workload (``iotwin workload ...``) costs, before it starts: each document it
reads (a workload, a MACSio description) parsed and checked, and the workload it writes,
in proportion to their bytes; a capture's program on this machine, each rank a process.

A captured program's own run is what the capture records: its time is bounded by
``--timeout``, not estimated."""

from __future__ import annotations

from pathlib import Path

from iotwin.core.cost import Cost, Driver, Limits, constant


def document_cost(path: Path, name: str, limits: Limits, *, written: float = 1.0) -> Cost:
    """Reading the document at ``path`` (its refusal names it as ``name``) and writing
    ``written`` times its bytes again, refused beyond ``limits``. A file that cannot be
    read costs nothing here: the command's own reader names it."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    return text_cost(size * (1 + written), Driver(name, f"{size} bytes"), limits)


def text_cost(nbytes: float, driver: Driver, limits: Limits) -> Cost:
    """Parsing, checking or writing ``nbytes`` of YAML, refused beyond ``limits`` naming
    ``driver``."""
    return limits.check(Cost(
        nbytes * constant("documents", "seconds_per_byte"),
        constant("python", "process_bytes") + nbytes * constant("documents", "bytes_per_byte"),
        driver, driver))


def capture_cost(ranks: int, limits: Limits) -> Cost:
    """A capture of a program on ``ranks`` ranks of this machine, refused beyond ``limits``
    naming --ranks."""
    driver = Driver("--ranks", ranks, f"{ranks} processes on this machine")
    return limits.check(Cost(
        ranks * constant("capture", "seconds_per_rank"),
        constant("python", "process_bytes") + ranks * constant("capture", "bytes_per_rank"),
        driver, driver))
