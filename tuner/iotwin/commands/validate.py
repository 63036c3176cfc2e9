"""`iotwin validate local | paper | traffic | scale`: how good the simulator's predictions are.

``local``: a stratified sample of the local space run on this machine, each config predicted
by the `local` model calibrated under k-fold cross-validation (validation/local/suite.yaml);
resumable (re-running the same suite reuses every stored repetition).
``paper``: the platform models fitted to the published measurements, with leave-one-out.
``traffic``: POSIX bytes, calls and write sizes against the Darshan logs darshan ships.
``scale``: every platform model from 64 ranks to its full size, and what simulating costs.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

from iotwin.commands._options import (
    add_cost_limit_arguments,
    add_output_folder_arguments,
    add_sim_cluster_argument,
    add_store_argument,
    add_workdir_argument,
    cost_limits,
    output_folder,
)
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.progress import TimedProgress
from iotwin.report.writing import write_report
from iotwin.store.database import Store, resolve_path
from iotwin.validation import traffic
from iotwin.validation.local import default_suite_path, load_suite, run_local_suite
from iotwin.validation.paper import check as paper_check
from iotwin.validation.paper import report as paper_report
from iotwin.validation.paper.pipeline import run_paper_validation
from iotwin.validation.paper.settings import paper_dir
from iotwin.validation.scale import report as scale_report
from iotwin.validation.scale.audit import run_audit, scale_dir
from iotwin.validation.suite_cost import suite_runs_cost


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("validate", help="check predictions against measurements",
                                   description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    suites = parser.add_subparsers(title="suites", metavar="SUITE")
    local = suites.add_parser("local", help="real runs on this machine vs the local model")
    local.add_argument("--suite", type=Path, metavar="YAML",
                       help="suite settings (default validation/local/suite.yaml)")
    add_output_folder_arguments(local, "the report page and CSV too")
    local.add_argument("--json", action="store_true", help="print the figures as JSON")
    add_workdir_argument(local)
    add_store_argument(local)
    add_sim_cluster_argument(local)
    add_cost_limit_arguments(local)
    local.set_defaults(func=_local)
    paper = suites.add_parser("paper", help="platform models vs published measurements")
    _add_paper_arguments(paper)
    add_sim_cluster_argument(paper)
    paper.set_defaults(func=_paper)
    traffic = suites.add_parser(
        "traffic", help="bytes and calls at POSIX: simulations vs the Darshan logs darshan ships",
        description="Rebuild each log's workload, simulate it, and set iosim's POSIX-level "
        "bytes, calls and write sizes beside the log's counters (validation/traffic/logs.yaml).")
    traffic.add_argument("--write", action="store_true",
                         help="refresh validation/traffic/README.md's tables and results.json")
    add_cost_limit_arguments(traffic)
    traffic.set_defaults(func=_traffic)
    scale = suites.add_parser(
        "scale", help="every platform model from 64 ranks to its full size, and the cost",
        description="Simulate the three kernels (default and tuned) on every platform of "
        "validation/scale/audit.yaml from 64 ranks to the machine's full size: rate, time per "
        "phase, the binding mechanism, the knees where it changes, and what each simulation "
        "costs (wall s, peak memory). Progress on stderr.")
    scale.add_argument("--platforms", help="comma-separated subset of the audit's platforms")
    scale.add_argument("--write", action="store_true",
                       help="write validation/scale/results.json, figures and README tables "
                            "(the platforms not run keep their recorded points)")
    add_cost_limit_arguments(scale)
    scale.set_defaults(func=_scale)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def _local(args: argparse.Namespace) -> int:
    spec = args.suite or default_suite_path()
    suite = load_suite(spec)
    suite_runs_cost(suite, str(spec), cost_limits(args))
    into = output_folder(args.output, args.force) if args.output else None
    with Store(resolve_path(args.store)) as store:
        result = run_local_suite(store, suite, workdir=Path(args.workdir))
        if into is not None:
            for path in write_report(store, result.campaign_id, into):
                print(f"wrote {path}")
    figures = result.metrics.as_dict() if result.metrics else None
    if args.json:
        print(json.dumps({"campaign": result.campaign_id, "metrics": figures,
                          "noise": result.noise.as_dict() if result.noise else None,
                          "residuals": [asdict(r) for r in result.residuals],
                          "uncalibrated": (result.uncalibrated.as_dict()
                                           if result.uncalibrated else None),
                          "confirmation": (result.confirmation.as_dict()
                                           if result.confirmation else None),
                          "notes": result.notes}, indent=2))
        return 0
    for note in result.notes:
        print(f"note: {note}")
    if result.metrics is None:
        raise UserError(f"validation campaign {result.campaign_id}: no metrics: "
                        + "; ".join(result.notes))
    m = result.metrics
    print(f"validation campaign {result.campaign_id}: {m.n} configs")
    print(f"  Spearman rank correlation   {m.spearman:.3f}   (target >= 0.8)")
    print(f"  median |predicted/measured-1| {100 * m.median_error:.1f}%")
    print(f"  90th percentile             {100 * m.p90_error:.1f}%")
    print(f"  measured best: predicted rank {m.best_predicted_rank} "
          f"({'in' if m.best_in_top5 else 'NOT in'} the predicted top 5)")
    if result.uncalibrated:
        u = result.uncalibrated
        print(f"  uncalibrated model: Spearman {u.spearman:.3f}, median error "
              f"{100 * u.median_error:.1f}%, measured best at predicted rank "
              f"{u.best_predicted_rank}")
    if result.noise:
        n = result.noise
        print(f"noise floor ({n.configs} configs repeated): repetitions spread "
              f"{100 * n.median_spread:.1f}% (median), {100 * n.p90_spread:.1f}% (p90); "
              f"Spearman of one repetition against another {n.repeat_spearman:.3f}; "
              f"config medians span x{n.between_configs:.2f} (p90/p10)")
    for line in result.confirmation.summary() if result.confirmation else []:
        print(line)
    print("model's median log(predicted/measured) by setting, largest first:")
    for r in result.residuals[:8]:
        print(f"  {r.median_log_ratio:+.2f}  {r.setting}  ({r.configs} configs)")
    return 0


def _add_paper_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``iotwin validate paper``."""
    parser.add_argument("--platforms", help="comma-separated model names (default: all)")
    parser.add_argument("--kernels", help="comma-separated kernels as the CSV names them")
    parser.add_argument("--no-loo", action="store_true", help="skip the leave-one-out refits")
    parser.add_argument("--jobs", type=int, default=1, help="leave-one-out refits at once")
    parser.add_argument("--partial", type=Path, metavar="DIR",
                        help="save each platform's part in DIR, reuse the parts found there")
    parser.add_argument("--write", action="store_true",
                        help="write results.json, calibrations.json and README.md's tables "
                             "in validation/paper/")
    parser.add_argument("--record", action="store_true",
                        help="also set the fitted values that are not on a bound in "
                             "sim-models/platforms/*.yaml")
    parser.add_argument("--check", action="store_true",
                        help="no fit: re-evaluate the recorded fits (calibrations.json) on "
                             "the selected rows and list every prior or fitted rate, config, "
                             "fit loss and spread that differs from results.json (exit 1 if "
                             "any); with --write, the record takes the new figures, its "
                             "leave-one-out and sensitivity scan as recorded")
    parser.add_argument("--tolerance", type=float, default=paper_check.TOLERANCE,
                        metavar="FRACTION",
                        help="--check: a figure differs when it moved by more than this "
                             "fraction (default %(default)g: floating-point order, not a "
                             "mechanism)")
    add_cost_limit_arguments(parser)


