"""`iotwin tune`: search a parameter space for the fastest config of a kernel or program.

    iotwin tune --kernel vpic-io --ranks 4 --platform local --space local --real-budget 20
                [--strategy sim-screened] [--executor local|twin] [--seed S] [--json]
                [-- kernel args]
    iotwin tune --ranks 4 --real-budget 8 -- PROGRAM ARGS

A program's workload (for sim-screened) is captured by the interposer from its first run, of
the default config; capture slows that run, so the default is measured again without it.
    iotwin tune --resume ID

Prints one progress line per generation, writes the best measured config as YAML for the
interposer, then re-measures the default and the tuned config in R rounds of one run each, the
order alternating (ABBA...), and prints both and the speedup with its interval on these pairs.
``--objective io`` (the default) makes the program's time inside I/O calls shorter, ``wall``
its wall time; the summary says which and gives both, side by side. ``--keep DIR`` keeps the
program's output (iotwin.executors.run_folder.KeptRuns).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import yaml

from iotwin import executors
from iotwin.commands._options import (
    add_cost_limit_arguments,
    add_force_argument,
    add_keep_argument,
    add_sim_cluster_argument,
    add_site_rules_argument,
    add_store_argument,
    add_timeout_argument,
    add_workdir_argument,
    bounded,
    cost_limits,
    new_output,
    warn,
)
from iotwin.config.dumping import dump_config
from iotwin.config.validation import load_config
from iotwin.core.cost import announce
from iotwin.core.errors import UserError
from iotwin.core.run_records import OBJECTIVES, Objective
from iotwin.core.stats import MIN_PAIRS_95, Speedup, Summary, format_mbs
from iotwin.executors import EXECUTORS
from iotwin.executors.local import absolute_program
from iotwin.executors.mpi_flavour import say_flavour
from iotwin.model.platforms import load_platform
from iotwin.model.site_rules import check_config
from iotwin.report.mechanisms import as_json as mechanism_json
from iotwin.report.mechanisms import (
    breakdown_rows,
    breakdown_table,
    percent,
    rate_text,
    reasons,
)
from iotwin.search import STRATEGIES, strategy_settings
from iotwin.store.database import Store, StoreError, resolve_path
from iotwin.tuning.campaign import Progress, Screening
from iotwin.tuning.cost import tune_cost
from iotwin.tuning.effect import SettingsEffect, settings_effect
from iotwin.tuning.effect import as_json as effect_json
from iotwin.tuning.ending import ending
from iotwin.tuning.explanation import Explanation
from iotwin.tuning.parts import CampaignParts
from iotwin.tuning.pipeline import TuneResult, start, stored_spec, summary_speedup, tune
from iotwin.tuning.repetitions import Measurement, measured_io_rates
from iotwin.tuning.spec import (
    CampaignSpec,
    PipelineOptions,
    TuneSpec,
    default_of,
    stores_pipeline,
)
from iotwin.workloads.workload import load_workload

#: the options that make a campaign, each with the TuneSpec field it sets ("search.NAME" or
#: "pipeline.NAME"): given again with --resume they must agree with the ones it started with
SPEC_OPTIONS: dict[str, str] = {
    "--kernel": "search.kernel", "--ranks": "search.ranks", "--platform": "search.platform",
    "--space": "search.space", "--strategy": "search.strategy",
    "--executor": "search.executor", "--real-budget": "search.real_budget",
    "--repetitions": "search.repetitions", "--timeout": "search.timeout_s",
    "--seed": "search.seed", "--truth-seed": "search.truth_seed", "--site": "search.site",
    "--table": "search.table", "--fix": "search.fixed", "--set": "search.settings",
    "--workload": "search.workload", "--confirm": "pipeline.confirm",
    "--confirm-runs": "pipeline.confirm_runs", "--confirm-max-runs": "pipeline.confirm_max_runs",
    "--summary-repeat": "pipeline.summary_repeat",
    "--workdir": "search.workdir", "--config": "pipeline.yours",
    "--objective": "search.objective",
}

#: what each objective makes faster, as the summary says it
OBJECTIVE_TEXT = {
    "io": "I/O time (the rate is the program's bytes over its time inside its HDF5, MPI-IO "
          "and POSIX I/O calls, its computation left out; --objective wall: over its wall "
          "time)",
    "wall": "wall time (the rate is the program's bytes over its wall time, launch and "
            "computation included; --objective io: over its time inside I/O calls)",
}


def _default(field: str) -> Any:
    return default_of(CampaignSpec, field)


def _pipeline_default(field: str) -> Any:
    return default_of(PipelineOptions, field)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tune", help="find the fastest I/O config of a kernel or program",
        description="Search a parameter space with a few real runs (sim-screened: most "
        "candidates are evaluated in simulation) and write the best config found.",
        usage="iotwin tune (--kernel K | -- PROGRAM ARGS) --ranks N [options] [-- KERNEL_ARGS]"
              "\n       iotwin tune --resume ID")
    add_tune_arguments(parser)
    parser.set_defaults(func=main)


def add_tune_arguments(parser: argparse.ArgumentParser) -> None:
    """Every option of ``iotwin tune``; none has a default here (None: not given), so that a
    resume can tell the options given again, and the spec's own defaults apply."""
    parser.add_argument("--kernel", help="kernel of kernels/ (vpic-io, vorpal-io, gcrm-io, "
                        "block3d-io)")
    parser.add_argument("--ranks", type=bounded("processes"), metavar="N", help="MPI ranks")
    parser.add_argument("--platform",
                        help=f"platform model (default {_default('platform')})")
    parser.add_argument("--space", help="parameter space (default: the one for the file system "
                                         "the runs write to: local on this machine, table3 on "
                                         "a Lustre or GPFS platform's twin)")
    parser.add_argument("--fix", action="append", metavar="PARAM=VALUE",
                        help="pin a space parameter to one value (repeatable)")
    parser.add_argument("--strategy", choices=sorted(STRATEGIES),
                        help=f"search strategy (default {_default('strategy')})")
    stop = strategy_settings("sim-screened")
    parser.add_argument("--set", action="append", metavar="SETTING=VALUE",
                        help="override a strategy setting of search/strategies.yaml; "
                             "sim-screened's target is one: it stops once, at "
                             f"confidence={stop['confidence']:g}, no config beats the best "
                             f"measured by more than target={stop['target']:g} (a fraction), "
                             "else its budget ends and it says so")
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
    parser.add_argument("--real-budget", type=bounded("evaluation_budget"), metavar="R",
                        help="real measurements during the search: a new config (its "
                             "--repetitions runs) or one more run of a measured one, each "
                             f"counts one (default {_default('real_budget')})")
    parser.add_argument("--repetitions", type=int, metavar="R",
                        help="runs per config during the search; the median counts "
                             f"(default {_default('repetitions')})")
    add_timeout_argument(parser, default=None)
    add_workdir_argument(parser, default=None,
                         note="; a campaign runs where it started, also when resumed")
    parser.add_argument("--seed", type=int, help=f"the search's seed (default {_default('seed')})")
    parser.add_argument("--truth-seed", type=int,
                        help="twin executor: which perturbed truth of the platform runs")
    parser.add_argument("--resume", type=int, metavar="ID",
                        help="continue campaign ID with the options it started with; nothing "
                             "measured is run again")
    parser.add_argument("--output", type=Path, metavar="YAML",
                        help="tuned config file (default tuned-<campaign>.yaml)")
    add_force_argument(parser)
    parser.add_argument("--confirm", type=int, metavar="K",
                        help="re-measure the search's K best configs before choosing the tuned "
                             f"one (0: take the best single run; default "
                             f"{_pipeline_default('confirm')})")
    parser.add_argument("--confirm-runs", type=int, metavar="R",
                        help="fresh runs of each candidate, interleaved; the median of these "
                             f"decides (default {_pipeline_default('confirm_runs')})")
    parser.add_argument("--confirm-max-runs", type=int, metavar="R",
                        help="fresh runs, at most, of candidates the first runs cannot tell "
                             "from the best: they race on, one round at a time, until their "
                             "runs do (one-sided Mann-Whitney, 5%%) or R is reached (R at "
                             "most --confirm-runs: no race; default "
                             f"{_pipeline_default('confirm_max_runs')})")
    parser.add_argument("--summary-repeat", type=int, metavar="R",
                        help="re-measure default and tuned in R rounds of one run each, the "
                             "order alternating; the speedup's interval is taken on these "
                             f"pairs ({MIN_PAIRS_95} or more for a 95%% interval; 0: skip; "
                             f"default {_pipeline_default('summary_repeat')})")
    parser.add_argument("--config", metavar="YAML",
                        help="your own config (the one you run with today): measured beside "
                             "default and tuned in the summary's rounds, and explained with "
                             "them; it must keep the platform's site rules")
    add_site_rules_argument(parser)
    parser.add_argument("--workload", metavar="W.yaml",
                        help="a program's workload for the simulator (iotwin workload capture); "
                             "default: captured from the program's first run, the default config")
    parser.add_argument("--objective", choices=OBJECTIVES,
                        help="what is made faster: the program's time inside its I/O calls "
                             "(io, the default) or its wall time (wall, its computation and "
                             "launch included)")
    add_keep_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_sim_cluster_argument(parser)
    add_store_argument(parser)
    add_cost_limit_arguments(parser)
    parser.add_argument("rest", nargs="*", help=argparse.SUPPRESS)


