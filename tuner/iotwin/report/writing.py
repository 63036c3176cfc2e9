"""The report of a campaign: one self-contained HTML page per campaign, experiment or
validation, and its CSV.

``write_report(store, id, directory)`` picks the report of the campaign's kind and writes
``report-<id>.html`` (figures inlined) and ``report-<id>.csv`` (the rows behind them).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from iotwin.core.errors import UserError
from iotwin.core.owned_folder import OutputFolder
from iotwin.report.page import Page
from iotwin.report.tables import write_rows
from iotwin.store.database import Campaign, Store

Builder = Callable[[Store, Campaign, Page], list[dict[str, Any]]]

#: the report of each campaign kind: its module and builder, imported only for a campaign of
#: that kind (each pulls in what it draws: a tune's report the tuning and the simulator, an
#: experiment's the studies, a validation's the local suite)
BUILDERS = {"tune": ("iotwin.report.campaign", "campaign_report"),
            "experiment": ("iotwin.report.experiment", "experiment_report"),
            "validation": ("iotwin.report.validation", "validation_report")}


def _builder(kind: str) -> Builder:
    module, name = BUILDERS[kind]
    builder: Builder = getattr(importlib.import_module(module), name)
    return builder


def report_paths(directory: Path, campaign_id: int) -> tuple[Path, Path]:
    """Where the report of campaign ``campaign_id`` goes in ``directory``: its HTML and CSV."""
    return directory / f"report-{campaign_id}.html", directory / f"report-{campaign_id}.csv"


def write_report(store: Store, campaign_id: int, into: OutputFolder | Path
                 ) -> tuple[Path, Path]:
    """Write the report of campaign ``campaign_id`` into a folder (an ``-o`` folder: listed
    as iotwin's there); returns the HTML and CSV paths."""
    directory = into.folder if isinstance(into, OutputFolder) else into
    campaign = store.campaign(campaign_id)
    if campaign.kind not in BUILDERS:
        raise UserError(f"campaign {campaign_id} is a {campaign.kind} campaign: reports exist "
                        f"for {', '.join(BUILDERS)}")
    page = Page(f"iotwin report {campaign_id}: {campaign.name}")
    rows = _builder(campaign.kind)(store, campaign, page)
    directory.mkdir(parents=True, exist_ok=True)
    html_path, csv_path = report_paths(directory, campaign_id)
    if isinstance(into, OutputFolder):
        into.claim((html_path, csv_path))
    page.paragraph(f"Data: {csv_path.name} beside this page; store {store.path}.", "meta")
    html_path.write_text(page.render())
    write_rows(csv_path, rows)
    return html_path, csv_path
