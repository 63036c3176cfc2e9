"""`iotwin run`: measure a kernel or any HDF5 program under a tuning config, R times.

    iotwin run vpic-io --ranks 4 [--config cfg.yaml] [--repeat R] [-- kernel args]
    iotwin run --ranks 4 [--config cfg.yaml] -- ./any_hdf5_app args
    iotwin run --ranks 4 --config a.yaml --compare b.yaml --repeat 6 -- ./app

``--compare``: both configs in R rounds of one run each, the order alternating, and the
speedup of the second over the first taken on the rounds' pairs with its exact interval.

The program runs in the current directory (``--workdir DIR``: another), as under mpiexec;
what each repetition writes there is removed after it (``--keep DIR``: the last one's kept,
with every repetition's stdout and stderr).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from iotwin.commands._options import (
    add_cost_limit_arguments,
    add_keep_argument,
    add_site_rules_argument,
    add_store_argument,
    add_timeout_argument,
    add_workdir_argument,
    bounded,
    cost_limits,
    warn,
)
from iotwin.config import validation as config
from iotwin.config.types import Config
from iotwin.core import paths
from iotwin.core.cost import Driver
from iotwin.core.errors import UserError
from iotwin.core.run_records import Target
from iotwin.core.stats import MIN_PAIRS_95
from iotwin.core.text import printable, printable_lines
from iotwin.executors.interposer_reports import (
    SettingOutcome,
    config_rejection,
    outside_writes,
    setting_outcomes,
    unmatched_rules,
)
from iotwin.executors.launch import require_program
from iotwin.executors.local import LocalExecutor
from iotwin.executors.mpi_flavour import flavour_of, say_flavour
from iotwin.executors.program_cost import program_cost
from iotwin.model.platforms import Platform, list_platforms, load_platform
from iotwin.model.site_rules import check_config, needs_file_sizes
from iotwin.store.database import Store, resolve_path, workload_of
from iotwin.tuning.repetitions import (
    Measurement,
    RunAndStore,
    measure,
    measure_pairs,
    pair_speedup,
    run_then_store,
)
from iotwin.workloads.workload import kernel_workload


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run", help="measure a kernel or any HDF5 program under a tuning config",
        description="Run a kernel (" + ", ".join(paths.KERNELS) + ") or, after --, any HDF5 "
        "program under mpiexec with the interposer applying the config; repeat, print the median "
        "and spread, and store every repetition.",
        usage="iotwin run [KERNEL] --ranks N [options] [-- KERNEL_ARGS | -- PROGRAM ARGS]")
    _add_options(parser)
    # argparse cannot take a positional, then options, then `--` and more positionals; the
    # rest of the line is parsed again in `_split_words` with the same options.
    parser.add_argument("words", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parser.set_defaults(func=main)


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ranks", type=bounded("processes"), metavar="N",
                        help="MPI ranks (required)")
    parser.add_argument("--config", metavar="YAML", help="tuning config (interposer/CONFIG.md); "
                        "default: none, the application's and site's own settings")
    parser.add_argument("--repeat", type=int, default=3, metavar="R",
                        help="repetitions (default 3); with --compare, rounds of one run of "
                             f"each config ({MIN_PAIRS_95} or more for a 95%% interval)")
    parser.add_argument("--compare", metavar="YAML",
                        help="a second config: both run in alternating pairs, and the speedup "
                             "of this one over --config (default: none) is taken on the pairs")
    add_timeout_argument(parser)
    parser.add_argument("--platform", default="local",
                        help="machine name recorded in the store (default: local); a "
                             "platform model's name: the configs must keep its site rules")
    add_site_rules_argument(parser)
    add_workdir_argument(parser)
    add_keep_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_store_argument(parser)
    add_cost_limit_arguments(parser)


def _split_words(args: argparse.Namespace) -> tuple[str | None, list[str]]:
    """(kernel, arguments after --), with options found among the words applied to ``args``."""
    words: list[str] = args.words
    head, tail = (words[:words.index("--")], words[words.index("--") + 1:]) if "--" in words \
        else (words, [])
    inner = argparse.ArgumentParser(prog="iotwin run", add_help=False)
    _add_options(inner)
    inner.add_argument("kernel", nargs="?")
    inner.parse_args(head, namespace=args)
    return args.kernel, tail


def build_target(args: argparse.Namespace) -> Target:
    kernel, tail = _split_words(args)
    if args.ranks is None or args.ranks < 1:
        raise UserError("--ranks N is required (N >= 1)")
    if args.repeat < 1:
        raise UserError(f"--repeat must be >= 1, got {args.repeat}")
    if kernel is None:
        if not tail:
            raise UserError("name a kernel (" + ", ".join(paths.KERNELS) + ") or a program "
                            "after --")
        require_program(tail[0])
        return Target(ranks=args.ranks, command=tuple(tail))
    if kernel not in paths.KERNELS:
        raise UserError(f"unknown kernel {kernel!r}: expected one of {', '.join(paths.KERNELS)} "
                        "(for another program: iotwin run --ranks N -- PROGRAM ARGS)")
    _require_built(lambda: paths.kernel_binary(kernel))
    return Target(ranks=args.ranks, kernel=kernel, args=tuple(tail))


def _require_built(find: Callable[[], Path]) -> None:
    try:
        find()
    except paths.MissingBuildError as error:
        raise UserError(str(error)) from error


def load_config(path: str | None) -> Config:
    """The config at ``path``, validated before anything runs; {} when no config is given."""
    return {} if path is None else config.load_config(path)


def main(args: argparse.Namespace) -> int:
    target = build_target(args)
    runs = args.repeat * (2 if args.compare else 1)
    program_cost(target.ranks, cost_limits(args), runs,
                 Driver("--repeat", args.repeat, f"{runs} runs of {target.ranks} processes"))
    tuning = load_config(args.config)
    compared = load_config(args.compare) if args.compare else None
    if args.platform in list_platforms():
        for name, config in ((args.config, tuning), (args.compare, compared)):
            if name and config is not None:
                check_site_rules(load_platform(args.platform), target, config, name, args)
    say_flavour(target)
    executor = LocalExecutor(timeout_s=args.timeout, keep=args.keep, workdir=Path(args.workdir),
                             config_name=args.config or "the config")
    store_path = resolve_path(args.store)
    with Store(store_path) as store:
        campaign = store.create_campaign(target.label, kind="run", spec={
            "target": {"ranks": target.ranks, "kernel": target.kernel, "args": target.args,
                       "command": target.command},
            "config_file": args.config, "repeat": args.repeat, "compare_file": args.compare})

        def runs(config: Config, label: str = "") -> RunAndStore:
            return run_then_store(executor, target, config, store=store, campaign_id=campaign,
                                  platform=args.platform, label=label)

        if compared is None:
            measurements = {"": measure(target, tuning, runs(tuning), repeat=args.repeat)}
        else:
            configs = {BASE: tuning, COMPARED: compared}
            measurements = measure_pairs(target, configs,
                                         {label: runs(configs[label], label) for label in configs},
                                         rounds=args.repeat)
    files = {"": args.config, BASE: args.config, COMPARED: args.compare}
    speedup = (pair_speedup(measurements[BASE], measurements[COMPARED])
               if compared is not None else None)
    if args.json:
        found = {label or "run": as_json(m, campaign, store_path)
                 for label, m in measurements.items()}
        print(json.dumps(found["run"] if compared is None else
                         {**found, "speedup": speedup.as_dict() if speedup else None}, indent=1))
    else:
        print("\n".join(as_text(m, files[label], campaign, store_path, label)
                        for label, m in measurements.items()))
        if speedup is not None:
            print(f"{speedup.text(BASE, COMPARED)} ({BASE}: {args.config or 'no config'}, "
                  f"{COMPARED}: {args.compare})")
    ok = all(len(m.ok_runs) == len(m.runs) for m in measurements.values())
    return 0 if ok else 1


BASE, COMPARED = "base", "compared"  # labels of iotwin run --compare's two configs


def check_site_rules(platform: Platform, target: Target, tuning: Config, name: str,
                     args: argparse.Namespace) -> None:
    """The config against the platform's site rules, on the kernel's files where their sizes
    matter (a program's files are not known before it runs)."""
    sized = target.kernel not in (None, "replay") and needs_file_sizes(platform)
    work = kernel_workload(target.kernel or "", target.ranks, target.args,
                           flavour_of(target).name) if sized else None
    warn(check_config(platform, tuning, work, name, args.ignore_site_rules))


def as_json(measurement: Measurement, campaign: int, store_path: Path) -> dict[str, Any]:
    time, rate = measurement.time, measurement.rate
    return {
        "target": {"workload": workload_of(measurement.target),
                   "ranks": measurement.target.ranks},
        "config": measurement.config,
        "repetitions": [{"status": run.status, "total_s": run.total_s, "rate_mbs": run.rate_mbs,
                         "bytes": run.bytes, "phases": run.phases, "error": run.error}
                        for run in measurement.runs],
        "time_s": time.as_dict() if time else None,
        "rate_mbs": rate.as_dict() if rate else None,
        "settings": [vars(outcome) for outcome in setting_outcomes(measurement.reports)],
        "unmatched_rules": unmatched_rules(measurement.reports),
        "outside": (vars(outside) if (outside := outside_writes(measurement.reports)) else None),
        "reports": measurement.reports,
        "store": str(store_path), "campaign": campaign,
        "evaluations": measurement.evaluation_ids,
    }


def as_text(measurement: Measurement, config_file: str | None, campaign: int,
            store_path: Path, label: str = "") -> str:
    runs, ok = measurement.runs, measurement.ok_runs
    target = measurement.target
    lines = [f"{label + ': ' if label else ''}{workload_of(target)} x{target.ranks}, config "
             f"{config_file or '(none)'}: {len(ok)}/{len(runs)} repetitions ok"]
    lines += _summary_lines(measurement, ok[-1].bytes if ok else None)
    lines += [f"  {run.status} (rep {i + 1}): {printable_lines((run.error or '').strip())}"
              for i, run in enumerate(runs) if not run.ok]
    lines += settings_lines(setting_outcomes(measurement.reports), bool(measurement.config),
                            unmatched_rules(measurement.reports),
                            refused=config_rejection(measurement.reports) is not None)
    outside = outside_writes(measurement.reports)
    if outside is not None:
        lines.append(outside.describe())
    ids = measurement.evaluation_ids
    lines.append(f"stored: campaign {campaign}, evaluations {ids[0]}-{ids[-1]} in {store_path}")
    return "\n".join(lines)


def _summary_lines(measurement: Measurement, nbytes: int | None) -> list[str]:
    """The I/O time and rate, and beside them the computation and the wall time."""
    figures = {"time": (measurement.time, "s"), "rate": (measurement.rate, "MB/s"),
               "compute": (measurement.phase("compute_s"), "s"),
               "wall": (measurement.phase("wall_s"), "s")}
    lines = [f"  {name:8s} {summary.format(unit)}" for name, (summary, unit) in figures.items()
             if summary]
    if nbytes is not None:
        lines.append(f"  {'bytes':8s} {nbytes:,}")
    return lines


def settings_lines(outcomes: list[SettingOutcome], config_given: bool,
                   unmatched: list[str] | None = None, refused: bool = False) -> list[str]:
    """What the interposer applied, and what did not take effect, per file; the config's
    ``files`` rules that matched no file; nothing when the interposer refused the config."""
    if refused:
        return ["settings: none applied: the interposer refused the config (above)"]
    rules = [f"settings: rule {printable(rule)} the program opened" for rule in unmatched or []]
    if not outcomes:
        return rules or ["settings: the interposer reported no settings" + (
            " (does the program write HDF5 or MPI-IO through the shared parallel libraries?)"
            if config_given else " (no config given)")]
    return [*rules, *_outcome_lines(outcomes)]


def _outcome_lines(outcomes: list[SettingOutcome]) -> list[str]:
    lines = ["settings (read back from the open file by the interposer):"]
    for outcome in outcomes:
        # names and values come from the program's files: shown escaped, one line each
        where, key = printable(outcome.file), printable(outcome.key)
        effective, requested = printable(str(outcome.effective)), printable(str(outcome.requested))
        if outcome.took_effect:
            lines.append(f"  effective      {where}: {key} = {effective}")
        else:
            reason = f" ({printable(str(outcome.reason))})" if outcome.reason else ""
            got = "not applied" if outcome.effective is None else f"got {effective}"
            # a layout's components are a list, reported by key alone
            asked = "" if outcome.requested is None else f"requested {requested}, "
            lines.append(f"  NOT effective  {where}: {key}: {asked}{got}{reason}")
    return lines

