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
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from iotwin.campaign import (
    Campaign,
    CampaignSpec,
    Progress,
    capture_workload_of,
    check_spec,
    open_campaign,
    run_campaign,
    space_context,
)
from iotwin.config import dump_config
from iotwin.confirm import Confirmed, confirm_best
from iotwin.errors import UserError
from iotwin.repetitions import Measurement, measure
from iotwin.search import STRATEGIES
from iotwin.space import default_space_for
from iotwin.stats import Speedup, Summary, format_mbs, speedup_interval
from iotwin.store import Store, add_store_argument, resolve_path
from iotwin.workload import load_workload


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tune", help="find the fastest I/O config of a kernel or program",
        description="Search a parameter space with a few real runs (sim-screened: most "
        "candidates are evaluated in simulation) and write the best config found.",
        usage="iotwin tune (--kernel K | -- PROGRAM ARGS) --ranks N [options] [-- KERNEL_ARGS]"
              "\n       iotwin tune --resume ID")
    parser.add_argument("--kernel", help="kernel of kernels/ (vpic-io, vorpal-io, gcrm-io)")
    parser.add_argument("--ranks", type=int, metavar="N", help="MPI ranks")
    parser.add_argument("--platform", default="local", help="platform model (default local)")
    parser.add_argument("--space", help="parameter space (default: the one for the file system "
                                         "the runs write to: local on this machine, table3 on "
                                         "a Lustre or GPFS platform's twin)")
    parser.add_argument("--fix", action="append", default=[], metavar="PARAM=VALUE",
                        help="pin a space parameter to one value (repeatable)")
    parser.add_argument("--strategy", default="sim-screened", choices=sorted(STRATEGIES))
    parser.add_argument("--set", action="append", default=[], metavar="SETTING=VALUE",
                        help="override a strategy setting of search/strategies.yaml")
    parser.add_argument("--executor", default="local", choices=("local", "twin"),
                        help="where real runs happen: this machine, or the platform's twin")
    parser.add_argument("--real-budget", type=int, default=20, metavar="R",
                        help="distinct configs run for real (default 20)")
    parser.add_argument("--repetitions", type=int, default=1, metavar="R",
                        help="runs per config during the search; the median counts (default 1)")
    parser.add_argument("--timeout", type=float, default=600.0, metavar="S",
                        help="seconds before a run is killed and counted as failed")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--truth-seed", type=int, default=0,
                        help="twin executor: which perturbed truth of the platform runs")
    parser.add_argument("--resume", type=int, metavar="ID",
                        help="continue campaign ID; nothing measured is run again")
    parser.add_argument("--output", type=Path, metavar="YAML",
                        help="tuned config file (default tuned-<campaign>.yaml)")
    parser.add_argument("--confirm", type=int, default=3, metavar="K",
                        help="re-measure the search's K best configs before choosing the tuned "
                             "one (0: take the best single run; default 3)")
    parser.add_argument("--confirm-runs", type=int, default=3, metavar="R",
                        help="fresh runs of each candidate, interleaved; the median of these "
                             "decides (default 3)")
    parser.add_argument("--summary-repeat", type=int, default=5, metavar="R",
                        help="re-measure default and tuned R times each (0: skip; default 5)")
    parser.add_argument("--workload", metavar="W.yaml",
                        help="a program's workload for the simulator (iotwin workload capture); "
                             "default: captured from the program's first run, the default config")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_store_argument(parser)
    parser.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    with Store(resolve_path(args.store)) as store:
        campaign_id, spec = _resume(store, args) if args.resume else _start(store, args)
        print(f"campaign {campaign_id}: {spec.strategy} on {spec.target.label}, "
              f"space {spec.space}, platform {spec.platform}, executor {spec.executor}, "
              f"budget {spec.real_budget}", file=sys.stderr, flush=True)
        if spec.needs_capture:
            spec = capture_workload_of(store, campaign_id, spec, _print_line)
        campaign = open_campaign(store, campaign_id, spec, _print_progress)
        run_campaign(campaign)
        confirmed = confirm_best(campaign, args.confirm, args.confirm_runs)
        if not confirmed:
            raise UserError(f"campaign {campaign_id}: no run succeeded; see `iotwin show "
                            f"{campaign_id}` for the errors")
        best = confirmed[0]
        output = args.output or Path(f"tuned-{campaign_id}.yaml")
        output.write_text(dump_config(best.config))
        summary = _default_vs_tuned(store, campaign, best.config, args.summary_repeat)
        _report(campaign, confirmed, output, summary, args.json)
    return 0