def _traffic(args: argparse.Namespace) -> int:
    found = traffic.run_traffic(progress=TimedProgress(), limits=cost_limits(args))
    if args.write:
        traffic.write_outputs(found, traffic.traffic_dir())
    print(traffic.markdown(found))
    return 0


def _scale(args: argparse.Namespace) -> int:
    points = run_audit(platforms=_listed(args.platforms),
                       progress=TimedProgress(), limits=cost_limits(args))
    if args.write:
        points = scale_report.write_outputs(points, scale_dir())
    print(scale_report.markdown(points))
    return 0


def _paper(args: argparse.Namespace) -> int:
    """Run as the options say; progress on stderr, the tables on stdout."""
    if args.check:
        return _paper_check(args)
    progress = TimedProgress()
    result = run_paper_validation(
        platforms=_listed(args.platforms),
        kernels=_listed(args.kernels), loo=not args.no_loo,
        workers=args.jobs, partial=args.partial, progress=progress, limits=cost_limits(args))
    if args.write:
        paper_report.write_outputs(result, paper_dir())
    if args.record:
        for fit in result.fits:
            inside = {name: value for name, value in fit.parameters.items()
                      if name not in result.on_bound[fit.model]}
            paper_report.record_fitted(paths.platforms_dir() / f"{fit.model}.yaml",
                          result.calibration_ids[fit.model], inside)
    print(paper_report.markdown(result))
    progress("done")
    return 0


def _paper_check(args: argparse.Namespace) -> int:
    """``--check``: the record re-evaluated at its fits; what differs on stdout."""
    if args.record:
        raise UserError("--check refits nothing, so it has no fit to --record")
    progress = TimedProgress()
    recorded, calibrations = paper_check.read_record(paper_dir())
    found = paper_check.check_record(
        recorded, calibrations,
        platforms=_listed(args.platforms),
        kernels=_listed(args.kernels),
        partial=args.partial, progress=progress, tolerance=args.tolerance)
    if args.write:
        paper_report.write_outputs(found.result, paper_dir())
    print("\n".join(paper_check.summary(found)))
    progress("done")
    return 1 if found.differences else 0


def _listed(text: str | None) -> list[str] | None:
    """A comma-separated option as its names; None (every one) when not given."""
    return text.split(",") if text else None
