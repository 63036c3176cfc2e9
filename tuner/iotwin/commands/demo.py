"""`iotwin demo`: one kernel under contrasting configs, real runs, compared as ratios.

What runs is data: ``iotwin/data/demo.yaml`` (kernel, ranks, arguments, repetitions, and the
configs, the first being the baseline); ``--spec`` names another file of the same form.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from iotwin import config, paths
from iotwin.commands.run import settings_lines
from iotwin.errors import UserError
from iotwin.executors.base import Target
from iotwin.executors.local import LocalExecutor
from iotwin.interposer_reports import setting_outcomes
from iotwin.repetitions import Measurement, measure
from iotwin.store import Store, add_store_argument, resolve_path, workload_of


@dataclass(frozen=True)
class DemoSpec:
    target: Target
    repeat: int
    configs: list[tuple[str, dict[str, Any]]]  # (name, validated config); the first is the baseline


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo", help="run a kernel under contrasting configs and compare them",
        description="Measure a kernel for real under a baseline and contrasting tuning configs "
        "(iotwin/data/demo.yaml) and print the median, spread and ratio of each.")
    parser.add_argument("--spec", type=Path, default=paths.data_dir() / "demo.yaml",
                        help="demo description (default: iotwin/data/demo.yaml)")
    parser.add_argument("--repeat", type=int, metavar="R", help="repetitions per config "
                        "(default: the spec's)")
    add_store_argument(parser)
    parser.set_defaults(func=main)


def load_spec(path: Path, repeat: int | None) -> DemoSpec:
    try:
        data = yaml.safe_load(path.read_text())
        target = Target(ranks=int(data["ranks"]), kernel=str(data["kernel"]),
                        args=tuple(str(arg) for arg in data.get("args", [])))
        configs = [(str(entry["name"]),
                    config.validate_config(entry["config"] or {}, f"{path}: configs[{i}].config"))
                   for i, entry in enumerate(data["configs"])]
        repeats = int(repeat if repeat is not None else data.get("repeat", 3))
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError) as error:
        raise UserError(f"{path}: not a demo description: {error}") from error
    if not configs or repeats < 1:
        raise UserError(f"{path}: a demo needs at least one config and one repetition")
    return DemoSpec(target, repeats, configs)


def main(args: argparse.Namespace) -> int:
    spec = load_spec(args.spec, args.repeat)
    try:
        paths.kernel_binary(spec.target.kernel or "")
        paths.interposer_library()
    except paths.MissingBuildError as error:
        raise UserError(str(error)) from error
    print(f"iotwin demo: {workload_of(spec.target)} on {spec.target.ranks} ranks, "
          f"{spec.repeat} repetitions per config, every one stored\n", flush=True)
    store_path = resolve_path(args.store)
    with Store(store_path) as store:
        campaign = store.create_campaign("demo", kind="demo", spec={
            "spec_file": str(args.spec), "repeat": spec.repeat})
        results = [(name, measure(LocalExecutor(), spec.target, cfg, repeat=spec.repeat,
                                  store=store, campaign_id=campaign, platform="local",
                                  label=name))
                   for name, cfg in spec.configs]
    print()
    print(comparison(results))
    print(f"\nstored: campaign {campaign} in {store_path}")
    return 0 if all(len(m.ok_runs) == len(m.runs) for _, m in results) else 1


def comparison(results: list[tuple[str, Measurement]]) -> str:
    """Each config's median and spread of time and rate, its rate as a ratio of the baseline's,
    and what the interposer reported about its settings."""
    baseline = results[0][1].rate
    width = max(len(name) for name, _ in results)
    lines = []
    for name, measurement in results:
        time, rate = measurement.time, measurement.rate
        if time is None or rate is None:
            lines.append(f"{name:<{width}}  no successful repetition")
            continue
        ratio = ("  (baseline)" if measurement is results[0][1] else
                 f"  x{rate.median / baseline.median:.2f} vs baseline" if baseline else "")
        lines.append(f"{name:<{width}}  rate {rate.format('MB/s')}{ratio}")
        lines.append(f"{'':<{width}}  time {time.format('s')}")
        lines += ["    " + line for line in settings_lines(
            setting_outcomes(measurement.reports), bool(measurement.config))]
    return "\n".join(lines)