def main(args: argparse.Namespace) -> int:
    if args.output:  # before a campaign starts
        new_output(args.output, args.force)
    new = None if args.resume else spec_from_arguments(args)
    if new is not None:  # a campaign beyond the limits leaves no store behind
        announce("tune", tune_cost(new, cost_limits(args)))
    with Store(resolve_path(args.store)) as store:
        if new is None:
            campaign_id, spec, parts = args.resume, _resumed_spec(store, args), None
            say_program_flavour(spec)
        else:
            say_program_flavour(new)  # a program refused leaves no campaign behind
            campaign_id, spec, parts = start(store, new, keep=args.keep)
        try:
            tune_and_report(store, campaign_id, spec, args.output, args.json, parts, args.keep,
                            force=args.force)
        except StoreError as error:
            raise UserError(f"{error}: campaign {campaign_id} goes on with `iotwin tune "
                            f"--resume {campaign_id} --store {error.path}` once the store can "
                            "be written") from error
    return 0


def say_program_flavour(spec: TuneSpec) -> None:
    """Where the executor starts the program: its MPI flavour found and said, its interposer
    built, or UserError."""
    if executors.executor_kind(spec.search.executor).launches_programs:
        say_flavour(spec.search.target)


def tune_and_report(store: Store, campaign_id: int, spec: TuneSpec, output: Path | None,
                    as_json: bool, parts: CampaignParts | None = None,
                    keep: Path | None = None, force: bool = False) -> TuneResult:
    """Run the stored campaign's tuning, printing its progress, write the tuned config (to
    ``output``, default tuned-<campaign>.yaml) and print the outcome; ``keep``: where the runs
    keep the program's output (--keep). A user who stops it (Ctrl-C) gets the outcome of what
    was measured so far, then the interrupt goes on (the exit status says it)."""
    search = spec.search
    print(f"campaign {campaign_id}: {search.strategy} on {search.target.label}, "
          f"space {search.space}, platform {search.platform}, executor {search.executor}, "
          f"budget {search.real_budget}", file=sys.stderr, flush=True)
    output = new_output(output or Path(f"tuned-{campaign_id}.yaml"), force)
    result = tune(spec, store, campaign_id, parts=parts, keep=keep,
                  on_progress=functools.partial(_print_progress, objective=search.objective),
                  stop_on_interrupt=True)
    if result.stopped and not result.confirmed:
        print(f"the search ended: {ending(result.campaign, stopped_by_user=True)}, before "
              f"any run succeeded")
        raise KeyboardInterrupt
    effect = tuned_effect(result)
    if offered(summary_speedup(result.summary)) and not effect.none_took_effect:
        output.write_text(dump_config(result.tuned))
        _report(result, effect, output, as_json)
    else:
        _report(result, effect, None, as_json)
    if result.stopped:
        raise KeyboardInterrupt
    return result


