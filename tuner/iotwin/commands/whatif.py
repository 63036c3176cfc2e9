"""`iotwin whatif`: predicted default and tuned rates of a workload on several platforms.

Variants: `--vary filesystem.targets=24,96` (or `ost_count=24,96`), repeatable (the variants
are every combination). Tuning: `--tune` searches a tuner space in simulation (default
spaces/whatif.yaml), exhaustively if it fits `--budget` simulations, else with the genetic
search; a config whose simulation iosim estimates beyond about 20 s (a huge job with
collective buffering off: every piece walked) counts as a failed point of the search.
Rates are MB/s (10^6 bytes/s) of the workload's I/O time, compute excluded.

Every rate comes with its ceiling (the most that config could write under the workload's
placement: the least capacity of what its data crossed) and what binds it, and the best ceiling
any layout reaches from the placement (sim-models/IOSIM.md "Ceiling and binding mechanism");
`--config` adds your own config beside the default and tuned ones, checked against each
platform's site rules. Every rate comes with its band: the 90th percentile of the platform
model's held-out errors in the paper validation (validation/paper: leave-one-out and
leave-one-scale-out), as [rate / (1 + e), rate x (1 + e)]. A platform calibrated to a site's
published measurements (`iotwin calibrate --measurements`, found in the store) is simulated
with the calibrated values, and its band is that calibration's held-out error
(`--uncalibrated`: the platform file as it is). The speedup's band is every tuned / default
the two bands allow: [x / (1 + e)^2, x (1 + e)^2] (both rates at opposite ends of their bands:
conservative, since the model's errors on two configs of one platform tend to go the same
way). A warning says when the workload's rank count lies outside the core counts the model was
checked at, or when no published measurement validates the model.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

from iotwin.commands._options import (
    add_cost_limit_arguments,
    add_sim_cluster_argument,
    add_site_rules_argument,
    add_store_argument,
    bounded,
    cost_limits,
    warn,
)
from iotwin.config.validation import load_config
from iotwin.core.cost import Cost, Driver, announce
from iotwin.core.errors import UserError
from iotwin.core.progress import TimedProgress
from iotwin.model.platforms import load_platform
from iotwin.model.sim import SimResult, simulate
from iotwin.model.sim_cost import batched, simulation_cost
from iotwin.model.site_rules import check_config
from iotwin.report.mechanisms import rate_text
from iotwin.report.whatif import as_json, plot, table, verdict
from iotwin.space.parameters import load_space
from iotwin.store.database import Calibration, Store, resolve_path
from iotwin.studies.validated_error import calibrated_errors, family_error, validated_errors
from iotwin.studies.whatif import Config, Tuning, Variation, parse_variation, study
from iotwin.workloads.workload import load_workload

#: seconds between two progress lines of a long study
PROGRESS_EVERY_S = 10.0


def _simulator() -> tuple[Any, Any]:
    """load_platform(name) and simulate(platform, work, configs), from iotwin.model.sim; the
    simulations counted per platform, a progress line on stderr every PROGRESS_EVERY_S."""
    progress = TimedProgress()
    done: dict[str, int] = {}
    last = [time.monotonic()]

    def simulated(platform: Any, work: Any, configs: list[Config],
                  max_steps: float | None = None) -> list[SimResult]:
        options = {} if max_steps is None else {"max_steps": max_steps}
        results = simulate(platform, work, configs, options=options)
        done[platform.name] = done.get(platform.name, 0) + len(configs)
        if time.monotonic() - last[0] >= PROGRESS_EVERY_S:
            last[0] = time.monotonic()
            best = max((r.rate_mbs or 0 for r in results if r.ok), default=0)
            progress(f"whatif: {platform.name}: {done[platform.name]} simulations so far "
                     f"(the last batch's best {rate_text(best)})")
        return results

    return load_platform, simulated


def _calibrations(store_option: str | None) -> dict[str, Calibration]:
    """Per platform, the newest calibration to published measurements in the store (none when
    there is no store yet)."""
    path = resolve_path(store_option)
    if not path.exists():
        return {}
    with Store(path, read_only=True) as store:
        found = calibrated_errors(store.calibrations())
        return {c.platform: c for c in store.calibrations()
                if c.platform in found and found[c.platform].source.startswith(
                    f"calibration {c.id} ")}


def _tuning(args: argparse.Namespace) -> Tuning | None:
    if not args.tune:
        return None

    if args.budget < 1:
        raise UserError(f"--budget {args.budget}: expected a positive number of simulations")
    return Tuning(load_space(args.space), args.strategy, args.budget, args.seed)


def _cost(args: argparse.Namespace, work: Any, platforms: list[Any],
          variations: list[Variation]) -> Cost:
    """Every platform variant's simulations (the default, --config's, --tune's --budget),
    each at the cost of the default config's; the count's driver its largest factor."""
    limits = cost_limits(args)
    variants = math.prod(len(v.values) for v in variations)
    per_variant = 1 + bool(args.config) + (args.budget if args.tune else 0)
    factors = [("--budget", args.budget, per_variant), ("--vary", variants, variants),
               ("--platforms", args.platforms, len(platforms))]
    name, value, _ = max(factors, key=lambda f: f[2])
    costs = [batched(simulation_cost(p, work, args.workload, memory_limit=limits.memory_bytes),
                     variants * per_variant, Driver(name, value))
             for p in platforms]
    total = costs[0]
    for each in costs[1:]:
        total = total.then(each)
    return limits.check(total)


def _run(args: argparse.Namespace) -> int:
    work = load_workload(args.workload)
    platforms = [p for p in args.platforms.split(",") if p]
    variations = [parse_variation(v) for v in args.vary or []]
    load_file, simulate = _simulator()
    announce("whatif", _cost(args, work, [load_file(p) for p in platforms], variations))
    calibrated = {} if args.uncalibrated else _calibrations(args.store)
    errors = {**validated_errors(), **calibrated_errors(list(calibrated.values()))}
    for name in platforms:  # a model from a description: the family's held-out error
        found = family_error(load_file(name))
        if found is not None:
            errors.setdefault(found.platform, found)

    def load_platform(name: str) -> Any:
        platform = load_file(name)
        calibration = calibrated.get(platform.name)
        return platform.with_values(calibration.parameters) if calibration else platform

    given = load_config(args.config) if args.config else None
    if given is not None:
        for name in platforms:
            warn(check_config(load_platform(name), given, work, args.config,
                              args.ignore_site_rules))
    predictions = study(work, platforms, load_platform, simulate, variations=variations,
                        tuning=_tuning(args), errors=errors, given=given)
    if args.json:
        print(json.dumps(as_json(predictions)))
    else:
        print(table(predictions))
        print(verdict(predictions))
    if args.plot:
        what = "default and tuned" if args.tune else "default"
        plot(predictions, f"{work.get('name', args.workload)} ({work['ranks']} ranks): "
                          f"predicted {what} write rates", Path(args.plot))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "whatif", help="predict a workload's default and tuned rates on several platforms",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workload", required=True, metavar="W.yaml")
    parser.add_argument("--platforms", required=True, help="comma-separated platform names")
    parser.add_argument("--vary", metavar="PATH=V1,V2", action="append",
                        help="platform variants, e.g. ost_count=24,96 or "
                             "filesystem.target_mbs=250,500 (repeatable)")
    parser.add_argument("--config", metavar="CFG.yaml",
                        help="your own config, simulated beside the default (and tuned) on "
                             "each platform; it must keep each platform's site rules")
    add_site_rules_argument(parser)
    parser.add_argument("--tune", action="store_true",
                        help="also search a tuner space in simulation for the best config")
    parser.add_argument("--space", default="whatif", help="tuner space (default: whatif)")
    parser.add_argument("--strategy", default=None,
                        help="exhaustive | h5evolve | random (default: exhaustive if the space "
                             "fits the budget, else h5evolve)")
    parser.add_argument("--budget", type=bounded("evaluation_budget"), default=300,
                        help="simulations per platform variant for --tune (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="search seed (default 0)")
    parser.add_argument("--plot", metavar="PNG", help="write a bar chart here")
    parser.add_argument("--uncalibrated", action="store_true",
                        help="the platform files as they are, even where the store holds a "
                             "calibration to published measurements")
    add_store_argument(parser)
    add_sim_cluster_argument(parser)
    add_cost_limit_arguments(parser)
    parser.add_argument("--json", action="store_true", help="one JSON document instead of a table")
    parser.set_defaults(func=_run)
