"""Simulate a fixed matrix of workloads x platforms x configs through `iotwin simulate --json`
and write every result, one JSON document per line, so that two trees' outputs can be
compared byte for byte (a behaviour-preserving change must leave the file unchanged).

    python tuner/tools/iosim_snapshot.py OUT.jsonl [--workload CAPTURED.yaml] [--iotwin BIN]

The matrix: the kernels vpic-io, vorpal-io and gcrm-io (small sizes), plus an optional
captured workload, on every platform of sim-models/platforms, under the 13 configs below.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]

KERNELS = {
    "vpic-io": ["--particles", "65536"],
    "vorpal-io": [],
    "gcrm-io": [],
}

CONFIGS: dict[str, dict] = {
    "default": {},
    "stripe-all": {"lustre": {"stripe_count": -1}},
    "stripe-8-4m": {"lustre": {"stripe_count": 8, "stripe_size": "4MiB"}},
    "cb-nodes-2": {"mpiio": {"cb_nodes": 2, "cb_config_list": "*:*"}},
    "cb-buffer-64m": {"mpiio": {"romio_cb_write": "enable", "cb_buffer_size": "64MiB"}},
    "cb-off": {"mpiio": {"romio_cb_write": "disable"}},
    "ds-off": {"mpiio": {"romio_cb_write": "disable", "romio_ds_write": "disable"}},
    "align-1m": {"hdf5": {"alignment": {"threshold": 0, "boundary": "1MiB"}}},
    "meta-1m": {"hdf5": {"meta_block_size": "1MiB", "coll_metadata_write": True}},
    "chunk-4m": {"dataset": {"chunk_size": "4MiB"}},
    "independent": {"dataset": {"transfer_mode": "independent", "fill_time": "never"}},
    "everything": {"lustre": {"stripe_count": 16, "stripe_size": "2MiB"},
                   "mpiio": {"romio_cb_write": "enable", "cb_nodes": 4,
                             "cb_buffer_size": "8MiB", "cb_config_list": "*:2"},
                   "hdf5": {"alignment": {"threshold": 0, "boundary": "2MiB"},
                            "all_coll_metadata_ops": True}},
    "openmpi-romio": {"openmpi": {"io": "romio321"}, "mpiio": {"cb_nodes": 2}},
}


def ranks_of(platform: str) -> int:
    return 4 if platform == "local" else 64


def simulate(iotwin: str, platform: str, config: Path, what: list[str]) -> str:
    command = [iotwin, "simulate", "--platform", platform, "--config", str(config), "--json",
               *what]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return json.dumps({"exit": done.returncode, "stdout": done.stdout,
                       "stderr": done.stderr.strip().splitlines()[-1:]}, sort_keys=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--workload", type=Path, help="a captured workload to add")
    parser.add_argument("--iotwin", default=str(ROOT / ".venv" / "bin" / "iotwin"))
    args = parser.parse_args()
    platforms = sorted(p.stem for p in (ROOT / "sim-models" / "platforms").glob("*.yaml"))
    with tempfile.TemporaryDirectory() as folder, args.output.open("w") as out:
        for name, config in CONFIGS.items():
            path = Path(folder) / f"{name}.yaml"
            path.write_text(yaml.safe_dump(config))
            for platform in platforms:
                cases = [(kernel, ["--kernel", kernel, "--ranks", str(ranks_of(platform)),
                                   "--", *extra]) for kernel, extra in KERNELS.items()]
                if args.workload:
                    cases.append(("captured", ["--workload", str(args.workload)]))
                for what, words in cases:
                    line = simulate(args.iotwin, platform, path, words)
                    out.write(f"{name} {platform} {what} {line}\n")
                    out.flush()
            print(f"config {name} done", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
