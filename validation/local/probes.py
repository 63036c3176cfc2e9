"""Contrasting configs of vpic-io x4 on this machine, measured and simulated side by side.

    python validation/local/probes.py [--repeat 5] [--platform local] [CONFIG.yaml ...]

Each config (default: every probes/*.yaml) runs ``--repeat`` times for real (the interposer
applies it; nothing is stored); the table gives the median rate, the range of the runs, the
median time of each phase the kernel measures, and the platform model's uncalibrated
prediction with its phases. What the table is for: finding which mechanism decides the time
here, and which one the model is missing.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from iotwin.config.validation import load_config
from iotwin.core.run_records import Target
from iotwin.executors.local import LocalExecutor
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.workloads.workload import kernel_workload

ARGS = ["--particles", "1048576"]  # 128 MiB with 4 ranks, as the suite
PHASES = ("open_s", "write_s", "sync_s", "close_s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("configs", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--platform", default="local")
    args = parser.parse_args()
    paths = args.configs or sorted((Path(__file__).parent / "probes").glob("*.yaml"))
    configs = [load_config(path) for path in paths]
    model = simulate(load_platform(args.platform), kernel_workload("vpic-io", 4, ARGS), configs)
    executor, target = LocalExecutor(timeout_s=300), Target(ranks=4, kernel="vpic-io", args=ARGS)
    print(f"{'config':22} {'MB/s':>6} {'range':>9}  " + " ".join(f"{p:>8}" for p in PHASES)
          + f"  {'model':>6}  model phases (s)")
    for path, config, predicted in zip(paths, configs, model, strict=True):
        runs = [executor.run_once(target, config, seed=r) for r in range(args.repeat)]
        ok = [run for run in runs if run.ok and run.rate_mbs]
        if not ok:
            print(f"{path.stem:22} failed: {runs[0].error}")
            continue
        rates = [run.rate_mbs or 0.0 for run in ok]
        phases = [statistics.median(run.phases.get(p, 0.0) for run in ok) for p in PHASES]
        simulated = " ".join(f"{k}={v:.3f}" for k, v in predicted.phases.items())
        spread = f"{min(rates):4.0f}-{max(rates):<4.0f}"
        print(f"{path.stem:22} {statistics.median(rates):6.0f} {spread}  "
              + " ".join(f"{v:8.3f}" for v in phases)
              + f"  {predicted.rate_mbs or 0:6.0f}  {simulated}", flush=True)


if __name__ == "__main__":
    main()
