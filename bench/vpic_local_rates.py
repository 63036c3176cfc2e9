"""vpic-io write rate on this machine under the default and contrasting configs, next to the
device's raw sequential write bandwidth measured in the same session.

    .venv/bin/python bench/vpic_local_rates.py [--ranks 4] [--particles 2097152] [--repeat 5]
    .venv/bin/python bench/vpic_local_rates.py --device-only [--size-mib 512] [--repeat 5]

Each config is run ``--repeat`` times (sync on, interleaved round-robin so that drift in the
machine's load hits every config alike); the device is measured with fio (direct I/O,
sequential 1 MiB writes) in the same scratch directory before and after. Prints medians,
spreads, and the ratios to the default and to the device.

``--device-only`` measures the device alone, ``--repeat`` times, and prints the leaf of the
local platform model's ``filesystem.target_mbs`` (sim-models/platforms/local.yaml): the rate of
the ceiling's target on this machine (IOSIM.md "Ceiling and binding mechanism"). Run it on a
quiet machine: the device is shared with every other job.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path
from typing import Any

from iotwin.core.run_records import Target
from iotwin.core.stats import Summary, summarize
from iotwin.executors.local import LocalExecutor, default_scratch_root

CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "independent": {"dataset": {"transfer_mode": "independent"}},
    "cb 4 aggregators *:*": {"mpiio": {"romio_cb_write": "enable", "cb_nodes": 4,
                                       "cb_config_list": "*:*", "cb_buffer_size": "16MiB"}},
    "cb + align 1MiB": {"mpiio": {"romio_cb_write": "enable", "cb_nodes": 2,
                                  "cb_config_list": "*:*"},
                        "hdf5": {"alignment": {"threshold": 0, "boundary": "1MiB"}}},
}


def device_write_mbs(directory: Path, size_mib: int) -> float:
    """fio: one sequential writer, 1 MiB blocks, O_DIRECT, in ``directory``; MB/s."""
    target = directory / "fio-seq-write.tmp"
    try:
        out = subprocess.run(
            ["fio", "--name=seq", f"--filename={target}", "--rw=write", "--bs=1M",
             f"--size={size_mib}M", "--direct=1", "--ioengine=psync", "--end_fsync=1",
             "--output-format=json"], check=True, capture_output=True, text=True).stdout
    finally:
        target.unlink(missing_ok=True)
    return json.loads(out)["jobs"][0]["write"]["bw_bytes"] / 1e6


def measure_configs(target: Target, repeat: int) -> dict[str, Summary]:
    executor = LocalExecutor()
    rates: dict[str, list[float]] = {name: [] for name in CONFIGS}
    for repetition in range(repeat):
        for name, config in CONFIGS.items():
            result = executor.run_once(target, config, seed=repetition)
            if not result.ok or result.rate_mbs is None:
                raise SystemExit(f"{name}: {result.status}: {result.error}")
            rates[name].append(result.rate_mbs)
            print(f"  rep {repetition + 1}/{repeat}  {name:<22} {result.rate_mbs:8.1f} MB/s",
                  flush=True)
    return {name: summarize(values) for name, values in rates.items()}


def device_leaf(scratch: Path, size_mib: int, repeat: int) -> str:
    """local.yaml's filesystem.target_mbs as fio measures the device: the median of
    ``repeat`` runs, with their range in the source."""
    rates = summarize([device_write_mbs(scratch, size_mib) for _ in range(repeat)])
    return (f"target_mbs: {{value: {rates.median:.0f}, bounds: [50, 3000], source: "
            f"\"measured: fio, one sequential writer of 1 MiB O_DIRECT blocks and an fsync at "
            f"the end, {size_mib} MiB in {scratch}, median of {repeat} runs "
            f"({rates.min:.0f}-{rates.max:.0f} MB/s; bench/vpic_local_rates.py "
            f"--device-only)\"}}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--particles", type=int, default=2 * 1024 * 1024)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--device-only", action="store_true",
                        help="measure the device alone and print local.yaml's target_mbs leaf")
    parser.add_argument("--size-mib", type=int, default=512,
                        help="bytes fio writes per run with --device-only (MiB)")
    args = parser.parse_args()
    scratch = default_scratch_root()
    scratch.mkdir(parents=True, exist_ok=True)
    if args.device_only:
        print(device_leaf(scratch, args.size_mib, args.repeat))
        return
    size_mib = args.ranks * args.particles * 32 // 2**20
    target = Target(ranks=args.ranks, kernel="vpic-io",
                    args=("--particles", str(args.particles), "--sync"))
    print(f"vpic-io, {args.ranks} ranks x {args.particles} particles ({size_mib} MiB per run), "
          f"sync on, {args.repeat} runs per config, scratch {scratch}")
    device_before = device_write_mbs(scratch, size_mib)
    rates = measure_configs(target, args.repeat)
    device_after = device_write_mbs(scratch, size_mib)
    device = (device_before + device_after) / 2
    print(f"\ndevice (fio, O_DIRECT sequential 1 MiB writes, {size_mib} MiB): "
          f"{device_before:.0f} MB/s before, {device_after:.0f} MB/s after\n")
    print(f"{'config':<22} {'median MB/s':>11}  {'min-max':>15} {'spread':>7} "
          f"{'vs default':>10} {'vs device':>9}")
    for name, rate in rates.items():
        print(f"{name:<22} {rate.median:11.1f}  {rate.min:7.1f}-{rate.max:<7.1f} "
              f"{100 * rate.spread:6.1f}% {rate.median / rates['default'].median:9.2f}x "
              f"{rate.median / device:8.3f}x")


#: the suite's run of it (tests/bench/test_bench_scripts.py): every path at the smallest size
SMOKE_ARGS = ["--ranks", "2", "--particles", "65536", "--repeat", "1"]

if __name__ == "__main__":
    main()
