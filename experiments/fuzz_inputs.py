"""The long run of the input fuzz suite (tests/formats/test_fuzz_surfaces.py): each surface's
property with N random examples, its time and verdict; then what iosim costs at the spec sheet's
bound on targets (bounds.yaml: targets), so that the bound is one iosim can hold.

    .venv/bin/python experiments/fuzz_inputs.py --examples 2000 [--jobs 2] [--only A,B]

Figures are the machine's at the time: quote them with its load.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tuner"))

from iotwin.formats.bounds import load_bounds  # noqa: E402
from iotwin.model import iosim_process  # noqa: E402
from iotwin.model.platform_sheet import parse_sheet, platform_tree  # noqa: E402
from iotwin.model.platforms import parse_platform  # noqa: E402
from iotwin.model.sim import simulate  # noqa: E402

SUITE = "tests/formats/test_fuzz_surfaces.py"
PROPERTIES = ("sheet_is_a_model", "mangled_sheet", "measurement_table", "space_makes",
              "experiment_spec", "benchmark_spec", "landscape_spec", "layout_list",
              "stored_calibration",
              "site_file", "damaged_store", "beyond_its_limit")


def run_property(name: str, examples: int) -> tuple[str, float, float, str]:
    """One property's verdict (passed, or pytest's last line), its wall and CPU seconds (of
    pytest and every process it started), and pytest's report when it failed (the falsifying
    example)."""
    env = {**os.environ, "IOTWIN_FUZZ_EXAMPLES": str(examples),
           "PYTHONPATH": str(REPO / "tuner")}
    start = time.monotonic()
    with tempfile.TemporaryFile("w+") as report:
        process = subprocess.Popen([sys.executable, "-m", "pytest", SUITE, "-q", "-k", name,
                                    "-p", "no:cacheprovider"], cwd=REPO, env=env,
                                   stdout=report, stderr=subprocess.STDOUT, text=True)
        _, status, used = os.wait4(process.pid, 0)  # this pytest's CPU alone: several run at once
        process.returncode = os.waitstatus_to_exitcode(status)
        report.seek(0)
        text = report.read()
    seconds, cpu = time.monotonic() - start, used.ru_utime + used.ru_stime
    if process.returncode == 0:
        return "passed", seconds, cpu, ""
    return text.strip().splitlines()[-1], seconds, cpu, text


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
    iosim_process.close_servers()  # its workers' peak counts once the server has ended
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return time.monotonic() - start, peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=500, help="examples per property")
    parser.add_argument("--jobs", type=int, default=1, help="properties run at once")
    parser.add_argument("--only", metavar="A,B", help="these properties only")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else PROPERTIES
    print(f"{'property':20s} {'examples':>8s} {'wall s':>8s} {'CPU s':>8s}  verdict")
    reports = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        runs = {pool.submit(run_property, name, args.examples): name for name in names}
        for done in as_completed(runs):
            verdict, seconds, cpu, report = done.result()
            if report:
                reports.append(report)
            print(f"{runs[done]:20s} {args.examples:8d} {seconds:8.1f} {cpu:8.1f}  {verdict}",
                  flush=True)
    for report in reports:
        print(f"\n{report}")
    bound = int(load_bounds()["targets"].max)
    print(f"\niosim, one 64-rank shared write striped over every target (bound: {bound}):")
    for targets in (16, 4096, bound):
        seconds, peak = iosim_at(targets)  # the peak so far: it only grows with targets
        print(f"  {targets:6d} targets: {seconds:6.1f} s, peak memory {peak:7.0f} MiB",
              flush=True)
    return 1 if reports else 0


if __name__ == "__main__":
    sys.exit(main())
