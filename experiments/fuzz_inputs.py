"""The long run of the input fuzz suite (tests/formats/test_fuzz_surfaces.py): each surface's
property with N random examples, its time and verdict; then what iosim costs at the spec sheet's
bound on targets (bounds.yaml: targets), so that the bound is one iosim can hold.

    .venv/bin/python experiments/fuzz_inputs.py --examples 2000

Figures are the machine's at the time: quote them with its load.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tuner"))

from iotwin.formats.bounds import load_bounds  # noqa: E402
from iotwin.model.platform_sheet import parse_sheet, platform_tree  # noqa: E402
from iotwin.model.platforms import parse_platform  # noqa: E402
from iotwin.model.sim import simulate  # noqa: E402

SUITE = "tests/formats/test_fuzz_surfaces.py"
PROPERTIES = ("sheet_is_a_model", "mangled_sheet", "measurement_table", "space_makes",
              "experiment_spec", "benchmark_spec", "landscape_spec", "layout_list",
              "stored_calibration",
              "site_file", "damaged_store", "beyond_its_limit")


def run_property(name: str, examples: int) -> tuple[str, float]:
    """One property's verdict (passed, or its last lines) and its time in seconds."""
    env = {**os.environ, "IOTWIN_FUZZ_EXAMPLES": str(examples),
           "PYTHONPATH": str(REPO / "tuner")}
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", SUITE, "-q", "-k", name, "-p",
                           "no:cacheprovider"], cwd=REPO, env=env, capture_output=True,
                          text=True)
    seconds = time.monotonic() - start
    verdict = "passed" if done.returncode == 0 else done.stdout.strip().splitlines()[-1]
    return verdict, seconds


def iosim_at(targets: int) -> tuple[float, float]:
    """Seconds and iosim's peak memory (MiB) of one small shared write on a file system of
    ``targets`` OSTs (as many servers), striped over every one of them."""
    sheet = {"platform_sheet": 1, "name": "wide",
             "compute": {"nodes": 64, "cores_per_node": 32, "nic_mbs": "100Gb/s"},
             "storage": {"type": "lustre", "servers": targets, "targets": targets,
                         "target_mbs": 800, "server_mbs": "5 GB/s", "metadata_servers": 1},
             "defaults": {"mpi": "romio-lustre", "stripe_count": 2}}
    platform = parse_platform(platform_tree(parse_sheet(sheet, "wide")), "wide")
    work = {"iotwin_workload": 1, "name": "shared", "ranks": 64, "files": [
        {"name": "f.dat", "mode": "shared", "api": "mpiio", "datasets": [
            {"name": "/x", "element_bytes": 8, "transfer": "collective",
             "decomposition": {"grid": [64], "block": [2**20]}}]}]}
    start = time.monotonic()
    [result] = simulate(platform, work, [{"lustre": {"stripe_count": -1}}], jobs=1)
    assert result.ok, result.error
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return time.monotonic() - start, peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=500, help="examples per property")
    args = parser.parse_args()
    print(f"{'property':20s} {'examples':>8s} {'seconds':>8s}  verdict")
    failed = 0
    for name in PROPERTIES:
        verdict, seconds = run_property(name, args.examples)
        failed += verdict != "passed"
        print(f"{name:20s} {args.examples:8d} {seconds:8.1f}  {verdict}", flush=True)
    bound = int(load_bounds()["targets"].max)
    print(f"\niosim, one 64-rank shared write striped over every target (bound: {bound}):")
    for targets in (16, 4096, bound):
        seconds, peak = iosim_at(targets)  # the peak so far: it only grows with targets
        print(f"  {targets:6d} targets: {seconds:6.1f} s, peak memory {peak:7.0f} MiB",
              flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
