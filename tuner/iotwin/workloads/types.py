"""The workload format's types, generated from data/workload-schema.yaml by
``python -m iotwin.workloads.typegen``: do not edit by hand.

A value of type :class:`Workload` is a validated workload (``validate_workload``) as it is
written: the keys the schema allows, the ones it requires required."""

from __future__ import annotations

from typing import Literal, Required, TypedDict


class WorkloadHdf5Access(TypedDict, total=False):
    coll_metadata_write: bool
    all_coll_metadata_ops: bool


class WorkloadHdf5Create(TypedDict, total=False):
    libver_low: Literal["earliest", "v18", "v110", "v112", "v114"]
    link_creation_order: Literal["untracked", "tracked", "indexed"]
    attr_creation_order: Literal["untracked", "tracked", "indexed"]
    track_times: bool


class WorkloadDecomposition(TypedDict, total=False):
    grid: Required[list[int]]
    block: list[int]
    dims: list[int]
    extents: list[list[int]]


class WorkloadDataset(TypedDict, total=False):
    name: Required[str]
    element_bytes: Required[int]
    element_type: str
    decomposition: WorkloadDecomposition | None
    dims: list[int]
    chunk_dims: list[int] | None
    transfer: Literal["collective", "independent"]
    access_elements: int
    fill_time: Literal["ifset", "never", "alloc"]
    alloc_time: Literal["default", "early", "late", "incr"]
    fill_value: Literal["default", "user", "undefined"]


class WorkloadAttribute(TypedDict, total=False):
    object: Required[str]
    after_datasets: Required[int]
    name: str
    element_class: Literal["integer", "float", "string", "opaque"]
    element_bytes: int
    dims: list[int]
    set_scale: str
    attach_scale: str
    axis: int


class WorkloadRun(TypedDict, total=False):
    ranks: Required[list[int]]
    start: list[int]
    start_step: list[int]
    count: list[int]
    stride: list[int]
    block: list[int]


class WorkloadSelection(TypedDict, total=False):
    grid: list[int]
    block: list[int]
    dims: list[int]
    extents: list[list[int]]
    origin: list[int]
    runs: list[WorkloadRun]


class WorkloadRepeat(TypedDict, total=False):
    times: Required[int]
    origin_step: Required[list[int]]
    compute_between_s: float


class WorkloadCall(TypedDict, total=False):
    write: list[str]
    transfer: Literal["collective", "independent"]
    compute_before_s: float
    selections: list[WorkloadSelection]
    flush: bool
    repeat: WorkloadRepeat


class WorkloadFile(TypedDict, total=False):
    name: Required[str]
    role: Literal["checkpoint", "visualisation", "other"]
    mode: Literal["shared", "per-rank", "groups"]
    groups: int
    api: Literal["hdf5", "mpiio", "posix", "netcdf4", "pnetcdf"]
    library: Literal["netcdf4", "pnetcdf"]
    create: bool
    compute_before_s: float
    write_calls: Literal["per-dataset", "one-call"]
    flushes: int
    keep_open: bool
    hdf5_access: WorkloadHdf5Access
    hdf5_create: WorkloadHdf5Create
    datasets: Required[list[WorkloadDataset]]
    attributes: list[WorkloadAttribute]
    calls: list[WorkloadCall]


class Workload(TypedDict, total=False):
    iotwin_workload: Required[int]
    name: str
    source: str
    ranks: Required[int]
    ranks_per_node: int
    mpi: Literal["mpich", "openmpi"]
    timed: Literal["open-to-close", "writes"]
    files: Required[list[WorkloadFile]]
