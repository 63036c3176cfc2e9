"""`iotwin calibrate`: fit a platform model to the runs measured on it, cross-validated.

With ``--design NAME`` it first runs a calibration design (``iotwin/data/calibration-NAME.yaml``
or a path: probes that each excite one mechanism) through an executor, stores every run in a
new campaign, and fits the design's parameters to those runs.

With ``--measurements CSV`` it fits to a site's published measurements instead (block-3-D
shared-file writes, iotwin.observations.published), and also reports each scale held out in
turn, fitted to the smaller scales only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from iotwin.commands._options import (
    add_cost_limit_arguments,
    add_output_file_arguments,
    add_sim_cluster_argument,
    add_store_argument,
    add_workdir_argument,
    cost_limits,
    new_output,
)
from iotwin.core.cost import Driver, announce
from iotwin.core.errors import UserError
from iotwin.core.paths import data_dir
from iotwin.executors import make_executor
from iotwin.model.calibration import cross_validate, fit_evaluations
from iotwin.model.family import FAMILY_CONSTANTS, FAMILY_FILE, family_summary, render_family
from iotwin.model.io500_description import load_records
from iotwin.model.platform_sheet import sheet_defaults
from iotwin.model.platforms import Platform, load_platform
from iotwin.model.sim_cost import fit_cost
from iotwin.observations.design import Design, design_cost, load_design, measure_design
from iotwin.observations.family_cost import FamilyRun, family_cost, family_run_bound
from iotwin.observations.io500 import case_count, cases_of, family_calibration, family_cases
from iotwin.observations.published import (
    TableCalibration,
    calibrate_to_table,
    read_cases,
    table_calibration_cost,
)
from iotwin.observations.stored import observations_from_store
from iotwin.store.database import Store, resolve_path
from iotwin.workloads.replication.output import write_atomically


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "calibrate", help="fit a platform model to measured runs",
        description="Fit the free parameters of a platform model (bounds from its YAML) to "
        "every successful measured run on that platform in the store (or of one campaign); "
        "robust loss on log rate; k-fold held-out error. The calibration is stored.")
    parser.add_argument("--platform", help="platform model name (all but --family)")
    parser.add_argument("--campaign", type=int, metavar="ID", help="only this campaign's runs")
    parser.add_argument("--parameters", metavar="A,B", help="fit only these free parameters")
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    parser.add_argument("--design", metavar="NAME|YAML",
                        help="run this calibration design first and fit to its runs only")
    parser.add_argument("--measurements", type=Path, metavar="CSV",
                        help="fit to a site's published rows instead (block-3-D shared-file "
                             "write rates, the columns of "
                             "validation/data/benchio-calibration.csv); the rows of this "
                             "platform's machine are used")
    parser.add_argument("--rate", choices=("max", "mean"), default="max",
                        help="--measurements: each row's best repetition (max, the default: "
                             "the run least disturbed by other jobs) or their mean")
    parser.add_argument("--executor", choices=("twin", "local"), default="twin",
                        help="where a design's probes run (default twin: the platform's truth)")
    parser.add_argument("--truth-seed", type=int, default=0,
                        help="twin executor: which perturbed truth of the platform runs")
    add_workdir_argument(parser, note=" (local executor)")
    parser.add_argument("--json", action="store_true", help="print as JSON")
    family = parser.add_argument_group(
        "family calibration", "--family --io500 TRAIN.json: fit the constants no system "
        "description gives (media rates and request costs, client and lock costs) over many "
        "machines at once, each model built from its description, and report each system "
        "held out in turn; models built from descriptions then start from them")
    family.add_argument("--family", action="store_true", help="fit across machines")
    family.add_argument("--io500", type=Path, metavar="TRAIN.json",
                        help="IO500 submissions with their descriptions and measured rates")
    family.add_argument("--segments", type=int, metavar="N", help="simulate each phase at N "
                        "segments a process (default: 30 s of writing at the model's peak)")
    family.add_argument("--evaluations", type=int, default=40, metavar="N",
                        help="most evaluations of the fit over all machines (default 40; a "
                        "held-out refit gets a third of them)")
    add_output_file_arguments(family, "FAMILY.yaml", "the package's data/family-io500.yaml, "
                              "which `platform new --io500` reads", type=Path)
    add_sim_cluster_argument(parser)
    add_store_argument(parser)
    add_cost_limit_arguments(parser)
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    if args.family:
        return _family(args)
    if not args.platform:
        raise UserError("--platform NAME is required (or --family --io500 TRAIN.json)")
    platform = load_platform(args.platform)
    parameters = args.parameters.split(",") if args.parameters else None
    if args.measurements:
        return _from_table(platform, parameters, args)
    design = _affordable_design(platform, parameters, args) if args.design else None
    with Store(resolve_path(args.store)) as store:
        campaign_id = args.campaign
        if design is not None:
            campaign_id, observations, notes, design_parameters = _run_design(
                store, platform, design, args)
            parameters = parameters or design_parameters
        else:
            observations, notes = observations_from_store(store, platform.name, campaign_id)
        if len(observations) < 2:
            raise UserError(f"platform {platform.name}: {len(observations)} usable measured "
                            "runs in the store; calibration needs at least 2")
        if design is None:
            _check_fit_cost(platform, observations, parameters, args)
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


def _check_fit_cost(platform: Platform, observations: list[Any], parameters: list[str] | None,
                    args: argparse.Namespace) -> None:
    """The k-fold fits and the final one of ``cross_validate``, estimated before they start."""
    limits = cost_limits(args)
    source = Driver("--campaign" if args.campaign else "--store",
                    f"{len(observations)} measured configs")
    fits = min(args.folds, len(observations)) + 1
    fitted = len(parameters) if parameters else len(platform.free_parameters())
    announce("calibrate", limits.check(fit_cost(
        platform, observations, source, evaluations=fit_evaluations(fits, fitted),
        memory_limit=limits.memory_bytes)))


def _affordable_design(platform: Platform, parameters: list[str] | None,
                       args: argparse.Namespace) -> Design:
    """The design of --design, its runs and fit estimated before the store is opened."""
    design = load_design(args.design)
    limits = cost_limits(args)
    fitted = len(parameters or design.parameters)
    announce("calibrate", limits.check(design_cost(
        design, platform, f"--design {args.design}", simulated=args.executor == "twin",
        fit_evaluations=fit_evaluations(args.folds + 1, fitted),
        memory_limit=limits.memory_bytes)))
    return design


def _run_design(store: Store, platform: Any, design: Design, args: argparse.Namespace
                ) -> tuple[int, list[Any], list[str], list[str]]:
    """Run the design's probes into a new campaign: its id, observations, notes, parameters."""
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


