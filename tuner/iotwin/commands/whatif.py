"""`iotwin whatif`: predicted default and tuned rates of a workload on several platforms.

Variants: `--vary filesystem.targets=24,96` (or `ost_count=24,96`), repeatable (the variants
are every combination). Tuning: `--tune` searches a tuner space in simulation (default
spaces/whatif.yaml), exhaustively if it fits `--budget` simulations, else with the genetic
search; a config whose simulation iosim estimates beyond about 20 s (a huge job with
collective buffering off: every piece walked) counts as a failed point of the search.
Rates are MB/s (10^6 bytes/s) of the workload's I/O time, compute excluded.

Every rate comes with its band: the 90th percentile of the platform model's held-out errors in
the paper validation (validation/paper: leave-one-out and leave-one-scale-out), as
[rate / (1 + e), rate x (1 + e)]. A platform calibrated to a site's published measurements
(`iotwin calibrate --measurements`, found in the store) is simulated with the calibrated
values, and its band is that calibration's held-out error (`--uncalibrated`: the platform file
as it is). The speedup's band is every tuned / default the two bands allow:
[x / (1 + e)^2, x (1 + e)^2] (both rates at opposite ends of their bands: conservative, since
the model's errors on two configs of one platform tend to go the same way). A warning says when
the workload's rank count lies outside the core counts the model was checked at, or when no
published measurement validates the model.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from iotwin.commands._options import add_sim_cluster_argument, add_store_argument
from iotwin.core.errors import UserError
from iotwin.core.figures import pyplot
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.space.parameters import load_space
from iotwin.store.database import Calibration, Store, resolve_path
from iotwin.studies.validated_error import calibrated_errors, validated_errors
from iotwin.studies.whatif import Config, Prediction, Tuning, parse_variation, study
from iotwin.workloads.workload import load_workload


def _simulator() -> tuple[Any, Any]:
    """load_platform(name) and simulate(platform, work, configs) -> rates, from iotwin.model.sim."""

    def rates(platform: Any, work: Any, configs: list[Config],
              max_steps: float | None = None) -> list[float | None]:
        options = {} if max_steps is None else {"max_steps": max_steps}
        return [r.rate_mbs if r.ok else None
                for r in simulate(platform, work, configs, options=options)]

    return load_platform, rates


def _mbs(value: float | None, width: int) -> str:
    return f"{value:{width}.1f}" if value is not None else f"{'failed':>{width}}"


def _band(band: tuple[float, float] | None) -> str:
    return f"[{band[0]:.0f}-{band[1]:.0f}]" if band else "[no band]"


def _speedup_band(band: tuple[float, float] | None) -> str:
    return f"[{band[0]:.2f}-{band[1]:.2f}]" if band else "[no band]"


def table(predictions: list[Prediction]) -> str:
    """One line per prediction, each rate with its validated band (the 90th percentile of the
    model's held-out errors); warnings below the table."""
    lines = [f"{'platform':<10} {'variant':<24} {'peak MB/s':>10} {'default MB/s [band]':>26} "
             f"{'tuned MB/s [band]':>26} {'x [band]':>18}  tuned settings"]
    warnings: list[str] = []
    notes: list[str] = []
    for p in predictions:
        default = f"{_mbs(p.default_mbs, 9)} {_band(p.default_band):>16}"
        tuned = (f"{_mbs(p.tuned_mbs, 9)} {_band(p.tuned_band):>16}" if p.strategy
                 else f"{'-':>26}")
        speedup = (f"{p.speedup:5.2f} {_speedup_band(p.speedup_band):>12}" if p.speedup
                   else f"{'-':>18}")
        config = p.tuned_settings or ("(site default)" if p.strategy else "-")
        flag = ("  ABOVE PEAK: model error" if p.above_peak else "") + (
            f"  ({p.note})" if p.note else "")
        lines.append(f"{p.platform:<10} {p.variant:<24} {p.peak_mbs:10.0f} "
                     f"{default:>26} {tuned:>26} {speedup}  {config}{flag}")
        if p.warning and p.warning not in warnings:
            warnings.append(p.warning)
        calibrated = f"{p.platform}: simulated as fitted by {p.band_source}"
        if p.band_source.startswith("calibration") and calibrated not in notes:
            notes.append(calibrated)
    lines += [f"calibrated: {n}" for n in notes] + [f"warning: {w}" for w in warnings]
    return "\n".join(lines)


def plot(predictions: list[Prediction], title: str, path: Path) -> None:
    plt = pyplot()
    labels = [(p.platform if p.variant == "default" else f"{p.platform}\n{p.variant}")
              + (f"\n({p.note.split(':')[0]})" if p.note else "")
              + ("\n(no validation)" if not p.default_band
                 else "\n(beyond validated\nscales)" if "validated at" in p.warning else "")
              for p in predictions]
    xs = list(range(len(predictions)))
    tuned = any(p.strategy for p in predictions)
    width = 0.38 if tuned else 0.6
    fig, ax = plt.subplots(figsize=(max(6.0, 1.6 * len(labels)), 4.2))
    ax.bar([x - width / 2 if tuned else x for x in xs],
           [p.default_mbs or 0 for p in predictions], width, label="default (site settings)",
           color="#9aa5b1")
    _error_bars(ax, [x - width / 2 if tuned else x for x in xs],
                [(p.default_mbs, p.default_band) for p in predictions])
    if tuned:
        ax.bar([x + width / 2 for x in xs], [p.tuned_mbs or 0 for p in predictions],
               width, label="tuned in simulation", color="#1f77b4")
        _error_bars(ax, [x + width / 2 for x in xs],
                    [(p.tuned_mbs, p.tuned_band) for p in predictions])
        for x, p in zip(xs, predictions, strict=True):
            if p.speedup:  # above the error bar, not across it
                top = p.tuned_band[1] if p.tuned_band else p.tuned_mbs
                ax.annotate(f"x{p.speedup:.1f}", (x + width / 2, top), xytext=(0, 3),
                            textcoords="offset points", ha="center", fontsize=7)
    ax.scatter(xs, [p.peak_mbs for p in predictions], marker="_", s=900, color="#d62728",
               zorder=3, label="platform peak for these nodes")
    ax.set_yscale("log")
    ax.set_xticks(xs, labels, fontsize=8)
    ax.set_ylabel("predicted write rate (MB/s, log scale)")
    ax.set_title(title + "\nerror bars: 90% of the model's held-out validation errors",
                 fontsize=9)
    label_lines = max(label.count("\n") for label in labels)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.09 - 0.045 * label_lines),
              ncol=3, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def _error_bars(ax: Any, xs: list[float],
                rates: list[tuple[float | None, tuple[float, float] | None]]) -> None:
    """The bands of the bars that have one, as error bars."""
    banded = [(x, rate, band) for x, (rate, band) in zip(xs, rates, strict=True)
              if rate and band]
    if banded:
        ax.errorbar([x for x, _, _ in banded], [r for _, r, _ in banded],
                    yerr=[[r - b[0] for _, r, b in banded], [b[1] - r for _, r, b in banded]],
                    fmt="none", ecolor="black", elinewidth=1, capsize=3)