def _start(store: Store, args: argparse.Namespace) -> tuple[int, CampaignSpec]:
    if args.ranks is None:
        raise UserError("--ranks N is required")
    if args.kernel is None and not args.rest:
        raise UserError("name a --kernel or a program after --")
    settings = _assignments(args.set, "--set")
    spec = CampaignSpec(
        ranks=args.ranks, platform=args.platform, space=args.space or "", strategy=args.strategy,
        executor=args.executor, real_budget=args.real_budget, kernel=args.kernel,
        args=tuple(args.rest) if args.kernel else (),
        command=() if args.kernel else tuple(args.rest), seed=args.seed,
        repetitions=args.repetitions, timeout_s=args.timeout, truth_seed=args.truth_seed,
        fixed=_assignments(args.fix, "--fix"), settings=settings,
        workload=load_workload(args.workload) if args.workload else None)
    if not spec.space:
        spec = replace(spec, space=default_space_for(space_context(spec).filesystem))
    check_spec(spec)
    name = f"tune {spec.target.label} on {spec.platform}"
    return store.create_campaign(name, kind="tune", spec=spec.to_json()), spec


def _resume(store: Store, args: argparse.Namespace) -> tuple[int, CampaignSpec]:
    campaign = store.campaign(args.resume)
    if campaign.kind != "tune":
        raise UserError(f"campaign {args.resume} is a {campaign.kind} campaign, not a tuning")
    return campaign.id, CampaignSpec.from_json(campaign.spec)


def _assignments(items: list[str], option: str) -> dict[str, Any]:
    """NAME=VALUE pairs; values are read as YAML (4, 1MiB, null, true)."""
    parsed: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UserError(f"{option} {item!r}: expected NAME=VALUE")
        parsed[name] = yaml.safe_load(value)
    return parsed


def _print_line(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _print_progress(progress: Progress) -> None:
    def rate(value: float | None) -> str:
        return f"{format_mbs(value):>9} MB/s" if value is not None else "        - MB/s"

    error = f"{100 * progress.model_error:5.1f}%" if progress.model_error is not None else "    -"
    print(f"gen {progress.generation:3d}  runs {progress.runs_used:3d}/{progress.budget:<3d}  "
          f"best measured {rate(progress.best_measured)}  "
          f"best predicted {rate(progress.best_predicted)}  model error {error}",
          file=sys.stderr, flush=True)


def _default_vs_tuned(store: Store, campaign: Campaign, tuned: dict[str, Any],
                      repeat: int) -> dict[str, Measurement]:
    if repeat < 1:
        return {}
    return {label: measure(campaign.executor, campaign.spec.target, config, repeat=repeat,
                           store=store, campaign_id=campaign.id, platform=campaign.spec.platform,
                           label=label)
            for label, config in (("default", {}), ("tuned", tuned))}


def _report(campaign: Campaign, confirmed: list[Confirmed], output: Path,
            summary: dict[str, Measurement], as_json: bool) -> None:
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
            print(f"  confirmed {rank}: median {format_mbs(candidate.rate or 0)} MB/s of "
                  f"{len(candidate.rates)} fresh runs (search run "
                  f"{format_mbs(candidate.search_rate)} MB/s){label}")
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
    return (f"speedup {s.estimate:.2f}x, 95% interval {s.low:.2f}-{s.high:.2f}x "
            f"(exact, Moses/Mann-Whitney on the runs' log rates, coverage "
            f"{100 * s.confidence:.1f}%): {verdict}")


def _interval_json(s: Speedup | None) -> dict[str, Any] | None:
    return None if s is None else {"estimate": s.estimate, "low": s.low, "high": s.high,
                                   "confidence": s.confidence, "significant": s.significant}
