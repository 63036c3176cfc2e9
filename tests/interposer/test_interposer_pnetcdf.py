"""The interposer's PnetCDF layer, in real runs of a PnetCDF program (tests/programs/
pnetcdf_block.c: a 3-D block per rank of each variable, written collectively, or each rank on
its own in PnetCDF's independent data mode, which opens the file again on MPI_COMM_SELF) under
Open MPI, which Debian's PnetCDF is built on: the config's hints, PnetCDF's own among them (the
`pnetcdf` block), merged into the info the program passes to ncmpi_create (its own hint kept),
read back with ncmpi_inq_file_info and judged; the file reported once, as PnetCDF's (neither
of its MPI files is reported again by the MPI-IO layer), with every byte PnetCDF wrote; its
writes captured as an MPI-IO file's, header included, each rank's bytes where the real file has
them, and simulated as the `api: mpiio` file it is (a captured form: sim-models/WORKLOAD.md).
PnetCDF's settings reach no other file: an HDF5 or MPI-IO file lists them as not effective."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from iotwin.core import paths
from iotwin.executors import launch
from iotwin.executors.capture_run import records_in
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.workloads.from_capture import workload_from_capture
from support.cdf5 import cdf5_offsets
from support.file_layout import merged
from support.mpiio_capture import captured_bytes

pytestmark = pytest.mark.slow

RANKS, EDGE, VARIABLES = 4, 8, 3
DATA_BYTES = RANKS * VARIABLES * EDGE**3 * 8
HEADER_ALIGN = 8192
CONFIG = """
files:
  - match: "*.nc"
    mpiio: {cb_nodes: 2}
    pnetcdf: {nc_header_align_size: 8KiB}
