"""A campaign killed by a signal mid-run resumes with no measured run lost or repeated."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from iotwin.store.database import Store
from support.programs import PROGRAMS

DRIVER = PROGRAMS / "tune_fake_kernel.py"
BUDGET, REPETITIONS = 12, 2  # as in the driver's spec


def start(store: Path, log: Path, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "FAKE_KERNEL_LOG": str(log)}
    return subprocess.Popen([sys.executable, str(DRIVER), str(store), *extra], env=env,
                            stdout=subprocess.PIPE, text=True, start_new_session=True)


def wait_for_rows(store_path: Path, campaign_id: int, count: int, proc: subprocess.Popen[str]
                  ) -> None:
    while True:
        assert proc.poll() is None, "the campaign ended before it could be killed"
        with Store(store_path) as store:
            if len(store.evaluations(campaign_id, source="real")) >= count:
                return
        time.sleep(0.05)


def wait_until_group_is_gone(pgid: int) -> None:
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def measured_sequence(store_path: Path, campaign_id: int) -> list[tuple[str, int]]:
    with Store(store_path) as store:
        return [(row.config_hash, row.repetition)
                for row in store.evaluations(campaign_id, source="real")]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, int]]:
    """What a campaign that was never interrupted measured, in order: one for every signal."""
    folder = tmp_path_factory.mktemp("reference")
    campaign = start(folder / "reference.db", folder / "reference.log")
    campaign_id = int(campaign.stdout.readline())  # type: ignore[union-attr]
    assert campaign.wait(timeout=300) == 0
    return measured_sequence(folder / "reference.db", campaign_id)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killed_campaign_resumes_without_losing_or_repeating_runs(
        tmp_path: Path, sig: signal.Signals, reference: list[tuple[str, int]]) -> None:
    killed_store, killed_log = tmp_path / "killed.db", tmp_path / "killed.log"
    victim = start(killed_store, killed_log)
    campaign_id = int(victim.stdout.readline())  # type: ignore[union-attr]
    wait_for_rows(killed_store, campaign_id, 7, victim)  # mid-config: 3.5 configs measured
    os.killpg(victim.pid, sig)
    victim.wait(timeout=60)
    wait_until_group_is_gone(victim.pid)
    assert 0 < len(measured_sequence(killed_store, campaign_id)) < BUDGET * REPETITIONS

    resumed = start(killed_store, killed_log, "--resume", str(campaign_id))
    assert int(resumed.stdout.readline()) == campaign_id  # type: ignore[union-attr]
    assert resumed.wait(timeout=300) == 0

    rows = measured_sequence(killed_store, campaign_id)
    # every config measured exactly REPETITIONS times, the budget used exactly
    per_config = Counter(config for config, _ in rows)
    assert len(per_config) == BUDGET and set(per_config.values()) == {REPETITIONS}
    # the same configs, in the same order, as a campaign that was never interrupted
    assert rows == reference
    # the kernel ran once per stored repetition, plus the one run the signal cut short
    # (if the signal fell between two runs, none was cut short)
    runs = len(killed_log.read_text().splitlines())
    assert runs - len(rows) in (0, 1)
