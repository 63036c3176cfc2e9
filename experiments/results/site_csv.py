"""A CSV of runs as a site keeps them, measured here, for `iotwin landscape import`.

A site's table is rarely on a tuner's grid: its collective buffers are 3 MB or 700 KiB, its
configs were run unequal numbers of times, it holds no row called "the default", and every
column is filled in whether the setting applied or not. This measures such a table on this
machine (block3d-io, 2 ranks, the 128^3 block a rank written without a flush, as
experiments/landscape/block3d-2.yaml; here the transfer mode is a setting), one run at a time
through `iotwin run`, the configs in a rotated order each pass, and writes it as a site would:

    PYTHONPATH=tuner .venv/bin/python experiments/results/site_csv.py \\
        experiments/landscape/block3d-2-site-runs.csv --passes 12
    cd experiments/landscape && iotwin landscape import block3d-2-site-runs.csv \\
        block3d-2-site.yaml --rate bandwidth --ignore date --ignore pass

Config i runs in passes 0 .. passes - 1 - (i % 3): a third of them one run fewer, a third two.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import datetime
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from iotwin.space.parameters import load_space
from iotwin.tuning.repetitions import rotation

#: the settings as a site writes them: every column filled, values off the local space's grid
CONFIGS = [
    {"transfer_mode": "independent", "romio_ds_write": "automatic"},
    {"transfer_mode": "independent", "romio_ds_write": "disable"},
    {"transfer_mode": "independent", "romio_ds_write": "enable"},
    {"transfer_mode": "collective", "romio_cb_write": "enable", "cb_nodes": "2",
     "cb_buffer_size": "700KiB"},
    {"transfer_mode": "collective", "romio_cb_write": "enable", "cb_nodes": "2",
     "cb_buffer_size": "3000000"},
    {"transfer_mode": "collective", "romio_cb_write": "enable", "cb_nodes": "2",
     "cb_buffer_size": "12MB"},
    {"transfer_mode": "collective", "romio_cb_write": "enable", "cb_nodes": "1",
     "cb_buffer_size": "50000000"},
    {"transfer_mode": "collective", "romio_cb_write": "automatic", "cb_nodes": "2",
     "cb_buffer_size": "20MiB"},
    {"transfer_mode": "collective", "romio_cb_write": "disable"},
]
COLUMNS = ["transfer_mode", "romio_cb_write", "cb_nodes", "cb_buffer_size", "romio_ds_write"]
FILLER = {"romio_cb_write": "automatic", "cb_nodes": "1", "cb_buffer_size": "4MiB",
          "romio_ds_write": "automatic"}  # what the site's sheet says where a setting is moot
PROGRAM_ARGS = ["--block", "128", "--no-sync"]
SPACE = load_space("local")  # the columns are its parameters' names


def tuning_config(settings: dict[str, str]) -> dict[str, dict[str, object]]:
    """The interposer's config (interposer/CONFIG.md) of a row's settings, written as they are
    (off the space's grid too), each at its parameter's key; a parameter the space derives
    from them (cb_config_list "*:{cb_nodes}") formatted as the space formats it."""
    config: dict[str, dict[str, object]] = {}
    for parameter in SPACE.parameters:
        value: object = None
        if parameter.name in settings:
            written = settings[parameter.name]
            value = int(written) if written.isdigit() else written
        elif parameter.template is not None:
            with contextlib.suppress(KeyError):  # an input not set: the key left to its default
                value = parameter.template.format(**settings)
        if value is not None:
            section, key = parameter.keys[0].split(".")
            config.setdefault(section, {})[key] = value
    return config


def one_run(settings: dict[str, str], scratch: Path) -> float | None:
    path = scratch / "config.yaml"
    path.write_text(yaml.safe_dump(tuning_config(settings)))
    done = subprocess.run(
        [sys.executable, "-m", "iotwin", "run", "block3d-io", "--ranks", "2", "--repeat", "1",
         "--config", str(path), "--json", "--store", str(scratch / "runs.db"),
         "--workdir", str(scratch), "--", *PROGRAM_ARGS],
        capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        return None
    rate = json.loads(done.stdout)["repetitions"][0]["rate_mbs"]
    return float(rate) if rate else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--passes", type=int, default=6)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch, args.out.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["date", "pass", *COLUMNS, "bandwidth"])
        for done in range(args.passes):
            for i in rotation(range(len(CONFIGS)), done):
                if done >= args.passes - (i % 3):
                    continue
                rate = one_run(CONFIGS[i], Path(scratch))
                row = {**FILLER, **CONFIGS[i]}
                writer.writerow([datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                                 done, *(row[c] for c in COLUMNS),
                                 "" if rate is None else f"{rate:.1f}"])
                out.flush()
                print(f"pass {done} config {i}: {rate} MB/s", file=sys.stderr)


if __name__ == "__main__":
    main()
