"""IO500 submissions grouped by system (iotwin.observations.io500): leave-one-system-out holds
out every submission of a system together, so one system listed under two spellings must be
one system."""

from __future__ import annotations

import json
from pathlib import Path

from iotwin.observations.io500 import io500_cases

TRAIN = Path(__file__).resolve().parents[2] / "validation" / "data" / "io500-train.json"


def submission(id_: int, system: str) -> dict[str, object]:
    return {"id": id_, "system": system, "measured_mbs": {"ior_hard_write": 1000.0 * id_}}


def test_names_differing_in_case_and_punctuation_are_the_first_ones_system(tmp_path: Path) -> None:
    path = tmp_path / "records.json"
    path.write_text(json.dumps({"submissions": [
        submission(1, "Exascaler on GCP"), submission(2, "exascaler-on-GCP"),
        submission(3, "Sherlock/Oak"), submission(4, "Sherlock/Regal")]}))
    systems = {c.submission: c.system for c in io500_cases(path, ["hard-write"])}
    assert systems == {1: "Exascaler on GCP", 2: "Exascaler on GCP", 3: "Sherlock/Oak",
                       4: "Sherlock/Regal"}


def test_the_training_splits_google_submission_listed_twice_is_one_system() -> None:
    cases = io500_cases(TRAIN, ["hard-write"])
    by_id = {c.submission: c for c in cases}
    assert by_id[99].system == by_id[249].system == by_id[91].system
    assert by_id[99].measured_mbs == by_id[249].measured_mbs
    assert len({c.system for c in cases}) == 9
