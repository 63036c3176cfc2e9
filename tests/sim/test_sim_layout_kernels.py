"""The simulated workloads of the kernels write exactly the byte ranges the real kernels write.

Each kernel runs for real at 2 ranks, under the interposer when the case has a config; the
file's dataset extents (h5py: contiguous offset, or every chunk's address and size) must equal
the union of the ranges iosim maps the ranks' blocks to, and every rank's share must be its
block of the decomposition.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import h5py
import pytest
import yaml
from iotwin.config.validation import validate_config
from iotwin.core import paths
from iotwin.executors import launch
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulator_input
from iotwin.workloads.workload import kernel_workload
from support.file_layout import merged, real_extents, simulate

# 640 chunks per dataset: the chunk B-trees have many leaves (at most 64 entries each).
MANY_CHUNKS = ["--resolution", "4", "--subdomain-resolution", "3", "--levels", "5"]
ALIGNED = {"hdf5": {"alignment": {"threshold": 0, "boundary": "4KiB"}}}

CASES: list[tuple[str, list[str], dict[str, Any]]] = [
    ("vpic-io", ["--particles", "5000"], {}),
    ("vorpal-io", ["--block", "10x12x7", "--steps", "2"], {}),
    ("vorpal-io", ["--block", "8x8x8", "--uneven"], {}),
    ("gcrm-io", ["--resolution", "3", "--subdomain-resolution", "1"], {}),
    ("gcrm-io", MANY_CHUNKS, {}),
    ("gcrm-io", MANY_CHUNKS, ALIGNED),
]
RANKS = 2


def run_kernel(kernel: str, args: list[str], config: dict[str, Any], scratch: Path) -> Path:
    target = scratch / f"{kernel}.h5"
    env = {}
    if config:
        (scratch / "cfg.yaml").write_text(yaml.safe_dump(config))
        env = {"LD_PRELOAD": str(paths.interposer_library()),
               "IOTWIN_CONFIG": str(scratch / "cfg.yaml")}
    done = launch.run_mpi(RANKS, [paths.kernel_binary(kernel), "--file", target, *args],
                          env=env, cwd=scratch, timeout=300)
    assert done.returncode == 0, done.stderr
    return target


@pytest.mark.parametrize(("kernel", "args", "config"), CASES)
def test_simulated_ranges_are_the_kernels_bytes(kernel: str, args: list[str],
                                                config: dict[str, Any], scratch: Path) -> None:
    target = run_kernel(kernel, args, config, scratch)
    workload = kernel_workload(kernel, RANKS, args)
    payload = simulator_input(load_platform("local"), workload,
                              [validate_config(config, "test")], {"report_ranges": True})
    result = simulate(payload)
    assert result["ok"], result.get("error")
    simulated = {d["dataset"]: d["ranges"] for d in result["breakdown"]["dataset_ranges"]}
    assert len(simulated) == sum(len(f["datasets"]) for f in workload["files"])
    with h5py.File(target, "r") as f:
        for name, ranges in simulated.items():
            real = merged(real_extents(f[name]))
            union = merged([(off, length) for off, length, _ in ranges])
            assert union == real, name
            assert real and real[0][1] > 0, name
            per_writer = [sum(n for _, n, w in ranges if w == writer) for writer in range(RANKS)]
            assert sum(per_writer) == f[name].size * f[name].dtype.itemsize, name
            assert all(n > 0 for n in per_writer), name
