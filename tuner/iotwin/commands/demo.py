"""`iotwin demo`: a short sim-screened tuning of a kernel on this machine, default vs tuned.

What runs is data: ``iotwin/data/demo.yaml`` holds ``iotwin tune`` options (``--spec`` names
another file of the same form). The demo prints the ``iotwin tune`` command it stands for,
runs it (progress per generation, then the default and the tuned config measured in R
alternating pairs in the same session), and shows the tuned config it wrote (as
``iotwin tune`` does). Its last line says whether the demo reached its goal (the
description's ``ceiling_goal``): a tuned config whose paired interval lies above 1 and whose
rate reaches that share of its ceiling on the platform model; if not, why.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

import yaml

from iotwin.commands._options import (
    add_cost_limit_arguments,
    add_force_argument,
    add_store_argument,
    add_workdir_argument,
    cost_limits,
    new_output,
)
from iotwin.commands.tune import (
    add_tune_arguments,
    say_program_flavour,
    spec_from_arguments,
    tune_and_report,
)
from iotwin.core import paths
from iotwin.core.cost import announce
from iotwin.core.errors import UserError
from iotwin.core.yaml_files import read_yaml
from iotwin.executors.local import default_scratch_root
from iotwin.report.mechanisms import percent, rate_text, reason
from iotwin.store.database import Store, resolve_path
from iotwin.tuning.cost import tune_cost
from iotwin.tuning.explanation import Explanation
from iotwin.tuning.pipeline import start, summary_speedup
from iotwin.tuning.repetitions import Measurement, measured_io_rates

#: keys of a demo description that are the demo's own, not `iotwin tune` options
DEMO_KEYS = ("args", "ceiling_goal")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo", help="tune a kernel on this machine, briefly, and compare default and tuned",
        description="A short sim-screened tuning of a kernel with a few real runs "
        "(iotwin/data/demo.yaml says which, as `iotwin tune` options), then the default and "
        "the tuned config measured in the same session: medians and spread of each.")
    parser.add_argument("--spec", type=Path, default=paths.data_dir() / "demo.yaml",
                        help="demo description (default: iotwin/data/demo.yaml)")
    parser.add_argument("--output", type=Path, metavar="YAML",
                        help="tuned config file (default: demo-tuned.yaml in the scratch root, "
                             "runs/ or $IOTWIN_SCRATCH)")
    add_force_argument(parser)
    add_workdir_argument(parser, default=None)
    add_store_argument(parser)
    add_cost_limit_arguments(parser)
    parser.set_defaults(func=main)


def load_spec(path: Path) -> dict[str, Any]:
    spec = read_yaml(path, "demo description")
    if not isinstance(spec, dict) or "kernel" not in spec:
        raise UserError(f"{path}: not a demo description: expected a mapping of `iotwin tune` "
                        "options with a kernel")
    goal = spec.get("ceiling_goal", 0.5)
    if isinstance(goal, bool) or not isinstance(goal, int | float) or not 0 < goal <= 1:
        raise UserError(f"{path}: ceiling_goal: expected a share of the ceiling above 0 and at "
                        f"most 1, got {goal!r}")
    return {**spec, "ceiling_goal": goal}


def tune_argv(spec: Mapping[str, Any], source: Path) -> list[str]:
    """The ``iotwin tune`` arguments a demo description stands for (kernel args after --)."""
    argv = ["tune"]
    for key, value in spec.items():
        if key in DEMO_KEYS:
            continue
        option = "--" + str(key).replace("_", "-")
        if isinstance(value, dict):
            argv += [arg for name, item in value.items()
                     for arg in (option, f"{name}={_text(item)}")]
        elif isinstance(value, bool):
            argv += [option] if value else []
        elif isinstance(value, list):
            raise UserError(f"{source}: {key}: expected a value or a mapping, got a list")
        else:
            argv += [option, _text(value)]
    return [*argv, "--", *(str(arg) for arg in spec.get("args") or [])]


def _text(value: Any) -> str:
    """A value as `iotwin tune` reads it back (YAML): null, true, 4MiB, 100."""
    if value is None or isinstance(value, bool):
        return yaml.safe_dump(value).splitlines()[0]
    return str(value)


def main(args: argparse.Namespace) -> int:
    spec = load_spec(args.spec)
    try:
        paths.kernel_binary(str(spec["kernel"]))
        paths.interposer_library()
    except paths.MissingBuildError as error:
        raise UserError(str(error)) from error
    output = args.output or _shown(default_scratch_root() / "demo-tuned.yaml")
    force = args.force or args.output is None  # the scratch file is the demo's own
    new_output(output, force)
    argv = tune_argv(spec, args.spec)
    argv[1:1] = ["--store", str(resolve_path(args.store)), "--output", str(output),
                 *(["--workdir", args.workdir] if args.workdir else [])]
    tune_args = _tune_parser(args.spec).parse_args(argv[1:])
    tune_spec = spec_from_arguments(tune_args)
    # before anything is written: a demo beyond the limits leaves no store and no output
    announce("demo", tune_cost(tune_spec, cost_limits(args), f"{args.spec}: real_budget"))
    output.parent.mkdir(parents=True, exist_ok=True)
    print(f"iotwin demo: a short {spec.get('strategy', 'sim-screened')} tuning on this "
          f"machine, as\n  iotwin {shlex.join(argv)}\n", flush=True)
    load_at_start = os.getloadavg()[0]
    with Store(resolve_path(args.store)) as store:
        say_program_flavour(tune_spec)
        campaign_id, tune_spec, parts = start(store, tune_spec)
        result = tune_and_report(store, campaign_id, tune_spec, output, tune_args.json, parts,
                                 force=force)
    if not tune_args.json:
        load = (load_at_start, os.getloadavg()[0])
        print("\n" + goal_line(result.summary, result.explanation, spec["ceiling_goal"], load,
                               os.cpu_count() or 1))
    return 0


def goal_line(summary: Mapping[str, Measurement], explanation: Explanation | None, goal: float,
              load: tuple[float, float], cores: int) -> str:
    """Whether the summary's tuned config is faster than its default (the paired interval
    above 1) and its I/O rate reaches ``goal`` of its ceiling on the platform model; if not,
    why, in one line. ``load``: the load average when the demo started and when it ended, on
    ``cores`` cores."""
    aim = (f"demo goal (a tuned config faster than the default at 95%, at {percent(goal)} of "
           "its ceiling or more)")
    interval = summary_speedup(dict(summary))
    if interval is None or interval.low is None or interval.high is None or explanation is None:
        return f"{aim}: not judged: the summary has no interval or no simulated ceiling"
    share = explanation.fractions(measured_io_rates(summary))["tuned"]
    found = (f"tuned {interval.estimate:.2f}x the default (95% interval {interval.low:.2f}-"
             f"{interval.high:.2f}x) at {percent(share['of_ceiling'])} of its "
             f"{rate_text(share['ceiling_mbs'])} ceiling")
    faster, high = interval.low > 1, (share["of_ceiling"] or 0) >= goal
    if faster and high:
        return f"{aim}: met: {found}"
    return f"{aim}: not met: {found}: {_why_not(explanation, faster, load, cores)}"


def _why_not(explanation: Explanation, faster: bool, load: tuple[float, float],
             cores: int) -> str:
    if not faster:
        return ("no searched config was shown faster than the default at 95% (its paired "
                f"interval reaches 1), which the model sees as "
                f"{reason('default', explanation.runs['default'])}")
    if max(load) > cores:
        return (f"the machine was loaded (load average {load[0]:.1f} when the demo started, "
                f"{load[1]:.1f} when it ended, on {cores} cores): the ranks shared their cores, "
                "so both rates fall short of the device; their ratio, taken in interleaved "
                "pairs, holds")
    return f"the model sees it as {reason('tuned', explanation.runs['tuned'])}"


class _SpecParser(argparse.ArgumentParser):
    """``iotwin tune``'s options, read from a demo description: an error names the file."""

    def __init__(self, source: Path) -> None:
        super().__init__(prog=f"{source}: as `iotwin tune`", add_help=False)
        self.source = source

    def error(self, message: str) -> NoReturn:
        unknown = (re.findall(r"--([\w-]+)", message)
                   if message.startswith("unrecognized arguments") else [])
        what = ", ".join(option.replace("-", "_") for option in unknown) or message
        raise UserError(f"{self.source}: not `iotwin tune` options: {what}")


def _tune_parser(source: Path) -> argparse.ArgumentParser:
    parser = _SpecParser(source)
    add_tune_arguments(parser)
    return parser


def _shown(path: Path) -> Path:
    """``path`` relative to the current directory when it lies below it."""
    return Path(os.path.relpath(path)) if path.is_relative_to(Path.cwd()) else path
