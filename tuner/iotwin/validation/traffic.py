"""Traffic against real logs: what iosim says reaches the file system, beside what Darshan saw.

For each Darshan log of ``validation/traffic/logs.yaml`` (logs the darshan package ships),
the workload is rebuilt from the log (``iotwin workload from-darshan``) and simulated on the
platform model closest to the machine the log came from, under its site defaults and the
striping the log's LUSTRE module records. The simulation's POSIX-level counts (iosim's
``breakdown.posix``: data writes, HDF5 metadata writes, read-modify-write reads, Darshan's
write-size bins) are set beside the log's POSIX counters. Bytes and calls are what the
mechanisms decide (collective buffering, data sieving, read-modify-write, fill, metadata);
no rate is compared: these logs were not taken on the modelled machines.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from iotwin.config.types import Config
from iotwin.config.validation import validate_config
from iotwin.core import paths
from iotwin.core.cost import Cost, Limits
from iotwin.core.errors import UserError
from iotwin.core.readme_block import fill_block
from iotwin.core.yaml_files import read_yaml
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.model.sim_cost import simulation_cost
from iotwin.workloads.replication.darshan_log import LogRecords, log_activity, read_records
from iotwin.workloads.replication.darshan_workload import workload_from_activity

#: Darshan's POSIX access-size bins, as its counters name them (iosim counts the same bins)
SIZE_BINS = ("0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M",
             "10M_100M", "100M_1G", "1G_PLUS")


@dataclass(frozen=True)
class Traffic:
    """POSIX-level traffic of one run: bytes and calls, writes by Darshan's size bins."""

    bytes_written: int
    bytes_read: int
    writes: int
    reads: int
    write_sizes: tuple[int, ...]  # one count per SIZE_BINS entry


@dataclass(frozen=True)
class LogTraffic:
    log: str
    platform: str
    config: Config
    why: str
    ranks: int
    mpiio_bytes_written: int
    logged: Traffic
    simulated: Traffic
    metadata_writes: int  # of the simulated writes: HDF5 metadata entries (sizes not modelled)


def traffic_dir() -> Path:
    return paths.repo_root() / "validation" / "traffic"


def darshan_package_dir() -> Path:
    """Where the darshan package (and the logs it ships) is installed; darshan itself is
    loaded only by the log reader's child process."""
    spec = importlib.util.find_spec("darshan")
    if spec is None or spec.origin is None:
        raise UserError("the darshan package is not installed: pip install -e 'tuner[dev]'")
    return Path(spec.origin).parent


def logged_traffic(records: LogRecords) -> tuple[Traffic, int]:
    """The log's POSIX counters summed over the files the application opened through MPI-IO
    (the ones the rebuilt workload covers: not stdout, not MPI's own shared-memory files),
    and its MPI-IO bytes written."""
    mpiio = records.of("MPI-IO")
    opened = {row["id"] for row in mpiio}
    posix = [row for row in records.of("POSIX") if row["id"] in opened]

    def total(rows: list[dict[str, Any]], key: str) -> int:
        return int(sum(row.get(key, 0) for row in rows))

    return Traffic(total(posix, "POSIX_BYTES_WRITTEN"), total(posix, "POSIX_BYTES_READ"),
                   total(posix, "POSIX_WRITES"), total(posix, "POSIX_READS"),
                   tuple(total(posix, f"POSIX_SIZE_WRITE_{b}") for b in SIZE_BINS)
                   ), total(mpiio, "MPIIO_BYTES_WRITTEN")


def simulated_traffic(result: Any) -> tuple[Traffic, int]:
    """What iosim's breakdown says reached the file system."""
    bd = result.breakdown
    calls = bd["posix"]
    metadata = int(calls["metadata_writes"])
    return Traffic(int(sum(bd["bytes_per_target"])), int(calls["read_bytes"]),
                   int(calls["writes"]) + metadata, int(calls["reads"]),
                   tuple(int(n) for n in calls["write_sizes"])), metadata


def log_striping(records: LogRecords) -> dict[str, Any]:
    """The stripe count and size the log's LUSTRE module records (first record), if any."""
    if not records.of("LUSTRE"):
        return {}
    first = records.of("LUSTRE")[0]
    return {"lustre": {"stripe_count": int(first["LUSTRE_COMP_STRIPE_COUNT"]),
                       "stripe_size": int(first["LUSTRE_COMP_STRIPE_SIZE"])}}