def tuned_effect(result: TuneResult) -> SettingsEffect:
    """What the interposer said of the tuned config's settings in its summary runs."""
    tuned = result.summary.get("tuned")
    return settings_effect(tuned.reports if tuned else [])


def offered(interval: Speedup | None) -> bool:
    """Whether the tuned config is offered as the result: unless the summary's interval says
    it is not faster than the default (an interval that covers 1 or lies below it). With too
    few pairs for an interval it is offered, and the summary says so."""
    return interval is None or interval.low is None or interval.low > 1


def spec_from_arguments(args: argparse.Namespace) -> TuneSpec:
    """The spec of ``iotwin tune``'s parsed options; an option not given takes the spec's
    default."""
    if args.ranks is None:
        raise UserError("--ranks N is required")
    rest = tuple(str(arg) for arg in args.rest or ())
    if args.kernel is None and not rest:
        raise UserError("name a --kernel or a program after --")
    fields: dict[str, dict[str, Any]] = {"search": {"workdir": os.getcwd()}, "pipeline": {}}
    for option, value in _given(args):
        part, name = SPEC_OPTIONS[option].split(".")
        fields[part][name] = value
    search = CampaignSpec(**fields["search"], args=rest if args.kernel else (),
                          command=() if args.kernel else _command(rest))
    pipeline = PipelineOptions(**fields["pipeline"])
    if pipeline.yours is not None:
        warn(check_config(load_platform(search.platform), load_config(args.config),
                          search.workload, args.config, args.ignore_site_rules))
    return TuneSpec(search, pipeline)


