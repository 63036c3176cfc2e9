"""The local suite on a program not written for iotwin: its workload captured, kept, resumed.

Small mode (4 configs, 1 repetition, 2 ranks) of validation/local/h5py-field.yaml, run for real: the
parallel h5py script's workload is captured once and stored with the campaign, every sampled
config runs (forced collective transfer included: the rank-0 table stays independent), each
is predicted under cross-validation from the captured workload, and running the suite again
runs nothing and captures nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.store.database import Store
from iotwin.validation.local import load_suite, run_local_suite

pytestmark = pytest.mark.slow

SUITE_FILE = paths.repo_root() / "validation" / "local" / "h5py-field.yaml"
# 2 ranks, one a core: the suite's 4 spin on this 2-core machine for as long as a run takes,
# and the rank-0 table stays independent with 2 as with 4; one fit evaluation (and its
# Jacobian): each is a simulation per free parameter, and the fit's quality is not the point
SMALL = {"samples": 4, "repetitions": 1, "folds": 2, "fit_evaluations": 1, "confirm_rounds": 0,
         "ranks": 2}


def small_suite(folder: Path) -> Path:
    """The committed suite file, made small, beside it so that its relative paths hold."""
    data = {**yaml.safe_load(SUITE_FILE.read_text()), **SMALL,
            "command": [str(w) for w in load_suite(SUITE_FILE).command]}
    data["command"][data["command"].index("65536")] = "64"
    data["env"] = load_suite(SUITE_FILE).env
    path = folder / "suite.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_a_programs_suite_captures_once_and_resumes_without_running(tmp_path: Path) -> None:
    suite = load_suite(small_suite(tmp_path))
    assert suite.kernel is None and Path(suite.command[0]).is_absolute()
    with Store(tmp_path / "s.db") as store:
        first = run_local_suite(store, suite, progress=None, workdir=tmp_path)
        workload = store.campaign(first.campaign_id).spec["workload"]
        runs = len(store.evaluations(first.campaign_id, source="real"))
        again = run_local_suite(store, suite, progress=None, workdir=tmp_path)
        assert len(store.evaluations(again.campaign_id, source="real")) == runs
        assert store.campaign(again.campaign_id).spec["workload"] == workload
    assert again.campaign_id == first.campaign_id
    assert [d["name"] for d in workload["files"][0]["datasets"]] == [
        "/field", "/run/table", "/series"]
    assert runs == 4 and all(first.measured), first.measured   # no config hung or failed
    assert first.metrics is not None and first.metrics.n == 4
    assert all(first.predicted)


@pytest.mark.parametrize(("extra", "message"), [
    ({"kernel": "vpic-io"}, "give `kernel` or `command`, not both"),
    ({"command": "python x.py"}, "command: expected a list of words"),
])
def test_program_suite_files_with_errors_are_refused(tmp_path: Path, extra: dict,
                                                     message: str) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump({"command": ["prog"], **extra}))
    with pytest.raises(UserError, match=message):
        load_suite(path)


def test_env_without_a_program_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump({"env": {"A": "1"}}))
    with pytest.raises(UserError, match="env: only for a program"):
        load_suite(path)
