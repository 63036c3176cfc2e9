"""The child process that opens a Darshan log with darshan-util and prints its records as JSON.

darshan-util is C, and a corrupted log can make it read past its buffers (SIGSEGV) or fail an
assertion (``darshan-logutils.c:691: Assertion 'buf_len == 0' failed``, SIGABRT); it also
allocates what a corrupted length field asks for. So it never runs inside iotwin: this module
is started as ``python -m iotwin.workloads.replication.darshan_reader LOG MEMORY_BYTES`` by
:func:`iotwin.workloads.replication.darshan_log.read_records`, caps its own address space and
core dumps first, and answers with one JSON document on stdout:

- ``{"records": {...}}``: the job (ranks, run time), the modules with their header index,
  and each module of :data:`MODULES` the log has as plain rows, one per record: ``name``,
  ``id``, ``rank`` and every counter by its Darshan name (LUSTRE: one row per component);
- ``{"refused": "..."}``: the log is truncated (checked against its header's region map
  before any record is read);
- ``{"error": "..."}``: darshan-util or its Python binding failed with an exception.

darshan-util reports a region it cannot decompress with an ``Error:`` line on stderr and goes
on with what it has: the parent reads stderr and refuses the log then.
"""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path
from typing import Any

from iotwin.core.errors import UserError
from iotwin.workloads.replication.darshan_log import MODULES, check_complete


def limit_self(memory_bytes: int) -> None:
    """Cap this process's address space (under the cap it was started with, if lower), and
    write no core file when it crashes."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _generic_rows(report: Any, module: str) -> list[dict[str, Any]]:
    report.mod_read_all_records(module, dtype="numpy", warnings=False)
    names = report.counters[module]
    rows = []
    for record in report.records[module]._records:
        row = {"name": report.name_records[record["id"]], "id": int(record["id"]),
               "rank": int(record["rank"])}
        row.update(zip(names["counters"], (int(v) for v in record["counters"]), strict=True))
        row.update(zip(names["fcounters"], (float(v) for v in record["fcounters"]), strict=True))
        rows.append(row)
    return rows


def _lustre_rows(report: Any) -> list[dict[str, Any]]:
    report.mod_read_all_lustre_records(dtype="numpy", warnings=False)
    names = report.counters["LUSTRE"]["counters"]
    return [{"name": report.name_records[record["id"]], "id": int(record["id"]),
             "rank": int(record["rank"]),
             **dict(zip(names, (int(v) for v in component["counters"]), strict=True))}
            for record in report.records["LUSTRE"]._records for component in record["components"]]


def read(path: Path) -> dict[str, Any]:
    import darshan  # here, after limit_self: the cap covers everything darshan-util does

    report = darshan.DarshanReport(str(path), read_all=False)
    check_complete(path, [info["idx"] for info in report.modules.values()])
    job = report.metadata["job"]
    rows = {module: (_lustre_rows(report) if module == "LUSTRE"
                     else _generic_rows(report, module))
            for module in MODULES if module in report.modules}
    return {"ranks": int(job["nprocs"]), "run_time_s": float(job["run_time"]),
            "modules": {name: int(info["idx"]) for name, info in report.modules.items()},
            "rows": rows}


def main(argv: list[str]) -> int:
    path, memory_bytes = Path(argv[0]), int(argv[1])
    limit_self(memory_bytes)
    try:
        answer: dict[str, Any] = {"records": read(path)}
    except UserError as refusal:
        answer = {"refused": str(refusal)}
    except MemoryError:
        answer = {"error": f"needs more than {memory_bytes // 2**20} MiB of memory"}
    except Exception as error:  # darshan-util signals every failure its own way
        answer = {"error": f"{type(error).__name__}: {error}"}
    json.dump(answer, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
