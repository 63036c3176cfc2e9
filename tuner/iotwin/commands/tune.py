"""`iotwin tune`: search a parameter space for the fastest config of a kernel or program.

    iotwin tune --kernel vpic-io --ranks 4 --platform local --space local --real-budget 20
                [--strategy sim-screened] [--executor local|twin] [--seed S] [--json]
                [-- kernel args]
    iotwin tune --ranks 4 --real-budget 8 -- PROGRAM ARGS

A program's workload (for sim-screened) is captured by the interposer from its first run, of
the default config, which counts as a measurement of the default.
    iotwin tune --resume ID

Prints one progress line per generation, writes the best measured config as YAML for the
interposer, then re-measures the default and the tuned config R times each and prints both.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any

import yaml

from iotwin import executors
from iotwin.config.schema import dump_config
from iotwin.errors import UserError
from iotwin.executors import EXECUTORS
from iotwin.executors.mpi_flavour import say_flavour
from iotwin.model.sim_cluster import add_sim_cluster_argument
from iotwin.search import STRATEGIES
from iotwin.space.parameters import default_space_for
from iotwin.stats import Speedup, Summary, format_mbs, speedup_interval
from iotwin.store.database import Store, add_store_argument, resolve_path
from iotwin.tuning.campaign import CampaignSpec, Progress
from iotwin.tuning.pipeline import (
    PipelineOptions,
    TuneResult,
    TuneSpec,
    start,
    stored_pipeline,
    stored_spec,
    tune,
)
from iotwin.tuning.repetitions import Measurement
from iotwin.workloads.workload import load_workload

#: the options that make a campaign, with their defaults: given again with --resume they must
#: agree with the ones it started with (the stored spec); the space's default depends on the
#: file system the runs write to (default_space_for)
DEFAULTS: dict[str, Any] = {
    "platform": "local", "strategy": "sim-screened", "executor": "local",
    "real_budget": 20, "repetitions": 1, "timeout": 600.0, "seed": 0, "truth_seed": 0,
    "confirm": 3, "confirm_runs": 3, "summary_repeat": 5,
}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tune", help="find the fastest I/O config of a kernel or program",
        description="Search a parameter space with a few real runs (sim-screened: most "
        "candidates are evaluated in simulation) and write the best config found.",
        usage="iotwin tune (--kernel K | -- PROGRAM ARGS) --ranks N [options] [-- KERNEL_ARGS]"
              "\n       iotwin tune --resume ID")
    parser.add_argument("--kernel", help="kernel of kernels/ (vpic-io, vorpal-io, gcrm-io, "
                        "block3d-io)")
    parser.add_argument("--ranks", type=int, metavar="N", help="MPI ranks")
    parser.add_argument("--platform", help="platform model (default local)")
    parser.add_argument("--space", help="parameter space (default: the one for the file system "
                                         "the runs write to: local on this machine, table3 on "
                                         "a Lustre or GPFS platform's twin)")
    parser.add_argument("--fix", action="append", metavar="PARAM=VALUE",
                        help="pin a space parameter to one value (repeatable)")
    parser.add_argument("--strategy", choices=sorted(STRATEGIES),
                        help="search strategy (default sim-screened)")
    parser.add_argument("--set", action="append", metavar="SETTING=VALUE",
                        help="override a strategy setting of search/strategies.yaml")
    parser.add_argument("--executor", choices=sorted(EXECUTORS),
                        help="where real runs happen: this machine (local, the default), "
                             "one Slurm job per run (slurm, with --site), the platform's "
                             "twin, or a measured table replayed (table, with --table)")
    parser.add_argument("--site", type=lambda path: str(Path(path).resolve()), metavar="YAML",
                        help="slurm executor: the site file (sbatch partition, account, qos, "
                             "launcher; default tuner/iotwin/data/sites/default.yaml)")
    parser.add_argument("--table", type=lambda path: str(Path(path).resolve()), metavar="CSV",
                        help="table executor: the measured landscape whose runs are replayed "
                             "(iotwin landscape measure); the space is restricted to its "
                             "configs")
    parser.add_argument("--real-budget", type=int, metavar="R",
                        help="distinct configs run for real (default 20)")
    parser.add_argument("--repetitions", type=int, metavar="R",
                        help="runs per config during the search; the median counts (default 1)")
    parser.add_argument("--timeout", type=float, metavar="S",
                        help="seconds before a run is killed and counted as failed (default 600)")
    parser.add_argument("--seed", type=int, help="the search's seed (default 0)")
    parser.add_argument("--truth-seed", type=int,
                        help="twin executor: which perturbed truth of the platform runs")
    parser.add_argument("--resume", type=int, metavar="ID",
                        help="continue campaign ID with the options it started with; nothing "
                             "measured is run again")
    parser.add_argument("--output", type=Path, metavar="YAML",
                        help="tuned config file (default tuned-<campaign>.yaml)")
    parser.add_argument("--confirm", type=int, metavar="K",
                        help="re-measure the search's K best configs before choosing the tuned "
                             "one (0: take the best single run; default 3)")
    parser.add_argument("--confirm-runs", type=int, metavar="R",
                        help="fresh runs of each candidate, interleaved; the median of these "
                             "decides (default 3)")
    parser.add_argument("--summary-repeat", type=int, metavar="R",
                        help="re-measure default and tuned R times each (0: skip; default 5)")
    parser.add_argument("--workload", metavar="W.yaml",
                        help="a program's workload for the simulator (iotwin workload capture); "
                             "default: captured from the program's first run, the default config")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_sim_cluster_argument(parser)
    add_store_argument(parser)
    parser.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
    parser.set_defaults(func=main)


#: every option a campaign is made of, as spec_from_options reads them (``rest``: the kernel's
#: arguments, or the program and its arguments)
OPTIONS = {"kernel", "ranks", "space", "fix", "set", "workload", "rest", *DEFAULTS}


def main(args: argparse.Namespace) -> int:
    with Store(resolve_path(args.store)) as store:
        campaign_id, spec = _resume(store, args) if args.resume else _start(store, args)
        tune_and_report(store, campaign_id, spec, args.output, args.json)
    return 0


def tune_and_report(store: Store, campaign_id: int, spec: TuneSpec, output: Path | None,
                    as_json: bool) -> TuneResult:
    """Run the stored campaign's tuning, printing its progress, write the tuned config (to
    ``output``, default tuned-<campaign>.yaml) and print the outcome."""
    search = spec.search
    print(f"campaign {campaign_id}: {search.strategy} on {search.target.label}, "
          f"space {search.space}, platform {search.platform}, executor {search.executor}, "
          f"budget {search.real_budget}", file=sys.stderr, flush=True)
    if executors.select(search.executor).launches_programs:
        say_flavour(search.target)
    result = tune(spec, store, campaign_id, on_progress=_print_progress)
    output = output or Path(f"tuned-{campaign_id}.yaml")
    output.write_text(dump_config(result.tuned))
    _report(result, output, as_json)
    return result


def spec_from_options(options: Mapping[str, Any]) -> TuneSpec:
    """The spec of ``iotwin tune``'s options by name (``fix`` and ``set`` as mappings); an
    option that is missing or None takes its default."""
    def option(name: str) -> Any:
        return _option(options, name)

    if options.get("ranks") is None:
        raise UserError("--ranks N is required")
    kernel, rest = options.get("kernel"), tuple(str(arg) for arg in options.get("rest") or ())
    if kernel is None and not rest:
        raise UserError("name a --kernel or a program after --")
    search = CampaignSpec(
        ranks=int(options["ranks"]), platform=option("platform"),
        space=str(options.get("space") or ""), strategy=option("strategy"),
        executor=option("executor"), real_budget=option("real_budget"), kernel=kernel,
        args=rest if kernel else (), command=() if kernel else rest, seed=option("seed"),
        repetitions=option("repetitions"), timeout_s=option("timeout"),
        truth_seed=option("truth_seed"), fixed=dict(options.get("fix") or {}),
        settings=dict(options.get("set") or {}),
        workload=load_workload(options["workload"]) if options.get("workload") else None,
        site=options.get("site"), table=options.get("table"))
    if not search.space:
        filesystem = executors.space_context(search.executor, search.platform,
                                             search.ranks).filesystem
        search = replace(search, space=default_space_for(filesystem))
    return TuneSpec(search, _pipeline_options(options))


def _option(options: Mapping[str, Any], name: str) -> Any:
    value = options.get(name)
    return DEFAULTS[name] if value is None else value


def _pipeline_options(options: Mapping[str, Any]) -> PipelineOptions:
    return PipelineOptions(**{name: _option(options, name) for name in _PIPELINE})


def _start(store: Store, args: argparse.Namespace) -> tuple[int, TuneSpec]:
    spec = spec_from_options({**vars(args), "fix": _assignments(args.fix, "--fix"),
                              "set": _assignments(args.set, "--set")})
    return start(store, spec), spec


def _resume(store: Store, args: argparse.Namespace) -> tuple[int, TuneSpec]:
    """The campaign's stored spec; an option given again must agree with it (a campaign
    stored without its pipeline options takes them from this command line)."""
    spec = stored_spec(store, args.resume)
    has_pipeline = stored_pipeline(store.campaign(args.resume).spec)
    started = json.loads(json.dumps({**spec.search.to_json(), **asdict(spec.pipeline)}))
    for option, key, given in _given_options(args):
        if key in _PIPELINE and not has_pipeline:
            continue
        if json.loads(json.dumps(given)) != started[key]:
            raise UserError(f"campaign {args.resume} started with {option} "
                            f"{_shown(started[key])}; the resume gives {_shown(given)}: leave "
                            f"{option} out to go on as it started, or start a new campaign")
    if not has_pipeline:
        spec = replace(spec, pipeline=_pipeline_options(vars(args)))
    return args.resume, spec


_PIPELINE = tuple(f.name for f in fields(PipelineOptions))
#: command-line option -> (its attribute, the stored spec's key)
_CAMPAIGN_OPTIONS = {
    "--kernel": ("kernel", "kernel"), "--ranks": ("ranks", "ranks"),
    "--platform": ("platform", "platform"), "--space": ("space", "space"),
    "--strategy": ("strategy", "strategy"), "--executor": ("executor", "executor"),
    "--real-budget": ("real_budget", "real_budget"),
    "--repetitions": ("repetitions", "repetitions"), "--timeout": ("timeout", "timeout_s"),
    "--seed": ("seed", "seed"), "--truth-seed": ("truth_seed", "truth_seed"),
    "--site": ("site", "site"), "--table": ("table", "table"),
    "--confirm": ("confirm", "confirm"), "--confirm-runs": ("confirm_runs", "confirm_runs"),
    "--summary-repeat": ("summary_repeat", "summary_repeat"),
}


def _given_options(args: argparse.Namespace) -> list[tuple[str, str, Any]]:
    """(option, stored key, value) of each campaign option given on the command line."""
    given = [(option, key, getattr(args, attribute))
             for option, (attribute, key) in _CAMPAIGN_OPTIONS.items()
             if getattr(args, attribute) is not None]
    if args.fix is not None:
        given.append(("--fix", "fixed", _assignments(args.fix, "--fix")))
    if args.set is not None:
        given.append(("--set", "settings", _assignments(args.set, "--set")))
    if args.rest:
        given.append(("arguments after --", "args" if args.kernel else "command",
                      list(args.rest)))
    return given


def _shown(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def _assignments(items: list[str] | None, option: str) -> dict[str, Any]:
    """NAME=VALUE pairs; values are read as YAML (4, 1MiB, null, true)."""
    parsed: dict[str, Any] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UserError(f"{option} {item!r}: expected NAME=VALUE")
        parsed[name] = yaml.safe_load(value)
    return parsed


def _print_progress(progress: Progress) -> None:
    def rate(value: float | None) -> str:
        return f"{format_mbs(value):>9} MB/s" if value is not None else "        - MB/s"

    error = f"{100 * progress.model_error:5.1f}%" if progress.model_error is not None else "    -"
    print(f"gen {progress.generation:3d}  runs {progress.runs_used:3d}/{progress.budget:<3d}  "
          f"best measured {rate(progress.best_measured)}  "
          f"best predicted {rate(progress.best_predicted)}  model error {error}",
          file=sys.stderr, flush=True)


def _report(result: TuneResult, output: Path, as_json: bool) -> None:
    campaign, confirmed, summary = result.campaign, result.confirmed, result.summary
    rates: dict[str, Summary | None] = {label: m.rate for label, m in summary.items()}
    speedup = (rates["tuned"].median / rates["default"].median
               if rates.get("tuned") and rates.get("default") else None)
    best = confirmed[0]
    if as_json:
        print(json.dumps({
            "campaign": campaign.id, "runs_used": len(campaign.measured),
            "best_measured_mbs": best.rate, "best_measured_runs": len(best.rates),
            "confirmed": [{"search_mbs": c.search_rate, "median_mbs": c.rate,
                           "runs": len(c.rates)} for c in confirmed],
            "config_file": str(output),
            "summary": {k: (v.as_dict() if v else None) for k, v in rates.items()},
            "speedup": speedup, "speedup_interval": _interval_json(_speedup(summary))},
            indent=2))
        return
    if len(confirmed) > 1:
        for rank, candidate in enumerate(confirmed, 1):
            label = " (the default config)" if not candidate.config else ""
            search = (f"search run {format_mbs(candidate.search_rate)} MB/s"
                      if candidate.search_rate else "not run in the search")
            print(f"  confirmed {rank}: median {format_mbs(candidate.rate or 0)} MB/s of "
                  f"{len(candidate.rates)} fresh runs ({search}){label}")
    print(f"best measured: {format_mbs(best.rate or 0)} MB/s (median of {len(best.rates)} runs) "
          f"after {len(campaign.measured)} configs run for real; tuned config written to {output}")
    for label, rate in rates.items():
        print(f"  {label:8s} {rate.format('MB/s') if rate else 'every run failed'}")
    if speedup is not None:
        print(f"  tuned / default: {speedup:.2f}x (medians, same session)")
    interval = _speedup(summary)
    if interval is not None:
        print(f"  {_interval_line(interval)}")


def _speedup(summary: dict[str, Measurement]) -> Speedup | None:
    """Tuned / default from the summary's runs, with its exact interval (stats.speedup_interval)."""
    rates = {label: [r.rate_mbs for r in m.runs if r.ok and r.rate_mbs]
             for label, m in summary.items()}
    if not rates.get("default") or not rates.get("tuned"):
        return None
    return speedup_interval(rates["default"], rates["tuned"])


def _interval_line(s: Speedup) -> str:
    if s.low is None or s.high is None or s.confidence is None:
        return (f"speedup {s.estimate:.2f}x: too few runs for a 95% interval "
                f"(use --summary-repeat 4 or more)")
    verdict = ("significant" if s.significant
               else "no significant difference: the interval includes 1")
    return (f"speedup {s.estimate:.2f}x (median of the tuned/default run ratios), "
            f"95% interval {s.low:.2f}-{s.high:.2f}x "
            f"(exact, Moses/Mann-Whitney on the runs' log rates, coverage "
            f"{100 * s.confidence:.1f}%): {verdict}")


def _interval_json(s: Speedup | None) -> dict[str, Any] | None:
    return None if s is None else {"estimate": s.estimate, "low": s.low, "high": s.high,
                                   "confidence": s.confidence, "significant": s.significant}