def _given(args: argparse.Namespace) -> list[tuple[str, Any]]:
    """(option, value as the spec holds it) of each spec option given on the command line."""
    given = []
    for option in SPEC_OPTIONS:
        value = getattr(args, option[2:].replace("-", "_"))
        if value is None:
            continue
        if option in ("--fix", "--set"):
            value = _assignments(value, option)
        elif option == "--workload":
            value = load_workload(value)
        elif option == "--config":
            value = dict(load_config(value))
        given.append((option, value))
    return given


def _resumed_spec(store: Store, args: argparse.Namespace) -> TuneSpec:
    """The campaign's stored spec; an option given again must agree with it (a campaign
    stored without its pipeline options takes them from this command line)."""
    spec = stored_spec(store, args.resume)
    has_pipeline = stores_pipeline(store.campaign(args.resume).spec)
    started = json.loads(json.dumps({"search": spec.search.to_json(),
                                     "pipeline": asdict(spec.pipeline)}))
    given = _given(args)
    if args.rest:
        rest = [str(arg) for arg in args.rest]
        given.append(("arguments after --", rest if args.kernel else list(_command(rest))))
    for option, value in given:
        part, name = SPEC_OPTIONS.get(option, "search.args" if args.kernel else "search.command"
                                      ).split(".")
        if part == "pipeline" and not has_pipeline:
            continue
        if json.loads(json.dumps(value)) != started[part][name]:
            raise UserError(f"campaign {args.resume} started with {option} "
                            f"{_shown(started[part][name])}; the resume gives {_shown(value)}: "
                            f"leave {option} out to go on as it started, or start a new "
                            f"campaign")
    if not has_pipeline:
        pipeline = {SPEC_OPTIONS[o].split(".")[1]: v for o, v in given
                    if SPEC_OPTIONS.get(o, "").startswith("pipeline.")}
        spec = replace(spec, pipeline=PipelineOptions(**pipeline))
    return spec


def _command(words: Sequence[str]) -> tuple[str, ...]:
    """A program's command as a campaign stores it: the program found from here (a resume
    started elsewhere runs the same one), its arguments as given."""
    return (absolute_program(words[0]), *words[1:])


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


def _rate(value: float | None) -> str:
    return f"{format_mbs(value):>9} MB/s" if value is not None else "        - MB/s"


def _print_progress(progress: Progress | Screening, objective: Objective = "io") -> None:
    """A generation's line; under ``objective`` wall, the measured rates are over the wall time,
    the model's over the I/O time (the region it simulates), and the line says so."""
    if isinstance(progress, Screening):
        pace = f"{progress.per_second:.0f}/s" if progress.per_second else "-/s"
        print(f"gen {progress.generation:3d}  screening {progress.step}/{progress.steps} in "
              f"simulation: {progress.simulations} simulated ({pace})  "
              f"best predicted {_rate(progress.best_predicted)}", file=sys.stderr, flush=True)
        return
    error = f"{100 * progress.model_error:5.1f}%" if progress.model_error is not None else "    -"
    regions = (" (wall)", " (I/O)") if objective == "wall" else ("", "")
    print(f"gen {progress.generation:3d}  runs {progress.runs_used:3d}/{progress.budget:<3d}  "
          f"best measured{regions[0]} {_rate(progress.best_measured)}  "
          f"best predicted{regions[1]} {_rate(progress.best_predicted)}  model error {error}"
          + _model_warning(progress.model_error), file=sys.stderr, flush=True)
    if progress.state is not None:
        print(f"         {progress.state.text()}", file=sys.stderr, flush=True)


#: a model error beyond this (predicted / measured off by more than 2x) is flagged
MODEL_ERROR_FLAG = 1.0


#: what a tune the user stopped (Ctrl-C) lacks, by the step it was stopped in
STOPPED = {
    "search": "stopped by the user in the search: the tuned config is its best single run so "
              "far, not confirmed; default and tuned not compared",
    "confirmation": "stopped by the user in the confirmation: the tuned config is the search's "
                    "best single run, not confirmed; default and tuned not compared",
    "summary": "stopped by the user in the summary runs: default and tuned not compared"}


