"""Building blocks of a workload (sim-models/WORKLOAD.md) shared by every replication path."""

from __future__ import annotations

from typing import Any

from iotwin.workloads.workload import dataset_bytes

Session = dict[str, Any]
Dataset = dict[str, Any]


def spread(total: int, writers: int) -> list[int]:
    """``total`` units over ``writers`` as evenly as possible; the first writers take the rest."""
    base, rest = divmod(total, writers)
    return [base + (1 if w < rest else 0) for w in range(writers)]


def dataset(name: str, element_bytes: int, writer_elements: list[int], *, transfer: str,
            access_elements: int | None = None) -> Dataset:
    """A 1-D dataset whose writer ``w`` writes ``writer_elements[w]`` elements."""
    if len(set(writer_elements)) == 1:
        decomposition: dict[str, Any] = {"grid": [len(writer_elements)],
                                         "block": [writer_elements[0]]}
    else:
        decomposition = {"grid": [len(writer_elements)], "extents": [list(writer_elements)]}
    entry: Dataset = {"name": name, "element_bytes": element_bytes,
                      "decomposition": decomposition, "chunk_dims": None, "transfer": transfer}
    if access_elements and access_elements < max(writer_elements):
        entry["access_elements"] = access_elements
    return entry


def session(name: str, role: str, datasets: list[Dataset], *, mode: str = "shared",
            api: str = "hdf5", create: bool = True, compute_before_s: float = 0.0,
            flushes: int = 0, keep_open: bool = False, groups: int | None = None) -> Session:
    entry: Session = {"name": name, "role": role, "mode": mode}
    if groups is not None:
        entry["groups"] = groups
    entry.update({"api": api, "create": create, "compute_before_s": round(compute_before_s, 3),
                  "write_calls": "per-dataset", "flushes": flushes})
    if keep_open:
        entry["keep_open"] = True
    entry["datasets"] = datasets
    return entry


def workload(name: str, source: str, ranks: int, files: list[Session]) -> dict[str, Any]:
    return {"iotwin_workload": 1, "name": name, "source": source, "ranks": ranks, "files": files}


def session_bytes(entry: Session, ranks: int) -> int:
    """Payload of one session over all ranks: every file it names."""
    copies = {"shared": 1, "per-rank": ranks}.get(entry["mode"]) or int(entry.get("groups") or 1)
    return copies * sum(dataset_bytes(d) for d in entry["datasets"])


def bytes_per_role(work: dict[str, Any]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for entry in work["files"]:
        totals[entry["role"]] = totals.get(entry["role"], 0) + session_bytes(entry, work["ranks"])
    return totals
