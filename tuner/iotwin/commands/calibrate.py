"""`iotwin calibrate`: fit a platform model to the runs measured on it, cross-validated.

With ``--design NAME`` it first runs a calibration design (``iotwin/data/calibration-NAME.yaml``
or a path: probes that each excite one mechanism) through an executor, stores every run in a
new campaign, and fits the design's parameters to those runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from iotwin.commands._options import (
    add_sim_cluster_argument,
    add_store_argument,
    add_workdir_argument,
)
from iotwin.core.errors import UserError
from iotwin.executors import make_executor
from iotwin.model.calibration import cross_validate
from iotwin.model.platforms import load_platform
from iotwin.observations.design import load_design, measure_design
from iotwin.observations.stored import observations_from_store
from iotwin.store.database import Store, resolve_path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "calibrate", help="fit a platform model to measured runs",
        description="Fit the free parameters of a platform model (bounds from its YAML) to "
        "every successful measured run on that platform in the store (or of one campaign); "
        "robust loss on log rate; k-fold held-out error. The calibration is stored.")
    parser.add_argument("--platform", required=True, help="platform model name")
    parser.add_argument("--campaign", type=int, metavar="ID", help="only this campaign's runs")
    parser.add_argument("--parameters", metavar="A,B", help="fit only these free parameters")
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    parser.add_argument("--design", metavar="NAME|YAML",
                        help="run this calibration design first and fit to its runs only")
    parser.add_argument("--executor", choices=("twin", "local"), default="twin",
                        help="where a design's probes run (default twin: the platform's truth)")
    parser.add_argument("--truth-seed", type=int, default=0,
                        help="twin executor: which perturbed truth of the platform runs")
    add_workdir_argument(parser, note=" (local executor)")
    parser.add_argument("--json", action="store_true", help="print as JSON")
    add_sim_cluster_argument(parser)
    add_store_argument(parser)
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    # the simulator's modules load only when the command runs, not with every `iotwin` call
    platform = load_platform(args.platform)
    parameters = args.parameters.split(",") if args.parameters else None
    with Store(resolve_path(args.store)) as store:
        campaign_id = args.campaign
        if args.design:
            campaign_id, observations, notes, design_parameters = _run_design(
                store, platform, args)
            parameters = parameters or design_parameters
        else:
            observations, notes = observations_from_store(store, platform.name, campaign_id)
        if len(observations) < 2:
            raise UserError(f"platform {platform.name}: {len(observations)} usable measured "
                            "runs in the store; calibration needs at least 2")
        calibration = cross_validate(platform, observations,
                                     folds=min(args.folds, len(observations)),
                                     parameters=parameters)
        calibration_id = store.add_calibration(
            platform.name, calibration.parameters, fit_error=calibration.fit_error,
            heldout_error=calibration.heldout_error, campaign_id=campaign_id,
            details=calibration.details)
    before = platform.free_parameters()
    if args.json:
        print(json.dumps({"id": calibration_id, "platform": platform.name,
                          "parameters": calibration.parameters,
                          "before": {k: before[k][0] for k in calibration.parameters},
                          "fit_error": calibration.fit_error,
                          "heldout_error": calibration.heldout_error, "notes": notes},
                         indent=2))
        return 0
    for note in notes:
        print(f"note: {note}")
    print(f"calibration {calibration_id} of {platform.name} on {len(observations)} measured "
          f"configs: fit error {100 * (calibration.fit_error or 0):.1f}%, held-out error "
          f"{100 * (calibration.heldout_error or 0):.1f}% ({calibration.details['folds']} folds)")
    for name, value in sorted(calibration.parameters.items()):
        print(f"  {name:40s} {before[name][0]:12.4g} -> {value:12.4g}")
    return 0


def _run_design(store: Store, platform: Any, args: argparse.Namespace
                ) -> tuple[int, list[Any], list[str], list[str]]:
    """Run the design's probes into a new campaign: its id, observations, notes, parameters."""

    design = load_design(args.design)
    campaign_id = store.create_campaign(
        f"calibration design {design.name} on {platform.name}", kind="calibrate",
        spec={"design": design.name, "platform": platform.name, "executor": args.executor,
              "truth_seed": args.truth_seed})
    print(f"campaign {campaign_id}: design {design.name}, {len(design.probes)} probes x "
          f"{design.repetitions} runs on {args.executor}", file=sys.stderr, flush=True)
    executor = make_executor(args.executor, platform.name, truth_seed=args.truth_seed,
                             workdir=args.workdir)
    observations = measure_design(design, platform, executor, store, campaign_id)
    missing = len(design.probes) - len(observations)
    notes = [f"{missing} probes had no successful run"] if missing else []
    truth = getattr(executor, "truth", None)
    if truth is not None:  # a twin: what the fit should find
        values = truth.free_parameters()
        notes.append("the twin's truth: " + ", ".join(
            f"{name} {values[name][0]:.4g}" for name in design.parameters))
    return campaign_id, observations, notes, design.parameters
