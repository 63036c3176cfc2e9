"""`iotwin simulate`: predict the I/O time of a kernel or workload on a platform model."""

from __future__ import annotations

import argparse
import json

from iotwin.commands._options import (
    add_cost_limit_arguments,
    add_sim_cluster_argument,
    add_site_rules_argument,
    bounded,
    cost_limits,
    warn,
)
from iotwin.config.types import Config
from iotwin.config.validation import load_config
from iotwin.core.errors import UserError
from iotwin.core.run_records import Target
from iotwin.executors.mpi_flavour import flavour_of
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.model.sim_cost import simulation_cost
from iotwin.model.site_rules import check_config
from iotwin.report.mechanisms import binding_line, ceiling_line
from iotwin.workloads.types import Workload
from iotwin.workloads.workload import kernel_workload, load_workload

#: One simulation asked for at the prompt: what iosim may spend on it before it refuses, with
#: its estimate, rather than leave the user without a line for minutes (1-element chunks of a
#: large dataset are estimated at 1.4e9 steps, about two minutes).
INTERACTIVE_MAX_STEPS = 6e8


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "simulate", help="predict I/O time and rate on a platform model",
        description="Simulate a kernel run (its workload from `KERNEL --describe`) or a workload "
        "file on a platform model, under a tuning config (default: the site's defaults).")
    parser.add_argument("--platform", required=True, help="platform name or YAML path")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--kernel", help="kernel name (vpic-io, vorpal-io, gcrm-io, "
                      "block3d-io)")
    what.add_argument("--workload", metavar="W.yaml", help="workload file")
    parser.add_argument("--ranks", type=bounded("processes"), help="MPI ranks (with --kernel)")
    parser.add_argument("--config", metavar="CFG.yaml", help="tuning config")
    parser.add_argument("--placement", choices=("packed", "target-grouped"), default="packed",
                        help="rank-to-node placement (default packed)")
    parser.add_argument("--max-steps", type=float, default=INTERACTIVE_MAX_STEPS,
                        metavar="N", help="refuse a simulation iosim estimates beyond N steps "
                        "(about 0.1 us each here), before it starts, with the estimate "
                        f"(default {INTERACTIVE_MAX_STEPS:.0e}: about a minute)")
    add_sim_cluster_argument(parser)
    add_site_rules_argument(parser)
    add_cost_limit_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument("kernel_args", nargs=argparse.REMAINDER,
                        help="-- then arguments for the kernel")
    parser.set_defaults(func=main)


def _workload(args: argparse.Namespace) -> Workload:
    if args.workload:
        return load_workload(args.workload)
    if not args.ranks or args.ranks < 1:
        raise UserError("--kernel needs --ranks N (N >= 1)")
    extra = [a for a in args.kernel_args if a != "--"]
    # the flavour the kernel runs under (IOTWIN_MPI=openmpi: netCDF-4, OMPIO), described by its
    # own build: the process grid is that MPI's MPI_Dims_create
    flavour = flavour_of(Target(args.ranks, kernel=args.kernel, args=tuple(extra)))
    return kernel_workload(args.kernel, args.ranks, extra, flavour.name)


def _source(args: argparse.Namespace) -> str:
    """The input a refused estimate names: the workload file or the kernel's options."""
    return args.workload or f"--kernel {args.kernel} --ranks {args.ranks}"


def _simulated(args: argparse.Namespace) -> str:
    """What is simulated, as an error names it: the workload file or the kernel, the config
    file, the platform."""
    what = args.workload or f"kernel {args.kernel} on {args.ranks} ranks"
    under = f" under {args.config}" if args.config else ""
    return f"{what}{under} on platform {args.platform}"


def main(args: argparse.Namespace) -> int:
    platform = load_platform(args.platform)
    config: Config = load_config(args.config) if args.config else {}
    workload = _workload(args)
    warn(check_config(platform, config, workload, args.config or "config",
                      args.ignore_site_rules))
    limits = cost_limits(args)
    limits.check(simulation_cost(platform, workload, _source(args), [config],
                                 memory_limit=limits.memory_bytes, jobs=1))
    try:
        [result] = simulate(platform, workload, [config], jobs=1,
                            options={"placement": args.placement,
                                     "max_steps": args.max_steps})
    except UserError as error:  # the simulator refused what the readers took
        raise UserError(f"{_simulated(args)}: {error}") from error
    if args.json:
        print(json.dumps(result.__dict__, indent=2))
        return 0 if result.ok else 1
    if not result.ok:
        hint = " (here: --max-steps)" if "--max-steps" in str(result.error) else ""
        raise UserError(f"{_simulated(args)}: simulation failed: {result.error}{hint}")
    phases = ", ".join(f"{k} {v:.3f} s" for k, v in result.phases.items())
    bd = result.breakdown
    aggregators = bd.get("aggregators") or ["-"]
    print(f"{platform.name}: {result.time_s:.3f} s, {result.rate_mbs:.1f} MB/s ({phases})")
    print(f"  {ceiling_line(result)}")
    print(f"  {binding_line(result)}")
    paths = ", ".join(f"{path} x{calls}" for path, calls in bd["write_path_calls"].items() if calls)
    print(f"  write calls: {paths or 'none'}; aggregators: {aggregators[0]}; "
          f"rounds {bd['rounds']}; RPCs {bd['rpcs']}; lock conflicts {bd['lock_conflicts']}")
    return 0
