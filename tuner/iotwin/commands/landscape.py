"""`iotwin landscape measure | import | benchmark`: a measured table of configs, and
strategies benchmarked against it.

``measure``: a stratified sample of a space's configs, each run several times on this
machine in interleaved passes, stored, and exported as a CSV table with a page saying when
and how (iotwin.studies.landscape). Resumable: measuring the same spec again runs only the
missing runs. ``import``: a table from a CSV of runs measured elsewhere (a site's own),
its values mapped to the space's grid (iotwin.studies.table_import). ``benchmark``: every
strategy from many seeds against one or more tables (iotwin.studies.strategy_benchmark).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import shlex
import sys
from pathlib import Path
from typing import Any

from iotwin.commands._options import (
    add_cost_limit_arguments,
    add_force_argument,
    add_output_folder_arguments,
    add_store_argument,
    add_workdir_argument,
    cost_limits,
    new_output,
    output_folder,
)
from iotwin.core import paths
from iotwin.core.cost import announce
from iotwin.core.document_cost import document_cost
from iotwin.core.errors import UserError
from iotwin.core.readme_block import fill_block
from iotwin.executors import filesystem_of
from iotwin.executors.table import write_table
from iotwin.executors.twin import TwinExecutor
from iotwin.report import benchmark as report
from iotwin.report.benchmark import import_page
from iotwin.store.database import Store, resolve_path
from iotwin.studies.benchmark_cost import benchmark_cost
from iotwin.studies.landscape import (
    conditions,
    conditions_page,
    errors_by_setting,
    measure_landscape,
)
from iotwin.studies.strategy_benchmark import (
    landscape_space,
    load_benchmark,
    model_on_table,
    run_in_parallel,
    table_case,
    timed_region,
)
from iotwin.studies.table_import import import_runs, read_runs
from iotwin.studies.table_resolution import resolution
from iotwin.validation.local import load_suite
from iotwin.validation.suite_cost import suite_runs_cost
from iotwin.workloads.workload import dump_workload

CAMPAIGNS = "campaigns"  # in a benchmark's -o folder: its campaigns' stores, to resume


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
    measure.add_argument("-o", "--output", type=Path, metavar="CSV",
                         help="the table (default: SPEC with .csv); its page goes to the same "
                              "name with .md, a program's captured workload to .workload.yaml")
    add_force_argument(measure)
    measure.add_argument("--twin", type=int, metavar="SEED",
                         help="measure the spec platform's twin (truth SEED) instead of this "
                              "machine")
    measure.add_argument("--errors-from", type=Path, metavar="SPEC",
                         help="with --twin: a truth that differs from the model in structure: "
                              "each setting multiplies the rate by its model's measured error "
                              "(measured / predicted) on the table of landscape SPEC")
    add_workdir_argument(measure)
    add_store_argument(measure)
    add_cost_limit_arguments(measure)
    measure.set_defaults(func=_measure)
    benchmark = actions.add_parser(
        "benchmark", help="every strategy, many seeds, against measured tables: real runs to "
                          "within each target (e.g. 5%% and 2%%) of the optimum",
        description="Run each strategy of the spec from each seed against each measured table "
                    "(the table executor replays its runs) and count the real runs, "
                    "confirmation included, until the config it would recommend is within "
                    "each of the spec's targets of the table's optimum; how finely each "
                    "table tells configs apart (bootstrap of its repetitions); and which "
                    "configs the model predicts alike, as loaded and refitted to the table. Writes "
                    "results.json, a figure per table and index.html; with --readme, the "
                    "table between the README's `<!-- NAME results: begin/end -->` markers, "
                    "NAME being the spec's file name without .yaml. Its campaigns are "
                    "kept in DIR/campaigns until then: a benchmark cut short and run again "
                    "resumes them (--keep-campaigns: after it too).")
    benchmark.add_argument("spec", type=Path, metavar="SPEC", nargs="?",
                           default=_default_benchmark(),
                           help="benchmark spec (default experiments/strategy-benchmark.yaml)")
    add_output_folder_arguments(benchmark, "the figures and pages",
                                " (default NAME-results in the current directory, NAME the "
                                "spec's file name)")
    benchmark.add_argument("--seeds", type=int, help="override the spec's seed count")
    benchmark.add_argument("--jobs", type=int, default=1, metavar="N",
                           help="campaigns (a table, a strategy, a seed) run at once, one "
                                "process each (default 1)")
    benchmark.add_argument("--readme", type=Path, metavar="MD",
                           help="fill the figures table into this README")
    benchmark.add_argument("--model-analysis", default="full", metavar="off|full|SIMULATIONS",
                           type=_model_analysis,
                           help="the platform model on each whole table, as loaded and "
                                "refitted to it: off, full (default), or a budget of "
                                "simulations for its refit")
    benchmark.add_argument("--keep-campaigns", action="store_true",
                           help="keep DIR/campaigns (each campaign's store and figures) when "
                                "the benchmark has finished: to look into a campaign's runs, "
                                "or to report from them again without running them")
    add_cost_limit_arguments(benchmark)
    benchmark.set_defaults(func=_benchmark)
    imported = actions.add_parser(
        "import", help="a CSV of runs measured elsewhere as a landscape table",
        description="Read a CSV of measured runs (one row per run: a column per setting, "
                    "named as the spec's space names it, and a rate column in MB/s) and write "
                    "it as a landscape table of the spec's space: each value becomes the "
                    "space's value written the same way, or its nearest (numbers; the "
                    "mapping is reported; an empty cell: the space's first value, as for a "
                    "setting no column names), runs of the same config pooled (configs may have "
                    "unequal numbers of runs). The table goes beside SPEC (SPEC with .csv, "
                    "as `landscape benchmark` reads it) with a page saying how it was mapped "
                    "and how finely it tells configs apart.")
    imported.add_argument("runs", type=Path, metavar="CSV", help="the measured runs")
    imported.add_argument("spec", type=Path, metavar="SPEC",
                          help="the landscape spec of the table: platform, space, ranks and "
                               "kernel or command (a local suite's keys)")
    imported.add_argument("--rate", default="rate_mbs", metavar="COLUMN",
                          help="the column of rates, MB/s (default rate_mbs)")
    imported.add_argument("--ignore", action="append", default=[], metavar="COLUMN",
                          help="a column that is not a setting (repeatable)")
    add_cost_limit_arguments(imported)
    imported.set_defaults(func=_import)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def _measure(args: argparse.Namespace) -> int:
    suite = load_suite(args.spec)
    suite_runs_cost(suite, str(args.spec), cost_limits(args))
    output = args.output or args.spec.with_suffix(".csv")
    for path in (output, output.with_suffix(".md"), output.with_suffix(".workload.yaml")):
        new_output(path, args.force)
    executor, where = _executor(args, suite)
    with Store(resolve_path(args.store)) as store:
        campaign_id, table = measure_landscape(store, suite, executor,
                                               workdir=Path(args.workdir))
        found = conditions(store, campaign_id, table)
        workload = store.campaign(campaign_id).spec.get("workload")
    write_table(table, output)
    if workload is not None:  # what the model simulates for the program (benchmarks read it)

        output.with_suffix(".workload.yaml").write_text(dump_workload(workload))
    where = where or (f"{platform.node()} ({_cores()} cores), working directory "
                      f"{args.workdir} ({filesystem_of(Path(args.workdir))})")
    where += f", store campaign {campaign_id}"
    command = "iotwin landscape measure " + shlex.join(sys.argv[3:])
    page = output.with_suffix(".md")
    page.write_text(conditions_page(table, found, command, where))
    print(f"wrote {output} and {page}", file=sys.stderr)
    print(page.read_text())
    return 0


def _executor(args: argparse.Namespace, suite: Any) -> tuple[Any, str]:
    """This machine's runs (None: the suite's own), or the twin the options ask for, and
    where its runs happen, in words."""
    if args.twin is None:
        if args.errors_from:
            raise UserError("--errors-from goes with --twin")
        return None, ""

    factors: dict[str, float] = {}
    where = f"the {suite.platform} model's twin, truth seed {args.twin}"
    if args.errors_from:
        measured = table_case(args.errors_from.stem, args.errors_from)
        factors = errors_by_setting(measured.table, measured.platform,
                                    measured.model_workload())
        where += (f"; the truth carries the {measured.platform} model's measured error per "
                  f"setting on {measured.table_path.name} ({len(factors)} settings)")
    return TwinExecutor(suite.platform, truth_seed=args.twin, setting_factors=factors), where


def _default_benchmark() -> Path:
    return paths.repo_root() / "experiments" / "strategy-benchmark.yaml"


def _benchmark(args: argparse.Namespace) -> int:
    cases, settings = load_benchmark(args.spec)
    if args.seeds:
        settings = dataclasses.replace(settings, seeds=args.seeds)
    seeds = "--seeds" if args.seeds else f"{args.spec}: seeds"
    output = output_folder(args.output or Path.cwd() / f"{args.spec.stem}-results",
                           args.force, own=(CAMPAIGNS,))
    announce("landscape benchmark", benchmark_cost(cases, settings, args.spec, seeds,
                                                   args.model_analysis, cost_limits(args)))
    campaigns = output.folder / CAMPAIGNS
    if campaigns.exists():
        print(f"resuming the campaigns a previous run left in {campaigns}", file=sys.stderr)
    output.claim([campaigns])
    per_case = run_in_parallel(cases, settings, campaigns, args.jobs)
    results = []
    for case, figures in zip(cases, per_case, strict=True):
        model = (None if args.model_analysis == 0 else
                 model_on_table(case, simulations=args.model_analysis))
        table_resolution = resolution(case.table)
        print(f"{case.name}: {len(case.table.configs)} configs, optimum "
              f"{case.table.optimum:.1f} MB/s; {report.resolution_text(table_resolution)}",
              file=sys.stderr)
        result = report.TableBenchmark(case, figures, model, table_resolution)
        for text in report.model_and_order_texts(result):
            print(f"  {text}", file=sys.stderr)
        results.append(result)
    command = "iotwin landscape benchmark " + shlex.join(sys.argv[3:])
    written = report.write(results, settings, output.folder, command)
    output.claim(written)
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    if not args.keep_campaigns:
        output.remove_own(CAMPAIGNS)  # kept only for a run cut short to resume
    table = report.markdown(results, settings)
    if args.readme:
        fill_block(args.readme, args.spec.stem, f"`{command}`\n\n{table}")
    print(table)
    return 0


def _model_analysis(value: str) -> int | None:
    """off: 0; full: None (no bound); else a budget of simulations."""
    if value in ("off", "full"):
        return 0 if value == "off" else None
    try:
        budget = int(value)
    except ValueError:
        budget = 0
    if budget < 1:
        raise argparse.ArgumentTypeError(f"{value!r}: expected off, full or a number of "
                                         "simulations >= 1")
    return budget


def _import(args: argparse.Namespace) -> int:
    document_cost(args.runs, str(args.runs), cost_limits(args))
    imported = import_runs(read_runs(args.runs), landscape_space(args.spec), args.rate,
                           args.runs.name, args.ignore)
    output = args.spec.with_suffix(".csv")
    write_table(imported.table, output)
    command = "iotwin landscape import " + shlex.join(sys.argv[3:])
    page = output.with_suffix(".md")
    page.write_text(import_page(imported, resolution(imported.table), command,
                                timed_region(args.spec)))
    print(f"wrote {output} and {page}", file=sys.stderr)
    print(page.read_text())
    return 0


def _cores() -> int:
    return len(os.sched_getaffinity(0))
