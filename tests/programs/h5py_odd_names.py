"""A parallel h5py program whose file and dataset names hold control characters (a newline
and an ANSI erase-line escape): names any program may give, that must not make lines of
their own in iotwin's output.

    mpiexec -n 2 python h5py_odd_names.py OUT.h5
"""

from __future__ import annotations

import sys

import h5py
import numpy as np
from mpi4py import MPI

#: a dataset name that, printed raw, would erase its line and start one of its own
NAME = "x\nrate   99999.0 MB/s\x1b[2K"


def main() -> None:
    comm = MPI.COMM_WORLD
    with h5py.File(sys.argv[1], "w", driver="mpio", comm=comm) as f:
        data = f.create_dataset(NAME, (4 * comm.size,), dtype="f8")
        with data.collective:
            data[comm.rank * 4:(comm.rank + 1) * 4] = np.arange(4.0)


if __name__ == "__main__":
    main()
