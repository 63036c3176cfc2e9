"""Every failure of `iotwin` is one line on stderr with a non-zero status; `--debug` adds the
traceback."""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
from pathlib import Path

import darshan
import pytest
from iotwin import cli
from iotwin.commands import show

IOR_LOG = Path(darshan.__file__).parent / "examples" / "example_logs" / "ior_hdf5_example.darshan"


def _broken_command(args: argparse.Namespace) -> int:
    return {"a": 1}["campaign"]  # a bug: KeyError


def test_an_unexpected_exception_is_one_line_naming_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(show, "main", _broken_command)  # a command with a bug in it
    assert cli.main(["show", "1"]) == cli.INTERNAL_ERROR_STATUS
    [line] = capsys.readouterr().err.splitlines()
    assert line == ("iotwin: internal error: KeyError: 'campaign'; run with --debug for the "
                    "traceback")


def test_debug_prints_the_traceback_before_the_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(show, "main", _broken_command)
    assert cli.main(["--debug", "show", "1"]) == cli.INTERNAL_ERROR_STATUS
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "Traceback (most recent call last):"
    assert any("_broken_command" in line for line in err)
    assert err[-1] == "iotwin: internal error: KeyError: 'campaign'"


def test_a_user_error_has_no_traceback_unless_debug(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nothing.darshan"
    assert cli.main(["workload", "from-darshan", str(missing)]) == cli.USER_ERROR_STATUS
    assert capsys.readouterr().err == f"iotwin: error: {missing}: no such Darshan log\n"
    assert cli.main(["--debug", "workload", "from-darshan", str(missing)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and err.endswith(f"iotwin: error: {missing}: no such Darshan log\n")


def test_an_output_that_cannot_be_written_is_named(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "no-such-dir" / "w.yaml"
    assert cli.main(["workload", "from-darshan", str(IOR_LOG), "-o", str(output)]) == 2
    assert capsys.readouterr().err == (f"iotwin: error: {output}: cannot write: No such file "
                                       "or directory\n")


def test_an_os_error_anywhere_is_one_line_with_its_file(tmp_path: Path) -> None:
    # `tune` writes the tuned config where --output says: a directory there is refused in one
    # line naming it, before the campaign starts
    output = tmp_path / "taken"
    output.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "iotwin", "tune", "--store", str(tmp_path / "s.db"),
         "--kernel", "vpic-io", "--ranks", "64", "--platform", "hopper", "--space", "poster",
         "--executor", "twin", "--strategy", "random", "--real-budget", "2",
         "--summary-repeat", "0", "--confirm", "0", "--output", str(output), "--",
         "--particles", "65536"], cwd=tmp_path, text=True, capture_output=True, timeout=600)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (f"iotwin: error: {output}: is a directory; name a "
                                            "file to write")
    assert not (tmp_path / "s.db").exists()   # refused before the campaign
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("argv", "what"), [
    (["simulate", "--platform", "{bad}", "--kernel", "vpic-io", "--ranks", "2"], "platform"),
    (["simulate", "--platform", "local", "--workload", "{bad}"], "workload"),
    (["workload", "macsio", "{bad}", "sim-a"], "MACSio description"),
    (["validate", "local", "--suite", "{bad}"], "suite"),
])
def test_a_yaml_file_that_is_not_utf8_is_named(argv: list[str], what: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes("name: caf\u00e9\n".encode("latin-1"))  # a UnicodeDecodeError before
    assert cli.main([word.replace("{bad}", str(bad)) for word in argv]) == 2
    assert capsys.readouterr().err == (f"iotwin: error: {bad}: cannot read the {what}: not "
                                       "UTF-8 text (byte 0xe9 at offset 9)\n")


WORKER_UNDER_THE_HANDLER = """
import multiprocessing, signal, time
from iotwin import cli
from iotwin.core.worker_pool import worker_pool
signal.signal(signal.SIGTERM, cli._terminate)
with worker_pool(1) as pool:
    busy = pool.apply_async(time.sleep, (60,))
    time.sleep(3)  # the worker is started and sleeping
    [worker] = multiprocessing.active_children()
# leaving the pool sent its worker SIGTERM
print(worker.exitcode)
"""


def test_a_pool_worker_ended_by_sigterm_prints_no_traceback() -> None:
    """A pool's worker is spawned, not forked: the command's SIGTERM handler is not its own, so
    a closing pool's SIGTERM ends it quietly, not as Ctrl-C would."""
    done = subprocess.run([sys.executable, "-c", WORKER_UNDER_THE_HANDLER], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout == f"{-signal.SIGTERM}\n", done.stderr
    assert "Traceback" not in done.stderr, done.stderr
