"""A pool's workers run their numerical libraries on one thread, unless the user says."""

from __future__ import annotations

import os

import pytest
import threadpoolctl
from iotwin.core.worker_pool import worker_pool


def test_a_worker_runs_blas_on_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a machine of one core OpenBLAS would run one thread anyway: the variable says why."""
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    with worker_pool(1) as pool:
        assert pool.apply(os.getenv, ("OPENBLAS_NUM_THREADS",)) == "1"
        assert pool.apply(os.getenv, ("OMP_NUM_THREADS",)) == "1"
        pool.apply(exec, ("import numpy",))  # loads numpy's OpenBLAS in the worker
        blas = [info["num_threads"] for info in pool.apply(threadpoolctl.threadpool_info)
                if info["user_api"] == "blas"]
    assert blas == [1]
    assert os.getenv("OPENBLAS_NUM_THREADS") is None  # the command's own process is untouched


def test_a_users_thread_setting_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    with worker_pool(1) as pool:
        assert pool.apply(os.getenv, ("OPENBLAS_NUM_THREADS",)) == "3"
        assert pool.apply(os.getenv, ("OMP_NUM_THREADS",)) == "1"


_MARK_STARTED = "import os; os.environ['IOTWIN_WORKER_PROBE'] = 'started'"


def test_the_initializer_runs_in_each_worker() -> None:
    with worker_pool(2, exec, (_MARK_STARTED,)) as pool:
        assert pool.map(os.getenv, ["IOTWIN_WORKER_PROBE"] * 4, chunksize=1) == ["started"] * 4
