"""The report's figures, drawn with matplotlib and returned as PNG bytes.

Every figure labels its axes with units; rates are MB/s (10^6 bytes per second, as the
kernels report them), sizes are shown with binary units.
"""

from __future__ import annotations

import io
import math
import statistics
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from iotwin.core.figures import pyplot
from iotwin.core.units import format_size

if TYPE_CHECKING:
    from matplotlib.figure import Figure

RATE_LABEL = "write rate (MB/s)"
#: (x, median rate, lowest rate, highest rate) per point
Curve = Sequence[tuple[float, float, float, float]]


def _png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")  # keeps outside legends
    pyplot().close(fig)
    return buffer.getvalue()


def convergence(runs_by_strategy: Mapping[str, Sequence[Sequence[float]]], title: str) -> bytes:
    """Best rate so far vs real runs: per strategy the median over seeds, and min-max band.

    ``runs_by_strategy[label]`` holds one best-so-far curve per seed (index i = after i+1 runs).
    """
    fig, ax = pyplot().subplots(figsize=(8, 4.5))
    for label, curves in runs_by_strategy.items():
        length = max(len(c) for c in curves)
        xs, median, low, high = [], [], [], []
        for i in range(length):
            values = sorted(c[min(i, len(c) - 1)] for c in curves)
            xs.append(i + 1)
            median.append(statistics.median(values))
            low.append(values[0])
            high.append(values[-1])
        line, = ax.plot(xs, median, marker=".", label=f"{label} (n={len(curves)})")
        if len(curves) > 1:
            ax.fill_between(xs, low, high, alpha=0.2, color=line.get_color())
    ax.set_xlabel("real runs (distinct configs measured)")
    ax.set_ylabel(f"best measured {RATE_LABEL}")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    return _png(fig)


def predicted_vs_measured(points: Sequence[tuple[float, float]], title: str,
                          highlight: Sequence[tuple[float, float]] = (),
                          spread: Sequence[tuple[float, float]] | None = None) -> bytes:
    """Predicted (x) vs measured (y) rate, log axes, with the y = x line; ``spread``: each
    point's lowest and highest repetition, drawn as a bar."""
    fig, ax = pyplot().subplots(figsize=(6, 6))
    xs, ys = [p for p, _ in points], [m for _, m in points]
    if spread:
        bars = [[y - low for y, (low, _) in zip(ys, spread, strict=True)],
                [high - y for y, (_, high) in zip(ys, spread, strict=True)]]
        ax.errorbar(xs, ys, yerr=bars, fmt="none", ecolor="0.6", elinewidth=1,
                    label="lowest to highest repetition")
    ax.scatter(xs, ys, s=22, alpha=0.8, label="config (median of repetitions)")
    if highlight:
        ax.scatter([p for p, _ in highlight], [m for _, m in highlight], s=80,
                   facecolors="none", edgecolors="red", label="measured best")
    everything = [v for v in xs + ys if v > 0]
    if everything:
        low, high = min(everything) / 1.3, max(everything) * 1.3
        ax.plot([low, high], [low, high], color="grey", linestyle="--", label="y = x")
        ax.set_xlim(low, high)
        ax.set_ylim(low, high)
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):  # 200 and 60, not 2 x 10^2 and 6 x 10^1
        axis.set_major_formatter(pyplot().FuncFormatter(_count_tick))
        axis.set_minor_formatter(pyplot().FuncFormatter(_minor_rate_tick))
    ax.set_xlabel(f"predicted {RATE_LABEL}")
    ax.set_ylabel(f"measured {RATE_LABEL}")
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="upper left")
    return _png(fig)


# one shape per series, so that the legend tells a published default from a published tuned
_PUBLISHED_MARKERS = ("D", "^", "s", "v", "o")


def grouped_bars(groups: Sequence[str], series: Mapping[str, Sequence[float | None]],
                 title: str, *, log: bool = True,
                 markers: Mapping[str, Sequence[float | None]] | None = None) -> bytes:
    """One group of bars per ``groups`` entry, one bar per series; ``markers`` are drawn as
    points over the bars (published figures beside the simulated ones)."""
    count = max(len(series), 1)
    width = 0.8 / count
    # wide enough for the bars, narrow enough for a page (and a screenshot)
    fig, ax = pyplot().subplots(figsize=(min(14, max(7, 0.9 * len(groups) * count / 2 + 3)), 4.8))
    for i, (label, values) in enumerate(series.items()):
        xs = [g + (i - (count - 1) / 2) * width for g in range(len(groups))]
        ax.bar(xs, [v or 0 for v in values], width, label=label)
        for name, marks in (markers or {}).items():
            if name == label:
                pts = [(x, m) for x, m in zip(xs, marks, strict=True) if m]
                if not pts:
                    continue  # no published figure for this series: no legend entry either
                ax.scatter([x for x, _ in pts], [m for _, m in pts], color="black", zorder=3,
                           marker=_PUBLISHED_MARKERS[i % len(_PUBLISHED_MARKERS)], s=22,
                           label=f"{label} (published)")
    ax.set_xticks(range(len(groups)), groups, rotation=30, ha="right", fontsize=8)
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(RATE_LABEL)
    ax.set_title(title)
    ax.grid(alpha=0.3, axis="y", which="both")
    _legend_beside(ax)
    return _png(fig)


