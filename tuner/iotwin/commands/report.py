"""`iotwin report ID`: one self-contained HTML page (and a CSV beside it) for a campaign,
an experiment or a validation in the store."""

from __future__ import annotations

import argparse
from pathlib import Path

from iotwin.commands._options import add_store_argument
from iotwin.report import write_report
from iotwin.store.database import Store, resolve_path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report", help="write an HTML report (and CSV) of a campaign, experiment or validation",
        description=__doc__)
    parser.add_argument("id", type=int, help="campaign id (tune, experiment or validation)")
    parser.add_argument("-o", "--output", type=Path, default=Path("."), metavar="DIR",
                        help="directory for report-ID.html and report-ID.csv (default .)")
    add_store_argument(parser)
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    with Store(resolve_path(args.store), read_only=True) as store:
        html_path, csv_path = write_report(store, args.id, args.output)
    print(html_path)
    print(csv_path)
    return 0