def run_traffic(spec_path: Path | None = None, *,
                progress: Callable[[str], None] | None = None,
                limits: Limits | None = None) -> list[LogTraffic]:
    """Every log of the spec: its counters and the simulation of its rebuilt workload; with
    ``limits``, the simulations estimated first and refused beyond them (UserError naming the
    log whose workload drives the estimate), the estimate said to ``progress``."""
    say = progress or (lambda _: None)
    source = spec_path or traffic_dir() / "logs.yaml"
    spec = read_yaml(source, "traffic spec")
    shipped = darshan_package_dir()
    rebuilt = []
    for entry in spec["logs"]:
        path = shipped / entry["file"]
        if not path.exists():
            raise UserError(f"{path}: not in this darshan package; logs.yaml names the logs "
                            "darshan ships")
        records = read_records(path)
        config = validate_config({**log_striping(records), **entry.get("config", {})},
                                 f"{path.name}: its striping and logs.yaml's config")
        work = workload_from_activity(log_activity(records))
        rebuilt.append((entry, path, records, work, config, load_platform(entry["platform"])))
    if limits is not None and rebuilt:
        say(limits.check(functools.reduce(Cost.then, (
            simulation_cost(platform, work, f"{source}: {path.name}", [config],
                            memory_limit=limits.memory_bytes, jobs=1)
            for _, path, _, work, config, platform in rebuilt))).text())
    found = []
    for entry, path, records, work, config, platform in rebuilt:
        say(f"{path.name}: simulating on {entry['platform']}")
        logged, mpiio_bytes = logged_traffic(records)
        [result] = simulate(platform, work, [config], jobs=1)
        if not result.ok:
            raise UserError(f"{path.name}: simulation failed: {result.error}")
        simulated, metadata = simulated_traffic(result)
        found.append(LogTraffic(path.name, entry["platform"], config, entry["why"],
                                int(work["ranks"]),
                                mpiio_bytes, logged, simulated, metadata))
    return found


def markdown(found: Sequence[LogTraffic]) -> str:
    """One table of bytes and calls per log, one of write sizes."""
    lines = ["| log | ranks | platform, config | MPI-IO MB written | "
             "POSIX MB written (log / sim) | POSIX MB read (log / sim) | writes (log / sim) | "
             "reads (log / sim) |",
             "|---|---:|---|---:|---:|---:|---:|---:|"]
    for f in found:
        log, sim = f.logged, f.simulated
        lines.append(
            f"| {_short(f.log)} | {f.ranks} | {f.platform}, {_config(f.config)} | "
            f"{f.mpiio_bytes_written / 1e6:.1f} | "
            f"{log.bytes_written / 1e6:.1f} / {sim.bytes_written / 1e6:.1f} | "
            f"{log.bytes_read / 1e6:.1f} / {sim.bytes_read / 1e6:.1f} | "
            f"{log.writes} / {sim.writes} ({f.metadata_writes} metadata) | "
            f"{log.reads} / {sim.reads} |")
    lines += ["", "| log | " + " | ".join(b.replace("_", "-") for b in SIZE_BINS) + " |",
              "|---|" + "---:|" * len(SIZE_BINS)]
    for f in found:
        cells = [f"{a} / {b}" if a or b else "" for a, b in zip(f.logged.write_sizes,
                                                                 f.simulated.write_sizes,
                                                                 strict=True)]
        lines.append(f"| {_short(f.log)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _config(config: Config) -> str:
    leaves = [f"{key}={value}" for block in config.values() if isinstance(block, dict)
              for key, value in block.items()]
    return " ".join(leaves) or "site defaults"


def _short(name: str) -> str:
    return name if len(name) <= 32 else name[:29] + "..."


def write_outputs(found: Sequence[LogTraffic], directory: Path) -> None:
    """results.json, and the tables between README.md's markers."""
    (directory / "results.json").write_text(json.dumps([asdict(f) for f in found], indent=1)
                                            + "\n")
    fill_block(directory / "README.md", "traffic", markdown(found))
