"""The estimate of a simulation's cost (iotwin.model.sim_cost: iosim's own estimate with
options.estimate_only, in CPU seconds and resident bytes by data/costs.yaml's constants)
against real iosim runs here: CPU time and peak resident memory as wait4 reports them for
iosim and its workers. The factors are wide on purpose: the constants say how long and how
big, not to the percent, and this machine is shared."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from iotwin.config.types import Config
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulator_input
from iotwin.model.sim_cost import batch_seconds, simulation_cost
from iotwin.workloads.workload import kernel_workload, load_workload

WORKLOAD = paths.repo_root() / "experiments/landscape/h5py-field-2.workload.yaml"
#: how far an estimate may be from what was measured, either way
FACTOR = 5


def block3d(ranks: int, side: int) -> dict[str, Any]:
    """Each rank one block of side^3 doubles of a global 3-D array, one write of it."""
    return kernel_workload("block3d-io", ranks, ["--block", str(side), "--method", "mpiio"])


#: distinct configs of a small workload: the per-batch and per-config costs dominate
LAYOUTS = [{"lustre": {"stripe_count": count}, "mpiio": {"cb_buffer_size": 2**20 * size}}
           for count in (1, 2, 4, 8) for size in (1, 2, 4, 8, 16)]
#: independent writes walk every piece (side^2 a rank): the steps dominate
INDEPENDENT = {"mpiio": {"romio_cb_write": "disable"}}


#: runs a program and writes its CPU seconds and peak resident KiB (wait4) to argv[1]. A child
#: of this small process, not of pytest: Linux carries a parent's peak resident size into a
#: child it spawns, and a pytest worker deep in the suite holds hundreds of MiB.
_RUSAGE = """import json, os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    json.dump([os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime,
               usage.ru_maxrss], out)
"""


def measured(payload: dict[str, Any], jobs: int, tmp_path: Path) -> tuple[float, int]:
    """CPU seconds and peak resident bytes of iosim (and its workers) simulating ``payload``,
    as wait4 reports them."""
    given, answer, usage = tmp_path / "in.json", tmp_path / "out.json", tmp_path / "usage.json"
    given.write_text(json.dumps(payload))
    with given.open() as stdin, answer.open("w") as stdout:
        subprocess.run([sys.executable, "-c", _RUSAGE, str(usage),
                        str(paths.simulator_binary()), "--jobs", str(jobs), "-"],
                       stdin=stdin, stdout=stdout, check=True, timeout=600)
    returncode, seconds, peak_kib = json.loads(usage.read_text())
    results = json.loads(answer.read_text())["results"]
    assert returncode == 0 and all(r["ok"] for r in results), results
    return seconds, peak_kib * 1024


@pytest.mark.parametrize(("workload", "configs"), [
    (load_workload(WORKLOAD), LAYOUTS), (block3d(384, 64), [INDEPENDENT])],
    ids=["small", "pieces"])
def test_the_estimate_is_within_a_factor_of_a_real_run(workload: dict[str, Any],
                                                       configs: list[Config],
                                                       tmp_path: Path) -> None:
    platform = load_platform("archer")
    one = simulation_cost(platform, workload, "w", configs, jobs=1)
    estimated_s = batch_seconds(1) + len(configs) * one.seconds
    seconds, peak = measured(simulator_input(platform, workload, configs), 1, tmp_path)
    print(f"estimated {estimated_s:.3f} s and {one.memory_bytes / 2**20:.0f} MiB; measured "
          f"{seconds:.3f} s of CPU and {peak / 2**20:.0f} MiB resident (a loaded machine)")
    assert seconds / FACTOR <= estimated_s <= seconds * FACTOR
    assert peak / FACTOR <= one.memory_bytes <= peak * FACTOR


def test_a_workload_beyond_the_memory_limit_is_refused_by_iosim_naming_it() -> None:
    with pytest.raises(UserError) as refused:
        simulation_cost(load_platform("archer"), block3d(2**16, 4), "w.yaml",
                        memory_limit=2**20)
    assert str(refused.value) == (
        "w.yaml: ranks: estimated 1.8 MiB of memory (most for 65536 ranks placed "
        "(workload.ranks) on archer), over the 1.0 MiB limit; lower ranks or raise --max-memory")
