"""A parallel h5py program written as Python HPC users write them (not for iotwin).

A 2-D field decomposed by rows over the ranks and written collectively, a small table and
an attribute written by rank 0 only, and a time series written one step at a time with some
computation between the steps.

    mpiexec -n 4 python h5py_field.py OUT.h5 [--steps 4] [--rows 32] [--compute-s 0.2]
"""

from __future__ import annotations

import argparse
import time

import h5py
import numpy as np
from mpi4py import MPI

COLUMNS = 48
SERIES_PER_RANK = 16


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("output")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--rows", type=int, default=32, help="field rows per rank")
    parser.add_argument("--compute-s", type=float, default=0.2)
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    with h5py.File(args.output, "w", driver="mpio", comm=comm) as f:
        f.attrs["ranks"] = size
        field = f.create_dataset("field", (args.rows * size, COLUMNS), dtype="f8")
        lo = rank * args.rows
        values = np.fromfunction(lambda i, j: (lo + i) * COLUMNS + j, (args.rows, COLUMNS))
        with field.collective:
            field[lo:lo + args.rows, :] = values
        table = f.create_dataset("run/table", (8,), dtype="i8")
        if rank == 0:
            table[:] = np.arange(8) * size
        series = f.create_dataset("series", (args.steps, SERIES_PER_RANK * size), dtype="f4",
                                  chunks=(1, SERIES_PER_RANK * size))
        state = np.full(SERIES_PER_RANK, float(rank), dtype="f4")
        for step in range(args.steps):
            deadline = time.perf_counter() + args.compute_s   # the "simulation"
            while time.perf_counter() < deadline:
                state = np.sqrt(state * state + 1.0).astype("f4")
            with series.collective:
                series[step, rank * SERIES_PER_RANK:(rank + 1) * SERIES_PER_RANK] = state


if __name__ == "__main__":
    main()
