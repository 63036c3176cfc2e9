"""The tuning config's types, generated from data/config-schema.yaml by
``python -m iotwin.config.typegen``: do not edit by hand.

A value of type :class:`Config` is a validated config (``validate_config``): every key the
schema allows, sizes as byte counts."""

from __future__ import annotations

from typing import Literal, Required, TypedDict


class OpenmpiSettings(TypedDict, total=False):
    io: Literal["ompio", "romio321"]
    fcoll: Literal["vulcan", "dynamic_gen2", "dynamic", "two_phase", "individual"]
    num_aggregators: int
    bytes_per_agg: int


class LustreComponents(TypedDict, total=False):
    end: Required[int | Literal["eof"]]
    mdt: bool
    stripe_count: int
    stripe_size: int
    pool: str
    extension_size: int


class LustreSettings(TypedDict, total=False):
    stripe_count: int
    stripe_size: int
    stripe_offset: int
    pool: str
    components: list[LustreComponents]


class MpiioSettings(TypedDict, total=False):
    romio_cb_write: Literal["enable", "disable", "automatic"]
    romio_cb_read: Literal["enable", "disable", "automatic"]
    cb_nodes: int
    cb_config_list: str
    cb_buffer_size: int
    romio_ds_write: Literal["enable", "disable", "automatic"]
    romio_ds_read: Literal["enable", "disable", "automatic"]
    romio_no_indep_rw: bool
    ind_wr_buffer_size: int
    ind_rd_buffer_size: int
    IBM_largeblock_io: bool
    bglockless: bool
    hints: dict[str, str]


class PnetcdfSettings(TypedDict, total=False):
    nc_header_align_size: int
    nc_var_align_size: int
    nc_record_align_size: int
    nc_in_place_swap: Literal["enable", "disable", "auto"]
    nc_ibuf_size: int


class Hdf5Alignment(TypedDict, total=False):
    threshold: int
    boundary: int


class Hdf5Settings(TypedDict, total=False):
    alignment: Hdf5Alignment
    meta_block_size: int
    sieve_buf_size: int
    coll_metadata_write: bool
    all_coll_metadata_ops: bool


class DatasetSettings(TypedDict, total=False):
    chunk_size: int
    chunk_dims: list[int]
    fill_time: Literal["never", "alloc", "ifset"]
    alloc_time: Literal["default", "early", "late", "incr"]
    transfer_mode: Literal["collective", "independent"]


class DatasetRule(DatasetSettings, total=False):
    match: Required[str]


class FileRule(TypedDict, total=False):
    lustre: LustreSettings
    mpiio: MpiioSettings
    pnetcdf: PnetcdfSettings
    hdf5: Hdf5Settings
    dataset: DatasetSettings
    datasets: list[DatasetRule]
    match: Required[str]


class Config(TypedDict, total=False):
    openmpi: OpenmpiSettings
    lustre: LustreSettings
    mpiio: MpiioSettings
    pnetcdf: PnetcdfSettings
    hdf5: Hdf5Settings
    dataset: DatasetSettings
    files: list[FileRule]
    iotwin: int