def _model_warning(error: float | None) -> str:
    """What a model error over 100 % means for the screening."""
    if error is None or error <= MODEL_ERROR_FLAG:
        return ""
    return (f"  <- the model is off by more than {1 + MODEL_ERROR_FLAG:.0f}x here: its ranking "
            "of candidates is a weak guide until the refit on these runs catches up")


def _report(result: TuneResult, effect: SettingsEffect, output: Path | None,
            as_json: bool) -> None:
    """The outcome; ``output`` is where the tuned config was written, None when it is not
    offered (its interval says it is not faster than the default, or none of its settings
    took effect)."""
    campaign, confirmed, summary = result.campaign, result.confirmed, result.summary
    rates: dict[str, Summary | None] = {label: m.rate for label, m in summary.items()}
    tuned, default = rates.get("tuned"), rates.get("default")
    speedup = tuned.median / default.median if tuned and default else None
    best = confirmed[0]
    measured = measured_io_rates(summary)
    objective = campaign.spec.objective
    if as_json:
        print(json.dumps({
            "campaign": campaign.id, "runs_used": len(campaign.measured),
            "search_ended": ending(campaign, result.stopped == "search"),
            "stopped_by_user": result.stopped,
            "best_measured_mbs": best.rate, "best_measured_runs": len(best.rates),
            "confirmed": [{"candidate": c.candidate, "search_mbs": c.search_rate,
                           "median_mbs": c.rate, "runs": len(c.rates),
                           "raced_out": c.raced_out} for c in confirmed],
            "objective": objective,
            "io_and_wall": {label: io_and_wall(m) for label, m in summary.items()},
            "config_file": str(output) if output else None,
            "keep_default": output is None, "tuned_is_default": not best.config,
            "summary": {k: (v.as_dict() if v else None) for k, v in rates.items()},
            "speedup": speedup, "speedup_interval": _as_dict(summary_speedup(summary)),
            "tuned_over_yours": _as_dict(summary_speedup(summary, "yours", "tuned")),
            "explanation": _explanation_json(result.explanation, measured),
            "tuned_settings": effect_json(effect)},
            indent=2))
        return
    if len(confirmed) > 1:
        print("confirmation, best median first (candidates numbered as in the lines above):")
        for candidate in confirmed:
            label = " (the default config)" if not candidate.config else ""
            search = (f"search run {format_mbs(candidate.search_rate)} MB/s"
                      if candidate.search_rate else "not run in the search")
            chosen = "  <- tuned" if candidate is best else ""
            out = ("; its runs lay below the leader's: out of the race" if candidate.raced_out
                   else "")
            print(f"  candidate {candidate.candidate}: median {format_mbs(candidate.rate or 0)} "
                  f"MB/s of {len(candidate.rates)} fresh runs ({search}{out}){label}{chosen}")
    written = (f"tuned config written to {output}" if output else
               "no config is offered: keep the default (below)")
    print(f"objective: {OBJECTIVE_TEXT[objective]}")
    print(f"the search ended: {ending(campaign, result.stopped == 'search')}")
    if result.stopped is not None:
        print(STOPPED[result.stopped])
    print(f"best measured: {format_mbs(best.rate or 0)} MB/s (median of {len(best.rates)} runs) "
          f"after {len(campaign.measured)} configs run for real; {written}")
    for label, rate in rates.items():
        print(f"  {label:8s} {rate.format('MB/s') if rate else 'every run failed'}")
    if summary:
        print("  I/O and wall time side by side (medians of the same runs):")
        print("\n".join(f"  {label:8s} {io_and_wall_text(io_and_wall(m))}"
                        for label, m in summary.items()))
    interval = summary_speedup(summary)
    for line in speedup_lines(speedup, interval, tuned_is_default=not best.config):
        print(f"  {line}")
    over_yours = summary_speedup(summary, "yours", "tuned")
    if over_yours is not None:
        print(f"  tuned over yours: {over_yours.text('yours', 'tuned')}")
    for setting in effect.not_effective:
        print(f"  not effective here: {setting.text()}")
    if result.explanation is not None:
        print(_explanation_text(result.explanation, measured,
                                campaign.spec.platform))
    if output is not None:
        print(tuned_config_text(output))
        return
    why = ("the best config found is the default itself" if not best.config else
           "none of its settings took effect here (above): the difference measured is not "
           "theirs" if effect.none_took_effect else
           f"the best candidate is not faster than it in the interleaved summary "
           f"({interval.text() if interval else 'no interval'})")
    print(f"\nkeep the default config: {why}; its settings, for the record (campaign "
          f"{campaign.id} in the store):\n  "
          + dump_config(result.tuned).strip().replace("\n", "\n  "))


