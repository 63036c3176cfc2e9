"""`iosim --serve`, the long-lived iosim a process sends its batches to
(iotwin.model.iosim_process): the same answers as a one-shot run, a refused batch that leaves it
serving, a server that dies reported and one that died replaced, a forked child with a server
of its own."""

from __future__ import annotations

import os
import signal

import pytest
from iotwin.config.validation import validate_config
from iotwin.core.errors import UserError
from iotwin.model import iosim_process
from iotwin.model.sim import simulator_input
from support.one_shot_iosim import one_shot_stdout
from support.small_platform import MiB, small_platform, workload

CONFIGS = [validate_config({"lustre": {"stripe_count": n}}, "a test's config") for n in (1, 2, 4)]


def _payload(block: int = MiB) -> dict:
    return simulator_input(small_platform(rpc_overhead_s=0.01), workload(4, block), CONFIGS, None)


def _one_shot(payload: dict) -> list[dict]:
    return iosim_process.results(one_shot_stdout(payload, 2))


def _server_pid() -> int:
    [server] = iosim_process._started
    return server._process.pid


@pytest.fixture(autouse=True)
def no_servers() -> None:
    iosim_process.close_servers()


def test_a_served_batch_answers_as_a_one_shot_run_and_one_server_serves_them_all() -> None:
    first, second = _payload(MiB), _payload(4 * MiB)
    assert iosim_process.served(first, 2) == _one_shot(first)
    pid = _server_pid()
    assert iosim_process.served(second, 2) == _one_shot(second)
    assert iosim_process.served(first, 2) == _one_shot(first)
    assert _server_pid() == pid


def test_a_batch_iosim_cannot_read_is_refused_and_the_server_goes_on() -> None:
    assert iosim_process.served(_payload(), 2)
    pid = _server_pid()
    unreadable = _payload()
    unreadable["platform"]["network"] = float("nan")  # json.dumps writes NaN, not JSON
    with pytest.raises(UserError, match=r"iosim failed: iosim: .*parse error"):
        iosim_process.served(unreadable, 2)
    assert iosim_process.served(_payload(), 2) == _one_shot(_payload())
    assert _server_pid() == pid


def _killed_server() -> iosim_process.Server:
    """The server of a batch, killed and reaped: dead before anything is sent to it."""
    iosim_process.served(_payload(), 2)
    [server] = iosim_process._started
    os.kill(_server_pid(), signal.SIGKILL)
    server._process.wait(timeout=60)
    return server


def test_a_server_that_dies_is_reported() -> None:
    # sent to directly: served() would not take a server it sees dead (the next test)
    with pytest.raises(UserError, match=r"iosim failed: iosim ended with status -9"):
        _killed_server().answers(_payload())


def test_a_server_that_died_between_batches_is_replaced() -> None:
    pid = _killed_server()._process.pid
    assert iosim_process.served(_payload(), 2) == _one_shot(_payload())
    assert _server_pid() != pid


def test_a_forked_child_starts_its_own_server_and_leaves_the_parents() -> None:
    iosim_process.served(_payload(), 2)
    pid = _server_pid()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through its exit status
        ok = (not iosim_process._started
              and iosim_process.served(_payload(), 2) == _one_shot(_payload())
              and _server_pid() != pid)
        iosim_process.close_servers()
        os._exit(0 if ok else 1)
    _, status = os.waitpid(child, 0)
    assert os.WEXITSTATUS(status) == 0
    assert iosim_process.served(_payload(), 2) == _one_shot(_payload())
    assert _server_pid() == pid
