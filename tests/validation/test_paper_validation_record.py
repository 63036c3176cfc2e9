"""The paper validation's run of record (validation/paper/results.json) is what the README's
tables say: read back, it writes the same results.json, calibrations.json and README block,
byte for byte. A change to the report code that alters a published table fails here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from iotwin.validation.paper import report as paper_report
from iotwin.validation.paper.results import PaperValidation
from support.programs import REPO_ROOT

RECORD = REPO_ROOT / "validation" / "paper"


def test_the_run_of_record_rewrites_its_readme_tables_and_results_unchanged(tmp_path: Path) -> None:
    for name in ("README.md", "results.json"):
        shutil.copy(RECORD / name, tmp_path / name)
    result = PaperValidation.from_json(json.loads((RECORD / "results.json").read_text()))
    paper_report.write_outputs(result, tmp_path)
    assert (tmp_path / "README.md").read_text() == (RECORD / "README.md").read_text()
    for name in ("results.json", "calibrations.json"):
        assert (tmp_path / name).read_text() == (RECORD / name).read_text(), name
    assert [f.model for f in result.fits] and all(r.published_mbs > 0 for r in result.rows)
