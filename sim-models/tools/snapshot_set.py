"""iosim's answers on a fixed set of inputs, kernels x platforms x configs, one file per input,
so that two builds of iosim compare with `diff -r`. A change that must not move a prediction
(a move, a refactoring) is checked by

    PY=".venv/bin/python sim-models/tools/snapshot_set.py"
    $PY inputs /tmp/snapshot/inputs                      # from this tree's kernels and data
    $PY answers build-before/iosim /tmp/snapshot/inputs /tmp/snapshot/before
    $PY answers build/sim-models/iosim /tmp/snapshot/inputs /tmp/snapshot/after
    diff -r /tmp/snapshot/before /tmp/snapshot/after     # silent: byte-identical

The inputs are written once and both builds read the same files, so the comparison is of
iosim alone. The set: every kernel's workload (block3d-io through each of its methods, and
the same file written through POSIX, PnetCDF and under Open MPI) at a small and a large rank
count, on every platform of sim-models/platforms, under the default config and typed configs
that reach HDF5's chunking, alignment and metadata, collective buffering, each romio_cb_write
mode, data sieving, independent transfer and OMPIO. iosim runs with one worker (`--jobs 1`):
answers in input order, the same bits from run to run (IOSIM.md).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from iotwin.config.validation import validate_config
from iotwin.model.platforms import list_platforms, load_platform
from iotwin.model.sim import simulator_input
from iotwin.workloads.workload import kernel_workload

MiB = 1 << 20

#: (name, kernel, its arguments); each at every rank count of SCALES
KERNEL_RUNS = (
    ("vpic", "vpic-io", ["--particles", "65536"]),
    ("vpic-independent", "vpic-io", ["--particles", "65536", "--independent"]),
    ("vorpal", "vorpal-io", ["--block", "32x32x16", "--components", "3", "--steps", "2"]),
    ("gcrm", "gcrm-io", ["--resolution", "6", "--subdomain-resolution", "3", "--levels", "8"]),
    ("block3d-hdf5", "block3d-io", ["--block", "32", "--method", "hdf5"]),
    ("block3d-mpiio", "block3d-io", ["--block", "32", "--method", "mpiio"]),
    ("block3d-netcdf4", "block3d-io", ["--block", "32", "--method", "netcdf4"]),
    ("block3d-netcdf4-independent", "block3d-io",
     ["--block", "32", "--method", "netcdf4", "--independent"]),
)

#: block3d-io's HDF5 file rewritten: (name, what changes in the workload, in each file)
VARIANTS = (
    ("block3d-posix", {}, {"api": "posix"}),
    ("block3d-pnetcdf", {}, {"api": "pnetcdf"}),
    ("block3d-hdf5-openmpi", {"mpi": "openmpi"}, {}),
)

SCALES = (4, 256)

CONFIGS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("default", {}),
    ("cb-enable", {"lustre": {"stripe_count": 4, "stripe_size": 4 * MiB},
                   "mpiio": {"romio_cb_write": "enable", "cb_nodes": 2,
                             "cb_buffer_size": 4 * MiB}}),
    ("cb-disable-sieving", {"mpiio": {"romio_cb_write": "disable", "romio_ds_write": "enable",
                                      "ind_wr_buffer_size": MiB}}),
    ("cb-automatic-hdf5", {"mpiio": {"romio_cb_write": "automatic"},
                           "hdf5": {"alignment": {"threshold": MiB, "boundary": 4 * MiB},
                                    "meta_block_size": MiB, "coll_metadata_write": True},
                           "dataset": {"chunk_size": MiB, "fill_time": "alloc"}}),
    ("independent", {"dataset": {"transfer_mode": "independent"},
                     "hdf5": {"all_coll_metadata_ops": True}}),
)

#: configs only a workload under Open MPI reads
OPENMPI_CONFIGS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("ompio-vulcan", {"openmpi": {"io": "ompio", "fcoll": "vulcan", "num_aggregators": 2}}),
    ("romio321", {"openmpi": {"io": "romio321"}, "mpiio": {"romio_cb_write": "enable"}}),
)


def workloads(ranks: int) -> Iterator[tuple[str, dict[str, Any]]]:
    described = {}
    for name, kernel, args in KERNEL_RUNS:
        described[name] = dict(kernel_workload(kernel, ranks, args))
        yield name, described[name]
    for name, top, per_file in VARIANTS:
        base = described["block3d-hdf5"]
        yield name, {**base, **top, "files": [{**f, **per_file} for f in base["files"]]}


def configs_for(workload: Mapping[str, Any]) -> list[dict[str, Any]]:
    chosen = CONFIGS + (OPENMPI_CONFIGS if workload.get("mpi") == "openmpi" else ())
    return [dict(validate_config(config, f"snapshot config {name}")) for name, config in chosen]


def write_inputs(folder: Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for ranks in SCALES:
        for name, workload in workloads(ranks):
            for platform_name in list_platforms():
                payload = simulator_input(load_platform(platform_name), workload,
                                          configs_for(workload), {"write_paths": True})
                path = folder / f"{name}.{ranks}.{platform_name}.json"
                path.write_text(json.dumps(payload, sort_keys=True, indent=1) + "\n")
                count += 1
    return count


def answer(iosim: Path, case: Path, out: Path) -> None:
    done = subprocess.run([str(iosim), "--jobs", "1", str(case)], capture_output=True,
                          text=True, check=False)
    out.write_text(f"status {done.returncode}\n{done.stdout}{done.stderr}")


def write_answers(iosim: Path, inputs: Path, folder: Path, jobs: int) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    cases = sorted(inputs.glob("*.json"))
    if not cases:
        sys.exit(f"snapshot_set: no inputs in {inputs}")
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(lambda case: answer(iosim, case, folder / case.name), cases))
    return len(cases)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    inputs = commands.add_parser("inputs", help="write the set's iosim inputs")
    inputs.add_argument("folder", type=Path)
    answers = commands.add_parser("answers", help="run an iosim binary on every input")
    answers.add_argument("iosim", type=Path)
    answers.add_argument("inputs", type=Path)
    answers.add_argument("folder", type=Path)
    answers.add_argument("--jobs", type=int, default=2, help="inputs simulated at once")
    args = parser.parse_args()
    if args.command == "inputs":
        print(f"{write_inputs(args.folder)} inputs in {args.folder}")
    else:
        count = write_answers(args.iosim, args.inputs, args.folder, args.jobs)
        print(f"{count} answers in {args.folder}")


if __name__ == "__main__":
    main()