def curves(lines: Mapping[str, Curve], title: str, *, xlabel: str, x_is_size: bool = False,
           log_x: bool = True, log_y: bool = False,
           references: Mapping[str, float] | None = None) -> bytes:
    """Rate vs a swept value (a size, shown with units; or a rank count), one line per label,
    with bars from the lowest to the highest repetition; ``references`` are fixed configs'
    rates, drawn as dashed horizontal lines."""
    fig, ax = pyplot().subplots(figsize=(8, 4.5))
    greys = ("0.2", "0.5", "0.7", "0.35", "0.6")
    for i, (label, rate) in enumerate((references or {}).items()):
        ax.axhline(rate, linestyle=("--", ":", "-.")[i % 3], linewidth=1,
                   color=greys[i % len(greys)], label=label)
    for label, points in lines.items():
        ordered = sorted(points)
        ys = [y for _, y, _, _ in ordered]
        spread = [[y - low for _, y, low, _ in ordered], [high - y for _, y, _, high in ordered]]
        ax.errorbar([x for x, *_ in ordered], ys, yerr=spread, marker="o", capsize=3,
                    label=label)
    if log_x:
        ax.set_xscale("log", base=2)
    if log_y:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(pyplot().FuncFormatter(_count_tick))  # 6000, not 6 x 10^3
        ax.yaxis.set_minor_formatter(pyplot().FuncFormatter(_minor_rate_tick))
    xs = sorted({point[0] for points in lines.values() for point in points})
    if xs:
        ax.set_xticks(xs)
        tick = _size_tick if x_is_size else _count_tick
        ax.xaxis.set_major_formatter(pyplot().FuncFormatter(tick))
        ax.xaxis.set_minor_formatter(pyplot().FuncFormatter(lambda *_: ""))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(RATE_LABEL)
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both")
    _legend_beside(ax)
    return _png(fig)


def _legend_beside(ax: Any) -> None:
    """The legend right of the axes, where it cannot hide a bar, a point or a line."""
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def _size_tick(value: float, _position: Any) -> str:
    return format_size(int(value)) if value > 0 and math.isfinite(value) else ""


def _count_tick(value: float, _position: Any) -> str:
    return f"{value:g}"


def _minor_rate_tick(value: float, _position: Any) -> str:
    """Only 2x and 5x a power of ten: every minor tick labelled crowds the axis."""
    if value <= 0 or not math.isfinite(value):
        return ""
    leading = round(value / 10 ** math.floor(math.log10(value)), 6)
    return f"{value:g}" if leading in (2, 5) else ""


def quality_vs_runs(bands: Mapping[str, Sequence[Sequence[float]]], optimum: float,
                    title: str, targets: Sequence[float], median_se: float) -> bytes:
    """The true rate of the config a search would recommend had it stopped after x real runs:
    per strategy the median over seeds (line) and the quartiles (band); ``bands[label]`` holds
    the 25th, 50th and 75th percentile rows, index i = after i + 1 runs. Dashed: the
    ``targets`` below the optimum; grey: one standard error of a median below it."""
    fig, ax = pyplot().subplots(figsize=(9, 4.8))
    ax.axhspan((1 - median_se) * optimum, optimum, color="0.85", zorder=0,
               label="one standard error of a\nmedian below the optimum")
    for fraction, style in zip(targets, ("-.", "--", ":", (0, (1, 3))), strict=False):
        ax.axhline((1 - fraction) * optimum, color="0.4", linestyle=style, linewidth=1,
                   label=f"{100 * fraction:g}% below the optimum")
    for label, (q1, median, q3) in bands.items():
        xs = range(1, len(median) + 1)
        line, = ax.plot(xs, median, label=label)
        ax.fill_between(xs, q1, q3, alpha=0.2, color=line.get_color())
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(pyplot().FuncFormatter(_count_tick))
    ax.set_xlabel("real runs (search and confirmation)")
    ax.set_ylabel(f"recommended config's median {RATE_LABEL}")
    ax.set_ylim(bottom=max(0.0, 0.5 * optimum), top=1.02 * optimum)
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both")
    _legend_beside(ax)
    return _png(fig)
