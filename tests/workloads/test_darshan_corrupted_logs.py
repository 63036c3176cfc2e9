"""Corrupted and truncated Darshan logs, made from the logs the darshan package ships: each ends
in one line naming the log, whatever darshan-util does with it (crash, abort, half a read)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import darshan
import pytest
import yaml
from iotwin.cli import main
from iotwin.core.errors import UserError
from iotwin.validation.traffic import run_traffic
from iotwin.workloads.replication.darshan_log import read_records

SHIPPED = Path(darshan.__file__).parent
MACSIO = next((SHIPPED / "examples" / "example_logs").glob("shane_macsio_*.darshan")).read_bytes()
IOR_HDF5 = (SHIPPED / "examples" / "example_logs" / "ior_hdf5_example.darshan").read_bytes()
DXT = (SHIPPED / "tests" / "input" / "sample-dxt-simple.darshan").read_bytes()


def _flip(data: bytes, at: int, mask: int) -> bytes:
    changed = bytearray(data)
    changed[at] ^= mask
    return bytes(changed)


def _overwrite(data: bytes, at: int, new: bytes) -> bytes:
    return data[:at] + new + data[at + len(new):]


# name -> (the corrupted log, what the refusal says); the offsets are in the shipped logs'
# header (its region map: name map at 24, then one (offset, length) per module), job region
# and compressed module regions
CORRUPTED: dict[str, tuple[Callable[[], bytes], str]] = {
    # the name map's offset moved by one byte: darshan-util misreads the mount table and
    # aborts (darshan-logutils.c:691: Assertion 'buf_len == 0' failed)
    "mount-table-abort": (lambda: _flip(MACSIO, 25, 0x01), "darshan-util crashed reading it"),
    # a bit of the compressed name hash flipped: abort in darshan_log_close
    "name-hash-bit": (lambda: _flip(DXT, 1139, 0x02), "darshan-util crashed reading it"),
    # 16 bytes of junk in the compressed job region: SIGSEGV or SIGABRT in darshan-util
    "job-region-junk": (lambda: _overwrite(MACSIO, 474, bytes(16)),
                        "darshan-util crashed reading it"),
    # a bit flipped in the POSIX region: darshan-util reads no record of POSIX and MPI-IO (the
    # KeyError: 'counters' traceback before)
    "posix-region-bit": (lambda: _flip(DXT, 3645, 0x08), "unable to inflate"),
    # a bit flipped in the MPI-IO region: darshan-util went on without MPI-IO, and the
    # workload came out of the rest (a silently wrong answer before)
    "mpiio-region-bit": (lambda: _flip(DXT, 6036, 0x02), "unable to inflate"),
    "mpiio-region-overwritten": (lambda: _overwrite(IOR_HDF5, 1456, b"\xff" * 184),
                                 "unable to inflate"),
    "header-zeroed": (lambda: _overwrite(MACSIO, 8, bytes(392)), "not a Darshan log"),
    "cut-in-the-header": (lambda: IOR_HDF5[:20], "not a Darshan log"),
    "cut-in-half": (lambda: IOR_HDF5[:len(IOR_HDF5) // 2], "truncated or corrupted"),
    "last-byte-cut": (lambda: IOR_HDF5[:-1], "truncated or corrupted"),
    # 40 bytes taken out of a compressed region (the POSIX module's)
    "compressed-region-cut": (lambda: IOR_HDF5[:1300] + IOR_HDF5[1340:],
                              "truncated or corrupted"),
    "empty": (lambda: b"", "not a Darshan log"),
}


def _one_line_error(err: str, log: Path) -> str:
    assert "Traceback" not in err
    [line] = err.splitlines()
    assert line.startswith(f"iotwin: error: {log}: ")
    return line


@pytest.mark.parametrize("case", sorted(CORRUPTED))
def test_corrupted_log_ends_in_one_line_naming_it(case: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    make, says = CORRUPTED[case]
    log = tmp_path / f"{case}.darshan"
    log.write_bytes(make())
    out = tmp_path / "w.yaml"
    assert main(["workload", "from-darshan", str(log), "-o", str(out)]) == 2
    assert not out.exists()
    assert says in _one_line_error(capsys.readouterr().err, log)


def test_the_abort_is_darshan_utils_own_and_iotwin_outlives_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "abort.darshan"
    log.write_bytes(_flip(MACSIO, 25, 0x01))
    # darshan's own reader, in this interpreter, dies of the log: the defect reproduced
    raw = subprocess.run([sys.executable, "-c", "import darshan, sys; "
                          "darshan.DarshanReport(sys.argv[1], read_all=True)", str(log)],
                         capture_output=True, text=True, errors="replace", check=False)
    assert raw.returncode < 0 and "Assertion `buf_len == 0' failed" in raw.stderr
    # iotwin reads it in a child: this process is still here to report it, in one line
    assert main(["workload", "from-darshan", str(log)]) == 2
    line = _one_line_error(capsys.readouterr().err, log)
    assert "SIGABRT" in line and "buf_len == 0" in line


def test_validate_traffic_refuses_a_corrupted_log_in_one_line(tmp_path: Path) -> None:
    log = tmp_path / "abort.darshan"
    log.write_bytes(_flip(MACSIO, 25, 0x01))
    spec = tmp_path / "logs.yaml"
    spec.write_text(yaml.safe_dump({"logs": [{"file": str(log), "platform": "local",
                                              "why": "corrupted"}]}))
    with pytest.raises(UserError, match="darshan-util crashed reading it") as refused:
        run_traffic(spec)
    assert str(refused.value).startswith(f"{log}: ") and "\n" not in str(refused.value)


def test_the_reader_is_held_to_its_memory_cap(tmp_path: Path) -> None:
    log = tmp_path / "ior.darshan"
    log.write_bytes(IOR_HDF5)
    with pytest.raises(UserError) as refused:  # 64 MiB: not even darshan's imports fit
        read_records(log, memory_bytes=64 * 2**20)
    message = str(refused.value)
    assert message.startswith(f"{log}: ") and "\n" not in message
    assert "64 MiB of memory" in message


def test_a_binding_that_fails_in_many_lines_is_refused_in_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a darshan package first on the child's path whose reader raises as numpy's import does
    # under a tight memory cap: a message of many lines, blank ones among them
    binding = tmp_path / "binding"
    binding.mkdir()
    (binding / "darshan.py").write_text(
        "def DarshanReport(*args, **kwargs):\n"
        "    raise ImportError('numpy could not be imported\\n\\n"
        "Importing the numpy C-extensions failed.\\nOriginal error was: out of memory')\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(binding), *filter(None, [os.environ.get("PYTHONPATH")])]))
    log = tmp_path / "ior.darshan"
    log.write_bytes(IOR_HDF5)
    with pytest.raises(UserError) as refused:
        read_records(log)
    message = str(refused.value)
    assert "\n" not in message
    assert message == (f"{log}: cannot be read as a Darshan log (ImportError: numpy could not "
                       "be imported; Importing the numpy C-extensions failed; Original error "
                       "was: out of memory)")


def test_the_reader_is_held_to_its_time_limit(tmp_path: Path) -> None:
    log = tmp_path / "ior.darshan"
    log.write_bytes(IOR_HDF5)
    with pytest.raises(UserError, match=r"took longer than 0\.001 s"):
        read_records(log, timeout_s=0.001)


def test_an_intact_log_reads_in_the_child_as_darshan_reads_it() -> None:
    path = SHIPPED / "examples" / "example_logs" / "ior_hdf5_example.darshan"
    records = read_records(path)
    report = darshan.DarshanReport(str(path), read_all=True)  # intact: safe in this process
    assert records.ranks == report.metadata["job"]["nprocs"] == 4
    assert records.modules == list(report.modules)
    for module in ("POSIX", "MPI-IO", "H5F", "H5D"):
        frames = report.records[module].to_df()
        expected = [{**counters, **fcounters} for counters, fcounters in zip(
            frames["counters"].to_dict("records"), frames["fcounters"].to_dict("records"),
            strict=True)]
        assert [{k: v for k, v in row.items() if k != "name"} for row in records.of(module)] \
            == expected
    [component] = records.of("LUSTRE")
    assert (component["LUSTRE_COMP_STRIPE_COUNT"], component["LUSTRE_COMP_STRIPE_SIZE"]) == (
        1, 1048576)
