"""`iotwin calibrate`: fit a platform model to the runs measured on it, cross-validated."""

from __future__ import annotations

import argparse
import json

from iotwin.errors import UserError
from iotwin.store import Store, add_store_argument, resolve_path


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
    parser.add_argument("--json", action="store_true", help="print as JSON")
    add_store_argument(parser)
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    # the simulator's modules load only when the command runs, not with every `iotwin` call
    from iotwin.calibrate import cross_validate, observations_from_store
    from iotwin.platforms import load_platform

    platform = load_platform(args.platform)
    with Store(resolve_path(args.store)) as store:
        observations, notes = observations_from_store(store, platform.name, args.campaign)
        if len(observations) < 2:
            raise UserError(f"platform {platform.name}: {len(observations)} usable measured "
                            "runs in the store; calibration needs at least 2")
        parameters = args.parameters.split(",") if args.parameters else None
        calibration = cross_validate(platform, observations, folds=args.folds,
                                     parameters=parameters)
        calibration_id = store.add_calibration(
            platform.name, calibration.parameters, fit_error=calibration.fit_error,
            heldout_error=calibration.heldout_error, campaign_id=args.campaign,
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
          f"configs: fit error {100 * calibration.fit_error:.1f}%, held-out error "
          f"{100 * (calibration.heldout_error or 0):.1f}% ({calibration.details['folds']} folds)")
    for name, value in sorted(calibration.parameters.items()):
        print(f"  {name:40s} {before[name][0]:12.4g} -> {value:12.4g}")
    return 0
