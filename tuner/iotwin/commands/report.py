"""`iotwin report ID`: one self-contained HTML page (and a CSV beside it) for a campaign,
an experiment or a validation in the store."""

from __future__ import annotations

import argparse
from pathlib import Path

from iotwin.commands._options import (
    add_output_folder_arguments,
    add_store_argument,
    new_output,
    output_folder,
)
from iotwin.core.owned_folder import OutputFolder
from iotwin.report.writing import report_paths, write_report
from iotwin.store.database import Store, resolve_path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report", help="write an HTML report (and CSV) of a campaign, experiment or validation",
        description=__doc__)
    parser.add_argument("id", type=int, help="campaign id (tune, experiment or validation)")
    add_output_folder_arguments(parser, "report-ID.html and report-ID.csv",
                                " (default: the two files in the current directory, which "
                                "must not exist yet unless --force)")
    add_store_argument(parser)
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    if args.output is not None:
        into: OutputFolder | Path = output_folder(args.output, args.force)
    else:
        into = Path(".")
        for path in report_paths(into, args.id):
            new_output(path, args.force)
    with Store(resolve_path(args.store), read_only=True) as store:
        html_path, csv_path = write_report(store, args.id, into)
    print(html_path)
    print(csv_path)
    return 0
