"""What running a program on this machine costs iotwin, before it starts: each run starts
``ranks`` processes (MPI's and HDF5's start, the interposer's records read back), all of them
held at once. The program's own run is what is measured: ``--timeout`` bounds each run, it is
not estimated."""

from __future__ import annotations

from iotwin.core.cost import Cost, Driver, Limits, constant


def program_cost(ranks: int, limits: Limits, runs: int = 1, runs_driver: Driver | None = None,
                 ranks_name: str = "--ranks") -> Cost:
    """``runs`` runs of a program on ``ranks`` ranks, refused beyond ``limits`` naming
    ``ranks_name`` (the option or field that gives the ranks) for the memory, and
    ``runs_driver`` (the one that gives the runs) for the time when there is more than one
    run."""
    processes = Driver(ranks_name, ranks, f"{ranks} processes on this machine")
    one = Cost(ranks * constant("capture", "seconds_per_rank"),
               constant("python", "process_bytes") + ranks * constant("capture", "bytes_per_rank"),
               processes, processes)
    many = one.times(runs, runs_driver) if runs_driver is not None else one
    return limits.check(many)
