"""What one step of a small collective costs on this machine, ranks on their own cores.

iosim charges every collective phase of an I/O call (HDF5's and ROMIO's allreduces and
allgathers, a two-phase round's exchange, the synchronisation at open and close) as
log2(P) steps of `network.collective_step_s`. On ranks that have a core each, a step is a
shared-memory exchange; with more ranks than cores it is a scheduler's time slice, which the
platform gives apart (`network.oversubscribed_step_s`). This measures the first kind: the
median over repetitions of the mean time of an MPI_Allgather of one integer a rank, over
many calls (mpi4py, from `make h5py-mpi`), divided by its log2(P) steps.

    .venv/bin/python bench/collective_step.py [--ranks 2] [--calls 20000] [--repeat 5]

Run it on a quiet machine; prints the leaf of sim-models/platforms/local.yaml.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys

from iotwin.core import paths
from iotwin.executors import launch

PROBE = """
import json, sys, time
import numpy as np
from mpi4py import MPI
comm = MPI.COMM_WORLD
calls = int(sys.argv[1])
mine, all_ = np.zeros(1, dtype='i8'), np.zeros(comm.size, dtype='i8')
for _ in range(calls // 10):
    comm.Allgather(mine, all_)
comm.Barrier()
start = time.perf_counter()
for _ in range(calls):
    comm.Allgather(mine, all_)
took = comm.allreduce(time.perf_counter() - start, op=MPI.MAX)
if comm.rank == 0:
    print(json.dumps({"per_call_s": took / calls}))
"""


def per_call_seconds(ranks: int, calls: int) -> float:
    env = {"PYTHONPATH": str(paths.repo_root() / ".venv" / "h5py-mpi")}
    done = launch.run_mpi(ranks, [sys.executable, "-c", PROBE, str(calls)], env=env,
                          timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"the probe failed (is `make h5py-mpi` done?):\n{done.stderr.strip()}")
    return float(json.loads(done.stdout.strip().splitlines()[-1])["per_call_s"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    times = [per_call_seconds(args.ranks, args.calls) for _ in range(args.repeat)]
    steps = math.ceil(math.log2(max(2, args.ranks)))
    step = statistics.median(times) / steps
    print(f"MPI_Allgather on {args.ranks} ranks: {1e6 * statistics.median(times):.2f} us a call "
          f"(median of {args.repeat}, {1e6 * min(times):.2f}-{1e6 * max(times):.2f}); "
          f"{steps} step(s)")
    print(f"  collective_step_s: {{value: {step:.1e}, source: \"measured: "
          f"bench/collective_step.py, MPI_Allgather of one integer on {args.ranks} ranks, one "
          f"per core, median of {args.repeat} x {args.calls} calls\"}}")


#: the suite's run of it (tests/bench/test_bench_scripts.py): every path at the smallest size
SMOKE_ARGS = ["--calls", "200", "--repeat", "1"]

if __name__ == "__main__":
    main()