def _calibrations(store_option: str | None) -> dict[str, Calibration]:
    """Per platform, the newest calibration to published measurements in the store (none when
    there is no store yet)."""
    path = resolve_path(store_option)
    if not path.exists():
        return {}
    with Store(path) as store:
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


def _run(args: argparse.Namespace) -> int:
    work = load_workload(args.workload)
    platforms = [p for p in args.platforms.split(",") if p]
    variations = [parse_variation(v) for v in args.vary or []]
    load_file, simulate = _simulator()
    calibrated = {} if args.uncalibrated else _calibrations(args.store)
    errors = {**validated_errors(), **calibrated_errors(list(calibrated.values()))}

    def load_platform(name: str) -> Any:
        platform = load_file(name)
        calibration = calibrated.get(platform.name)
        return platform.with_values(calibration.parameters) if calibration else platform

    predictions = study(work, platforms, load_platform, simulate, variations=variations,
                        tuning=_tuning(args), errors=errors)
    if args.json:
        print(json.dumps([{**asdict(p), "above_peak": p.above_peak, "speedup": p.speedup,
                           "speedup_band": p.speedup_band} for p in predictions]))
    else:
        print(table(predictions))
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
    parser.add_argument("--tune", action="store_true",
                        help="also search a tuner space in simulation for the best config")
    parser.add_argument("--space", default="whatif", help="tuner space (default: whatif)")
    parser.add_argument("--strategy", default=None,
                        help="exhaustive | h5evolve | random (default: exhaustive if the space "
                             "fits the budget, else h5evolve)")
    parser.add_argument("--budget", type=int, default=300,
                        help="simulations per platform variant for --tune (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="search seed (default 0)")
    parser.add_argument("--plot", metavar="PNG", help="write a bar chart here")
    parser.add_argument("--uncalibrated", action="store_true",
                        help="the platform files as they are, even where the store holds a "
                             "calibration to published measurements")
    add_store_argument(parser)
    add_sim_cluster_argument(parser)
    parser.add_argument("--json", action="store_true", help="one JSON document instead of a table")
    parser.set_defaults(func=_run)