def _progress(line: str) -> None:
    print(f"iotwin: {line}", file=sys.stderr, flush=True)


def _from_table(platform: Platform, parameters: list[str] | None,
                args: argparse.Namespace) -> int:
    compute = platform.data["compute"]
    cases = read_cases(args.measurements, platform.name, args.rate,
                       cores=int(compute["nodes"]) * int(compute["cores_per_node"]))
    limits = cost_limits(args)
    estimate = limits.check(table_calibration_cost(
        platform, cases, args.measurements, parameters=parameters, folds=args.folds,
        memory_limit=limits.memory_bytes))
    print(f"{platform.name}: {len(cases)} published cases in {args.measurements} "
          f"({args.rate} rate), {estimate.text()}; fitting...", file=sys.stderr, flush=True)
    found = calibrate_to_table(platform, cases, parameters=parameters, folds=args.folds,
                               progress=_progress)
    with Store(resolve_path(args.store)) as store:
        campaign_id = store.create_campaign(
            f"calibration of {platform.name} to {args.measurements.name}", kind="calibrate",
            spec={"platform": platform.name, "measurements": str(args.measurements),
                  "rate": args.rate})
        calibration_id = store.add_calibration(
            platform.name, found.fit.parameters, fit_error=found.fit.fit_error,
            heldout_error=found.fit.heldout_error, campaign_id=campaign_id,
            details={**found.fit.details, "measurements": str(args.measurements),
                     "rate": args.rate, "cases": len(cases), "band_error": found.band_error,
                     "scales": list(found.scales),
                     "scale_out": {str(h.ranks): h.median_error for h in found.scale_out}})
    if args.json:
        print(json.dumps(_table_json(calibration_id, platform, found), indent=2))
        return 0
    before = platform.free_parameters()
    print(f"calibration {calibration_id} of {platform.name} on {len(cases)} published cases: "
          f"fit error {100 * (found.fit.fit_error or 0):.1f}%, held-out error "
          f"{100 * (found.fit.heldout_error or 0):.1f}% ({found.fit.details['folds']} folds)")
    for name in found.parameters:
        print(f"  {name:40s} {before[name][0]:12.4g} -> {found.fit.parameters[name]:12.4g}")
    print("each scale held out, fitted to the smaller ones (median |predicted/measured - 1|):")
    for held in found.scale_out:
        print(f"  {held.ranks:6d} ranks, fitted on {','.join(map(str, held.fitted_on))}: "
              f"{100 * held.median_error:.0f}% over {len(held.errors)} cases")
    print(f"{'case':34s} {'measured':>10s} {'before':>10s} {'after':>10s}  MB/s")
    for case, old, new in zip(found.cases, found.before, found.after, strict=True):
        print(f"  {case.label:32s} {case.rate_mbs:10.0f} {old or 0:10.0f} {new or 0:10.0f}")
    return 0


def _table_json(calibration_id: int, platform: Platform, found: TableCalibration
                ) -> dict[str, Any]:
    return {"id": calibration_id, "platform": platform.name, "parameters": found.fit.parameters,
            "fit_error": found.fit.fit_error, "heldout_error": found.fit.heldout_error,
            "scale_out": [{"ranks": h.ranks, "fitted_on": list(h.fitted_on),
                           "median_error": h.median_error, "errors": list(h.errors)}
                          for h in found.scale_out],
            "cases": [{"case": c.label, "measured_mbs": c.rate_mbs, "before_mbs": old,
                       "after_mbs": new}
                      for c, old, new in zip(found.cases, found.before, found.after,
                                             strict=True)]}


def _family(args: argparse.Namespace) -> int:
    if not args.io500:
        raise UserError("--family needs the machines' measurements: --io500 TRAIN.json")
    output = new_output(args.output, args.force) if args.output else data_dir() / FAMILY_FILE
    records = load_records(args.io500)
    run = FamilyRun(*case_count(records), len(FAMILY_CONSTANTS), args.evaluations,
                    max(4, args.evaluations // 3))
    limits = cost_limits(args)
    source = f"--io500 {args.io500}"
    family_run_bound(run, source, limits)
    cases = family_cases(cases_of(records), segments=args.segments)
    announce("calibrate --family", family_cost(run, cases, sheet_defaults(), source, limits))
    document = family_calibration(
        cases, args.io500, max_evaluations=run.evaluations,
        refit_evaluations=run.refit_evaluations,
        progress=_progress)
    write_atomically(output, render_family(document))
    if args.json:
        print(json.dumps(document, indent=2))
        return 0
    print(family_summary(document))
    print(f"written to {output}")
    return 0
