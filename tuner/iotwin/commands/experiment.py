"""`iotwin experiment FILE`: run a study of experiments/*.yaml. Every evaluation is stored;
the cells are printed (table or --json) and, with -o DIR, written as CSV beside the report
page (report-ID.csv, report-ID.html). Progress goes to stderr."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from iotwin.commands._options import (
    add_cost_limit_arguments,
    add_output_folder_arguments,
    add_sim_cluster_argument,
    add_store_argument,
    cost_limits,
    output_folder,
)
from iotwin.core.cost import announce
from iotwin.report.writing import write_report
from iotwin.store.database import Store, resolve_path
from iotwin.studies.experiment.cost import experiment_cost
from iotwin.studies.experiment.runner import run_experiment
from iotwin.studies.experiment.spec import load_experiment


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("experiment", help="run an experiment spec (experiments/*.yaml)",
                                   description=__doc__)
    parser.add_argument("file", type=Path, help="experiment spec (YAML)")
    add_output_folder_arguments(parser, "report-ID.csv and report-ID.html")
    parser.add_argument("--json", action="store_true", help="print the cells as JSON")
    add_sim_cluster_argument(parser)
    add_store_argument(parser)
    add_cost_limit_arguments(parser)
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    spec = load_experiment(args.file)
    into = output_folder(args.output, args.force) if args.output else None
    announce("experiment", experiment_cost(spec, cost_limits(args)))
    with Store(resolve_path(args.store)) as store:
        experiment = run_experiment(spec, store)
        rows = [cell.row() for cell in experiment.results]
        if into is not None:
            html_path, csv_path = write_report(store, experiment.campaign_id, into)
            print(f"wrote {html_path} and {csv_path}")
    if args.json:
        print(json.dumps({"campaign": experiment.campaign_id, "cells": rows}, indent=2))
    else:
        _print_table(rows)
    return 0


def _print_table(rows: list[dict]) -> None:
    print(f"{'platform':<10} {'workload':<12} {'ranks':>6} {'config':<16} {'x':>10} "
          f"{'MB/s':>10} {'published':>9}")
    for row in rows:
        print(f"{row['platform']:<10} {row['workload']:<12} {row['ranks']:>6} "
              f"{row['config']:<16} {row['x']!s:>10} {row['rate_mbs']!s:>10} "
              f"{row['published_mbs']!s:>9}")