"""

PROGRAM = paths.built("openmpi/tests/programs/pnetcdf_block")   # built where PnetCDF is
MODES = ["collective", "independent"]   # how the program writes its blocks


def run(folder: Path, config: str | None, mode: str = "collective"
        ) -> tuple[list[dict], list[dict]]:
    """The program under the Open MPI interposer, capturing: its report and capture lines."""
    report, records = folder / "report.jsonl", folder / "capture.jsonl"
    env = {"LD_PRELOAD": str(paths.interposer_library("openmpi")),
           "IOTWIN_REPORT": str(report), "IOTWIN_CAPTURE": str(records)}
    if config is not None:
        (folder / "cfg.yaml").write_text(config)
        env["IOTWIN_CONFIG"] = str(folder / "cfg.yaml")
    done = launch.run_mpi(RANKS, [PROGRAM, "out.nc", str(EDGE), str(VARIABLES), mode], env=env,
                          cwd=folder, timeout=180, using=launch.launcher("openmpi"))
    assert done.returncode == 0, done.stderr
    return ([json.loads(line) for line in report.read_text().splitlines()],
            [json.loads(line) for line in records.read_text().splitlines()])


def file_lines(lines: list[dict], kind: str) -> list[dict]:
    return [line for line in lines if kind in line]


def first_data_byte(record: dict) -> int:
    """Where the variables begin: the lowest byte any rank wrote but the header (rank 0's
    first write, at offset 0)."""
    return min(offset for rank in range(RANKS)
               for offset, _ in captured_bytes(record, rank)[(rank == 0):])


def data_bytes(record: dict) -> int:
    return sum(length for rank in range(RANKS)
               for _, length in captured_bytes(record, rank)[(rank == 0):])


@pytest.mark.parametrize("mode", MODES)
def test_hints_reach_pnetcdf_and_are_read_back(mode: str, scratch: Path) -> None:
    lines, records = run(scratch, CONFIG, mode)
    [report] = file_lines(lines, "iotwin_report")   # one line: the MPI file is not reported again
    assert report["api"] == "pnetcdf" and report["driver"] == "mpiio"
    assert report["applied"]["hints"] == {"cb_nodes": "2",
                                          "nc_header_align_size": str(HEADER_ALIGN)}
    effective = report["effective"]["hints"]
    assert effective["nc_header_align_size"] == str(HEADER_ALIGN)
    assert effective["nc_var_align_size"] == "512"   # the program's own hint, kept
    assert effective["cb_nodes"] == "2"
    assert not [e for e in report["not_effective"] if e["key"].startswith(("mpiio.", "pnetcdf."))]
    # every variable's blocks and the header, which alone is not a multiple of a block
    assert report["bytes"] > DATA_BYTES and (report["bytes"] - DATA_BYTES) % (EDGE * 8) != 0
    assert report["writes"] == VARIABLES * RANKS + 1   # rank 0 writes the header
    [record] = file_lines(records, "iotwin_capture")
    assert record["api"] == "pnetcdf"
    # the header's alignment acted: the first variable begins at the next boundary
    assert first_data_byte(record) == HEADER_ALIGN
    assert data_bytes(record) == DATA_BYTES   # each rank's blocks, where PnetCDF put them


def test_without_a_config_the_variables_follow_the_header(scratch: Path) -> None:
    lines, records = run(scratch, None)
    [report] = file_lines(lines, "iotwin_report")
    assert report["applied"]["hints"] == {}
    assert report["effective"]["hints"]["nc_var_align_size"] == "512"
    [record] = file_lines(records, "iotwin_capture")
    assert first_data_byte(record) < HEADER_ALIGN


@pytest.mark.parametrize("mode", MODES)
def test_each_ranks_captured_bytes_are_its_bytes_in_the_file(mode: str, scratch: Path) -> None:
    """Byte-exact: rank 0's header is [0, its size) of the file (ncoffsets), every other byte
    a rank's capture places is one of its own values in the real file (rank * 1000 + the
    variable + a fraction, big-endian as CDF stores it), and the ranks' bytes together are the
    variables' extents. The header is a call of its own, rank 0's alone and independent; the
    blocks are collective calls of every rank, or independent ones."""
    _, records = run(scratch, CONFIG, mode)
    [record] = file_lines(records, "iotwin_capture")
    real = cdf5_offsets(scratch / "out.nc")
    data = (scratch / "out.nc").read_bytes()
    blocks = []
    for rank in range(RANKS):
        runs = captured_bytes(record, rank)
        if rank == 0:
            assert runs[0] == (0, real.header_bytes)
            runs = runs[1:]
        values = np.concatenate([np.frombuffer(data[o:o + n], dtype=">f8") for o, n in runs])
        assert values.size == VARIABLES * EDGE**3, rank
        assert set(np.floor(values / 1000).tolist()) == {rank}, rank
        blocks += runs
    assert merged(blocks) == merged((a, b - a) for a, b in real.variables.values())
    header, *writes = [c for c in record["calls"] if "write" in c]
    assert header["transfer"] == "independent"
    if mode == "collective":   # rank 0 alone: not a part of the first collective write
        assert [run["ranks"][:2] for run in header["selections"][0]["runs"]] == [[0, 1]]
        assert {c["transfer"] for c in writes} == {"collective"}
    else:   # every rank's k-th independent write is one call (WORKLOAD.md), the header's too
        assert {c["transfer"] for c in writes} == {"independent"}


@pytest.mark.parametrize("mode", MODES)
def test_its_captured_workload_is_the_mpiio_file_pnetcdf_wrote(mode: str,
                                                                scratch: Path) -> None:
    lines, records = run(scratch, CONFIG, mode)
    [report] = file_lines(lines, "iotwin_report")
    workload = workload_from_capture(records_in(scratch, records), "pnetcdf_block", "test")
    assert [f["api"] for f in workload["files"]] == ["mpiio"]
    plain = {"mpiio": {"romio_cb_write": "disable", "romio_ds_write": "disable"}}
    default, without_sieving = simulate(load_platform("local"), dict(workload), [{}, plain])
    assert default.ok and without_sieving.ok
    # with neither collective buffering nor sieving rewriting holes: the bytes PnetCDF wrote
    assert sum(without_sieving.breakdown["bytes_per_target"]) == report["bytes"]


def test_pnetcdf_settings_reach_no_other_file(scratch: Path) -> None:
    """A program writing an HDF5 file and MPI-IO files (tests/programs/mpiio_writer.c, Open
    MPI): no PnetCDF hint is passed to them, and each lists the key as not effective, naming
    how the file is written."""
    (scratch / "cfg.yaml").write_text("pnetcdf: {nc_var_align_size: 4KiB}\n"
                                      "mpiio: {cb_buffer_size: 4MiB}\n")
    report = scratch / "report.jsonl"
    env = {"LD_PRELOAD": str(paths.interposer_library("openmpi")),
           "IOTWIN_REPORT": str(report), "IOTWIN_CONFIG": str(scratch / "cfg.yaml")}
    done = launch.run_mpi(2, [paths.built("openmpi/tests/programs/mpiio_writer"), scratch],
                          env=env, cwd=scratch, timeout=180, using=launch.launcher("openmpi"))
    assert done.returncode == 0, done.stderr
    reports = file_lines([json.loads(line) for line in report.read_text().splitlines()],
                         "iotwin_report")
    assert {r["api"] for r in reports} == {"hdf5", "mpiio"}
    for r in reports:
        assert r["applied"]["hints"] == {"cb_buffer_size": "4194304"}, r["file"]
        [entry] = [e for e in r["not_effective"] if e["key"].startswith("pnetcdf.")]
        assert entry["key"] == "pnetcdf.nc_var_align_size"
        assert entry["reason"] == (f"the file is written through {r['api']}: no pnetcdf "
                                   f"setting acts on it")
