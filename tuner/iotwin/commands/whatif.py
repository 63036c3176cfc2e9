"""`iotwin whatif`: predicted default and tuned rates of a workload on several platforms."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import yaml

from iotwin import paths
from iotwin.errors import UserError
from iotwin.whatif import Prediction, load_grid, parse_variation, study


def _simulator() -> tuple[Any, Any]:
    """The simulator's Python entry points: load_platform(name), simulate(p, w, configs)."""
    try:
        from iotwin.platforms import load_platform  # type: ignore[import-not-found]
        from iotwin.sim import simulate  # type: ignore[import-not-found]
    except ImportError as error:
        raise UserError(f"the simulator is not available ({error}): build it first") from error

    def rates(platform: Any, work: Any, configs: Any) -> list[float]:
        return [r["rate_mbs"] if isinstance(r, dict) else r.rate_mbs
                for r in simulate(platform, work, configs)]

    return load_platform, rates


def table(predictions: list[Prediction]) -> str:
    lines = [f"{'platform':<10} {'variant':<16} {'default MB/s':>12} {'tuned MB/s':>11} "
             f"{'x':>5}  tuned config"]
    for p in predictions:
        tuned = f"{p.tuned_mbs:11.1f}" if p.tuned_mbs is not None else f"{'-':>11}"
        speedup = f"{p.speedup:5.2f}" if p.speedup else f"{'-':>5}"
        config = json.dumps(p.tuned_config, separators=(",", ":")) if p.tuned_config else "-"
        lines.append(f"{p.platform:<10} {p.variant:<16} {p.default_mbs:12.1f} {tuned} "
                     f"{speedup}  {config}")
    return "\n".join(lines)


def plot(predictions: list[Prediction], title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [p.platform if p.variant == "default" else f"{p.platform}\n{p.variant}"
              for p in predictions]
    xs = range(len(predictions))
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(labels)), 4))
    ax.bar([x - 0.2 for x in xs], [p.default_mbs for p in predictions], 0.4, label="default")
    if any(p.tuned_mbs for p in predictions):
        ax.bar([x + 0.2 for x in xs], [p.tuned_mbs or 0 for p in predictions], 0.4,
               label="tuned (simulated)")
    ax.set_xticks(list(xs), labels, fontsize=8)
    ax.set_ylabel("predicted write rate (MB/s)")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _run(args: argparse.Namespace) -> int:
    try:
        work = yaml.safe_load(Path(args.workload).read_text())
    except (OSError, yaml.YAMLError) as error:
        raise UserError(f"{args.workload}: {error}") from error
    platforms = [p for p in args.platforms.split(",") if p]
    variation = parse_variation(args.vary) if args.vary else None
    grid = load_grid(Path(args.grid)) if args.tune else None
    load_platform, simulate = _simulator()
    predictions = study(work, platforms, load_platform, simulate, variation=variation, grid=grid)
    if args.json:
        print(json.dumps([asdict(p) for p in predictions]))
    else:
        print(table(predictions))
    if args.plot:
        plot(predictions, f"{work.get('name', args.workload)}: what-if", Path(args.plot))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "whatif", help="predict a workload's default and tuned rates on several platforms",
        description=__doc__)
    parser.add_argument("--workload", required=True, metavar="W.yaml")
    parser.add_argument("--platforms", required=True, help="comma-separated platform names")
    parser.add_argument("--vary", metavar="KEY=V1,V2",
                        help="platform variants, e.g. filesystem.ost_count=24,48")
    parser.add_argument("--tune", action="store_true",
                        help="also search the grid in simulation and report the best config")
    parser.add_argument("--grid", default=str(paths.repo_root() / "experiments" / "macsio"
                                              / "whatif-grid.yaml"),
                        help="tuning grid (default: experiments/macsio/whatif-grid.yaml)")
    parser.add_argument("--plot", metavar="PNG", help="write a bar chart here")
    parser.add_argument("--json", action="store_true", help="one JSON document instead of a table")
    parser.set_defaults(func=_run)
