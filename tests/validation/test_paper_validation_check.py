"""`iotwin validate paper --check` on the real simulator: the run of record's fits
re-evaluated on two of hopper's rows, without a refit. A record the check made is reproduced
figure for figure; a platform whose site default moved moves the default row and leaves the
tuned row, whose published config sets what the default set, as recorded."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from iotwin.model.platforms import Platform, load_platform
from iotwin.validation.paper.check import RecordCheck, check_record, read_record, summary
from iotwin.validation.paper.settings import paper_dir

pytestmark = pytest.mark.slow

LABELS = ["Hopper VPIC-IO 128 default", "Hopper VPIC-IO 128 tuned"]


@pytest.fixture(scope="module")
def two_rows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """cases.yaml with the published CSV cut to hopper's 128-core VPIC-IO rows."""
    folder = tmp_path_factory.mktemp("paper")
    settings = (paper_dir() / "cases.yaml").read_text()
    (folder / "cases.yaml").write_text(settings)
    with (paper_dir() / "published-measurements.csv").open() as source:
        rows = list(csv.DictReader(source))
    kept = [row for row in rows if row["platform"] == "Hopper" and row["kernel"] == "VPIC-IO"
            and row["cores"] == "128"]
    assert [row["setting"] for row in kept] == ["default", "tuned"]
    with (folder / "published-measurements.csv").open("w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(kept)
    return folder / "cases.yaml"


def checked(settings: Path, recorded: RecordCheck | None = None,
            platform: Platform | None = None) -> RecordCheck:
    record, calibrations = read_record(paper_dir())
    return check_record(recorded.result if recorded else record, calibrations,
                        settings_path=settings,
                        load_platform=(lambda _: platform) if platform else None)


@pytest.fixture(scope="module")
def now(two_rows: Path) -> RecordCheck:
    return checked(two_rows)


def test_a_record_the_check_made_is_reproduced(two_rows: Path, now: RecordCheck) -> None:
    assert now.checked == 2
    again = checked(two_rows, now)
    assert again.differences == []
    assert summary(again) == ["the record reproduced: 2 rows, their fits and spreads, every "
                              "figure within 1e-09 of it"]
    rows = [row for row in again.result.rows if row.label in LABELS]
    assert all(row.prior_mbs and row.fitted_mbs for row in rows)


def test_a_moved_site_default_moves_the_default_row_only(two_rows: Path,
                                                          now: RecordCheck) -> None:
    hopper = load_platform("hopper")
    stripes = hopper.data["site_defaults"]["lustre"]["stripe_count"]
    moved = hopper.with_values({"site_defaults.lustre.stripe_count": stripes * 4})
    found = checked(two_rows, now, moved)
    assert {(d.item, d.figure) for d in found.differences} == {
        (LABELS[0], "prior_mbs"), (LABELS[0], "fitted_mbs")}
    for difference in found.differences:
        assert difference.now > difference.recorded  # four times the stripes: faster
    lines = summary(found)
    assert lines[0].startswith("1 of the record's rows, fits and spreads differ")
    assert all(line.startswith(f"  {LABELS[0]}: ") for line in lines[1:])
