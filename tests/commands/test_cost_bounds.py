"""Cost bounds before work: an option whose value would make a command run for ever or run
out of memory is refused at once, naming the option and the bounds table's kind. Before,
`workload scale --ranks 4611686018427387904` searched divisors for ever and `--ranks 10^400`
was an internal error (int too large to convert to float)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.yaml_files import MAX_INTEGER_DIGITS, read_yaml

WORKLOAD = paths.repo_root() / "experiments/landscape/h5py-field-2.workload.yaml"
PROCESSES = "expected an integer from 1 to 16777216"
BUDGET = "expected an integer from 1 to 1000000"


def iotwin(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iotwin", *argv], cwd=cwd, text=True,
                          capture_output=True, check=False, timeout=60)


@pytest.mark.parametrize("ranks", [str(2**62), str(10**400), "0", "16777217", "4\u00b2",
                                   "\u0664", "1_000"])
def test_workload_scale_refuses_absurd_ranks_at_once_naming_the_option(
        ranks: str, tmp_path: Path) -> None:
    done = iotwin("workload", "scale", str(WORKLOAD), "--ranks", ranks, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    last = done.stderr.splitlines()[-1]
    assert f"argument --ranks: {PROCESSES}, got " in last, last
    assert "Traceback" not in done.stderr and len(last) < 200


@pytest.mark.parametrize(("argv", "option", "expected"), [
    (["run", "--ranks", str(2**62), "--", "true"], "--ranks", PROCESSES),
    (["simulate", "--kernel", "vpic-io", "--ranks", str(10**12), "--platform", "hopper"],
     "--ranks", PROCESSES),
    (["tune", "--kernel", "vpic-io", "--ranks", "4", "--real-budget", str(10**12)],
     "--real-budget", BUDGET),
    (["whatif", "--budget", str(10**12)], "--budget", BUDGET),
])
def test_every_command_bounds_its_ranks_and_budgets(argv: list[str], option: str,
                                                    expected: str, tmp_path: Path) -> None:
    done = iotwin(*argv, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"argument {option}: {expected}, got " in done.stderr.splitlines()[-1]


def test_a_yaml_integer_of_thousands_of_digits_is_one_line_naming_the_line(
        tmp_path: Path) -> None:
    """Before: Python's own limit on converting 4300 digits, an internal error."""
    path = tmp_path / "spec.yaml"
    path.write_text("name: x\nranks: " + "9" * 5000 + "\n")
    with pytest.raises(UserError) as raised:
        read_yaml(path, "experiment")
    assert str(raised.value) == (f"{path}:2: an integer of 5000 digits (no field holds "
                                 f"more than {MAX_INTEGER_DIGITS})")
