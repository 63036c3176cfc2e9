"""`iotwin landscape measure | benchmark`: a measured table of configs, and strategies
benchmarked against it.

``measure``: a stratified sample of a space's configs, each run several times on this
machine in interleaved passes, stored, and exported as a CSV table with a page saying when
and how (iotwin.studies.landscape). Resumable: measuring the same spec again runs only the
missing runs.
"""

from __future__ import annotations

import argparse
import platform
import shlex
import sys
from pathlib import Path

from iotwin.store.database import Store, add_store_argument, resolve_path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "landscape", help="measure a table of configs; benchmark strategies against it",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(title="actions", metavar="ACTION")
    measure = actions.add_parser(
        "measure", help="run a stratified sample of configs, interleaved passes, to a table",
        description="Run the spec's configs (the default and `samples - 1` stratified ones of "
        "its space) `repetitions` times each in interleaved passes; store every run; write the "
        "table as CSV and, beside it, a Markdown page saying when and how it was measured.")
    measure.add_argument("spec", type=Path, metavar="SPEC",
                         help="a local-suite YAML (validation/local/suite.yaml's keys)")
    measure.add_argument("-o", "--output", type=Path, metavar="CSV", required=True,
                         help="the table; its page goes to the same name with .md")
    add_store_argument(measure)
    measure.set_defaults(func=_measure)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def _measure(args: argparse.Namespace) -> int:
    from iotwin.executors import filesystem_of
    from iotwin.executors.local import default_scratch_root
    from iotwin.studies.landscape import (
        conditions,
        conditions_page,
        measure_landscape,
        write_table,
    )
    from iotwin.validation.local import load_suite

    suite = load_suite(args.spec)
    with Store(resolve_path(args.store)) as store:
        campaign_id, table = measure_landscape(store, suite)
        found = conditions(store, campaign_id, table)
    write_table(table, args.output)
    where = (f"{platform.node()} ({_cores()} cores), scratch {default_scratch_root()} "
             f"({filesystem_of(default_scratch_root())}), store campaign {campaign_id}")
    command = "iotwin landscape measure " + shlex.join([str(args.spec), "-o", str(args.output)])
    page = args.output.with_suffix(".md")
    page.write_text(conditions_page(table, found, command, where))
    print(f"wrote {args.output} and {page}", file=sys.stderr)
    print(page.read_text())
    return 0


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0))
