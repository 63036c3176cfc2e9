"""`iotwin tune`'s summary says how the search ended, as the campaign's own stop rule decided:
sim-screened's target reached with its confidence, or its budget ended first; a strategy
without a target, its budget or its own stop."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
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
    result = _tune(tmp_path, "sim-screened", 40, "target=0.5", "confidence=0.6")
    assert result["runs_used"] < 40
    assert result["search_ended"].startswith("target reached (target within 50% of the best "
                                             "at 60%: chance it is missed ")


def test_a_budget_too_small_for_the_target_says_so(tmp_path: Path) -> None:
    result = _tune(tmp_path, "sim-screened", 6, "target=0.01", "confidence=0.99")
    assert result["search_ended"].startswith(
        "budget ended before the target was reached (target within 1% of the best at 99%")
    assert result["search_ended"].endswith("after 6 of 6 runs")


@pytest.mark.parametrize("strategy", ["random", "optuna-tpe"])
def test_a_strategy_without_a_target_ends_by_its_budget(tmp_path: Path, strategy: str
                                                         ) -> None:
    result = _tune(tmp_path, strategy, 8)
    assert result["search_ended"] == (f"budget ended after 8 of 8 runs ({strategy} has no "
                                      f"target of its own)")