def speedup_lines(speedup: float | None, interval: Speedup | None, *,
                  tuned_is_default: bool) -> list[str]:
    """The summary's tuned / default lines. When the best config found is the default itself,
    both sides ran the same config: their ratio is the session's run-to-run spread, not a
    speedup, and no interval is given for it."""
    if speedup is None:
        return []
    if tuned_is_default:
        return [f"tuned / default: the same config (the default was the best found), so no "
                f"speedup; the two sides' medians differ by {speedup:.2f}x, this session's "
                "run-to-run spread"]
    lines = [f"tuned / default: {speedup:.2f}x (medians, same session, interleaved)"]
    if interval is not None:
        more = f"; use --summary-repeat {MIN_PAIRS_95}" if interval.low is None else ""
        lines.append(f"{interval.text()}{more}")
    return lines


def io_and_wall(measurement: Measurement) -> dict[str, float | None]:
    """A measurement's medians: its I/O rate and time, its computation, its wall time."""
    figures = {"io_rate_mbs": measurement.io_rate, "io_s": measurement.time,
               "compute_s": measurement.phase("compute_s"), "wall_s": measurement.phase("wall_s")}
    return {name: summary.median if summary else None for name, summary in figures.items()}


def io_and_wall_text(figures: dict[str, float | None]) -> str:
    def seconds(name: str) -> str:
        value = figures[name]
        return f"{value:.3f} s" if value is not None else "-"

    rate = figures["io_rate_mbs"]
    return (f"I/O rate {format_mbs(rate) if rate is not None else '-'} MB/s, "
            f"I/O {seconds('io_s')}, compute {seconds('compute_s')}, wall {seconds('wall_s')}")


def _explanation_text(explanation: Explanation, measured: dict[str, float | None],
                      platform: str) -> str:
    """The measured rates against the model's ceilings, why each config runs as it does, and
    the simulated breakdown side by side."""
    shares = explanation.fractions(measured)
    of_ceiling = ", ".join(
        f"{label} {percent(share['of_ceiling'])} of its {rate_text(share['ceiling_mbs'])}"
        + (" (above it: the model's ceiling is that much too low for this machine)"
           if (share["of_ceiling"] or 0) > 1 else "")
        for label, share in shares.items() if share["measured_mbs"] is not None)
    best = explanation.best_ceiling_mbs
    of_best = ", ".join(f"{label} {percent(share['of_best_ceiling'])}"
                        for label, share in shares.items() if share["measured_mbs"] is not None)
    lines = []
    calibrated = explanation.calibration_text()
    model = (f"{platform} model's ceilings as this campaign calibrated it ({calibrated})"
             if calibrated else f"{platform} model's ceilings")
    if of_ceiling:
        lines.append(f"  measured against the {model}: {of_ceiling}"
                     + (f"; of the best ceiling any config of the space reaches "
                        f"({rate_text(best)}): {of_best}" if best else ""))
    lines.append(f"  why (simulated): "
                 f"{reasons(explanation.runs, {'tuned': explanation.tuned_settings})}")
    lines.append("  simulated breakdown:")
    lines.append(breakdown_table(explanation.runs))
    return "\n".join(lines)


def _explanation_json(explanation: Explanation | None, measured: dict[str, float | None]
                      ) -> dict[str, Any] | None:
    if explanation is None:
        return None
    return {"runs": {label: {"rate_mbs": r.rate_mbs, **mechanism_json(r)}
                     for label, r in explanation.runs.items()},
            "measured": explanation.fractions(measured),
            "best_ceiling_mbs": explanation.best_ceiling_mbs,
            "breakdown": breakdown_rows(explanation.runs)}


def tuned_config_text(output: Path) -> str:
    """The tuned config as written to ``output``, and how to apply it."""
    text = output.read_text().strip()
    note = "  # no settings: nothing searched beat the default config" if text == "{}" else ""
    shown = "  " + text.replace("\n", "\n  ") + note
    return (f"\ntuned config ({output}; apply it to any run with `iotwin run ... --config "
            f"{output}`):\n{shown}")


def _as_dict(speedup: Speedup | None) -> dict[str, Any] | None:
    return speedup.as_dict() if speedup else None
