"""The report of a campaign: one self-contained HTML page per campaign, experiment or
validation, and its CSV.

``write_report(store, id, directory)`` picks the report of the campaign's kind and writes
``report-<id>.html`` (figures inlined) and ``report-<id>.csv`` (the rows behind them).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from iotwin.core.errors import UserError
from iotwin.core.owned_folder import OutputFolder
from iotwin.report.campaign import campaign_report
from iotwin.report.experiment import experiment_report
from iotwin.report.page import Page
from iotwin.report.tables import write_rows
from iotwin.report.validation import validation_report
from iotwin.store.database import Campaign, Store

Builder = Callable[[Store, Campaign, Page], list[dict[str, Any]]]


def _builders() -> dict[str, Builder]:
    return {"tune": campaign_report, "experiment": experiment_report,
            "validation": validation_report}


def report_paths(directory: Path, campaign_id: int) -> tuple[Path, Path]:
    """Where the report of campaign ``campaign_id`` goes in ``directory``: its HTML and CSV."""
    return directory / f"report-{campaign_id}.html", directory / f"report-{campaign_id}.csv"


def write_report(store: Store, campaign_id: int, into: OutputFolder | Path
                 ) -> tuple[Path, Path]:
    """Write the report of campaign ``campaign_id`` into a folder (an ``-o`` folder: listed
    as iotwin's there); returns the HTML and CSV paths."""
    directory = into.folder if isinstance(into, OutputFolder) else into
    campaign = store.campaign(campaign_id)
    builders = _builders()
    if campaign.kind not in builders:
        raise UserError(f"campaign {campaign_id} is a {campaign.kind} campaign: reports exist "
                        f"for {', '.join(builders)}")
    page = Page(f"iotwin report {campaign_id}: {campaign.name}")
    rows = builders[campaign.kind](store, campaign, page)
    directory.mkdir(parents=True, exist_ok=True)
    html_path, csv_path = report_paths(directory, campaign_id)
    if isinstance(into, OutputFolder):
        into.claim((html_path, csv_path))
    page.paragraph(f"Data: {csv_path.name} beside this page; store {store.path}.", "meta")
    html_path.write_text(page.render())
    write_rows(csv_path, rows)
    return html_path, csv_path
