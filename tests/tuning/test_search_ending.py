"""`iotwin tune`'s summary says how the search ended, as the campaign's own stop rule decided:
sim-screened's target reached with its confidence, or its budget ended first; a strategy
without a target, its budget or its own stop; or the user, who stopped it (Ctrl-C)."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from iotwin.store.database import Store
from support.processes import with_default_sigint
from support.programs import REPO_ROOT

VPIC_TABLE = REPO_ROOT / "experiments" / "landscape" / "vpic-io-4.csv"


def _tune(tmp_path: Path, strategy: str, budget: int, *settings: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "iotwin", "tune", "--kernel", "vpic-io", "--ranks", "4",
         "--executor", "table", "--table", str(VPIC_TABLE), "--strategy", strategy,
         "--real-budget", str(budget), "--summary-repeat", "0",
         "--store", str(tmp_path / "s.db"), "--json", "--output", str(tmp_path / "t.yaml"),
         *(f"--set={s}" for s in settings), "--", "--particles", "1048576"],
        capture_output=True, text=True, timeout=900,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "tuner")})
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_a_loose_target_is_reached_before_the_budget_and_said_with_its_confidence(
        tmp_path: Path) -> None:
    # met in one generation, not the default two in a row: the search ends after 17 runs of
    # 40, not 39
    result = _tune(tmp_path, "sim-screened", 40, "target=0.5", "confidence=0.6", "patience=1")
    assert result["runs_used"] < 40
    assert result["search_ended"].startswith("target reached (target within 50% of the best "
                                             "at 60%: chance it is missed ")


def test_a_budget_too_small_for_the_target_says_so(tmp_path: Path) -> None:
    # the model's refit at one parameter and one evaluation: no fit meets this target in 6 runs
    result = _tune(tmp_path, "sim-screened", 6, "target=0.01", "confidence=0.99",
                   "fit_parameters=1", "fit_evaluations=1")
    assert result["search_ended"].startswith(
        "budget ended before the target was reached (target within 1% of the best at 99%")
    assert result["search_ended"].endswith("after 6 of 6 runs")
    # and why: at the noise its repeats measured, the best config's own runs needed thousands
    # of runs to know its rate within 1% at 99%
    why = re.search(r"; a run spreads (\d+)% here, so the best config's rate is known within "
                    r"1% only after ([\d,]+) runs of it \(it had (\d)\)\) after 6 of 6 runs$",
                    result["search_ended"])
    assert why is not None, result["search_ended"]
    spread, needed, had = int(why[1]), int(why[2].replace(",", "")), int(why[3])
    assert 1 <= had < 6 and spread > 0
    # z(99%) = 2.3263; the spread is printed to a whole per cent
    assert needed == pytest.approx((2.3263 * spread / 100 / math.log1p(0.01)) ** 2, rel=0.06)


@pytest.mark.parametrize("strategy", ["random", "optuna-tpe"])
def test_a_strategy_without_a_target_ends_by_its_budget(tmp_path: Path, strategy: str
                                                         ) -> None:
    result = _tune(tmp_path, strategy, 8)
    assert result["search_ended"] == (f"budget ended after 8 of 8 runs ({strategy} has no "
                                      f"target of its own)")


def _rows(store_path: Path, label: str | None) -> int:
    """The real runs stored so far, of the search (``label`` None) or of a pipeline step."""
    if not store_path.exists():
        return 0
    with Store(store_path) as store:
        return sum(1 for row in store.evaluations(source="real")
                   if row.details.get("label") == label)


@pytest.mark.slow
@pytest.mark.parametrize(("step", "options", "label"), [
    ("search", ("--real-budget", "50", "--confirm", "0"), None),
    ("confirmation", ("--real-budget", "2", "--confirm", "2", "--confirm-runs", "30"),
     "confirm")])
def test_a_tune_the_user_stops_says_so_and_keeps_what_it_measured(
        tmp_path: Path, step: str, options: tuple[str, ...], label: str | None) -> None:
    """Ctrl-C (SIGINT to iotwin alone, as a terminal's reaches it: the ranks run in sessions of
    their own) during a real tune of vpic-io under MPICH: the summary of what was measured,
    then exit 130."""
    store = tmp_path / "s.db"
    tune = subprocess.Popen(
        [sys.executable, "-m", "iotwin", "tune", "--kernel", "vpic-io", "--ranks", "2",
         "--executor", "local", "--strategy", "random", *options, "--summary-repeat", "2",
         "--store", str(store), "--output", str(tmp_path / "t.yaml"), "--",
         "--particles", "16384"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=with_default_sigint,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "tuner")})
    while _rows(store, label) < 2:
        assert tune.poll() is None, tune.communicate()
        time.sleep(0.2)
    tune.send_signal(signal.SIGINT)
    out, err = tune.communicate(timeout=300)
    assert tune.returncode == 130, err
    searched = _rows(store, None)
    ended = [line for line in out.splitlines() if line.startswith("the search ended: ")]
    if step == "search":
        assert ended == [f"the search ended: stopped by the user after {searched} of 50 runs"]
    else:
        assert ended == ["the search ended: budget ended after 2 of 2 runs (random has no "
                         "target of its own)"]
        assert f"stopped by the user in the {step}: " in out
    assert f"after {searched} configs run for real" in out
    assert _rows(store, "default") == 0   # the summary's runs: not started
    assert "interrupted; everything measured so far is in the store" in err
