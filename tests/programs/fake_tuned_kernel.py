"""A stand-in I/O kernel for tuner tests: its "rate" is a function of the tuning config.

Reads the config the executor writes (``$IOTWIN_CONFIG``) and, like a kernel, prints one JSON
line with ``total_s`` and ``rate_mbs``. ``cb_nodes: 4`` makes it crash and ``cb_nodes: 2``
makes it hang (until the executor's timeout), so campaigns meet both failures. Each run
appends its config to ``$FAKE_KERNEL_LOG`` so a test can count real runs. ``--sleep S``
slows each run down so that a test can kill a campaign mid-run.
"""

import json
import os
import sys
import time

import yaml


def main() -> int:
    sleep = float(sys.argv[sys.argv.index("--sleep") + 1]) if "--sleep" in sys.argv else 0.0
    with open(os.environ["IOTWIN_CONFIG"]) as stream:
        config = yaml.safe_load(stream) or {}
    if os.environ.get("FAKE_KERNEL_LOG"):
        with open(os.environ["FAKE_KERNEL_LOG"], "a") as log:
            log.write(json.dumps(config, sort_keys=True) + "\n")
    mpiio = config.get("mpiio", {})
    if mpiio.get("cb_nodes") == 4:
        os.abort()
    if mpiio.get("cb_nodes") == 2:
        time.sleep(3600)
    time.sleep(sleep)
    rate = 100.0
    rate *= 2.0 if config.get("dataset", {}).get("transfer_mode") == "collective" else 1.0
    rate *= 1.5 if "alignment" in config.get("hdf5", {}) else 1.0
    rate *= 1.2 if config.get("dataset", {}).get("fill_time") == "never" else 1.0
    print(json.dumps({"kernel": "fake", "bytes": 10**8, "total_s": 100.0 / rate,
                      "rate_mbs": rate}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
