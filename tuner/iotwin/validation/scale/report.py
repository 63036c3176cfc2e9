"""The scale audit's report: per platform, rates and phase times against ranks on one figure;
the simulation's cost on another; the knees and the binding mechanisms in README.md."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from iotwin.core.figures import pyplot
from iotwin.core.readme_block import fill_block
from iotwin.validation.scale.audit import (
    CONFIGS,
    AuditPoint,
    knees,
    merged,
    read_points,
    write_points,
)

PHASES = ("open", "write", "close")
_COLORS = {"default": "#9aa5b1", "tuned": "#1f77b4"}
_PHASE_COLORS = {"open": "#e39b3b", "write": "#1f77b4", "close": "#8c564b"}


def _series(points: Sequence[AuditPoint], platform: str, kernel: str, config: str
            ) -> list[AuditPoint]:
    return sorted((p for p in points if (p.platform, p.kernel, p.config) == (platform, kernel,
                                                                              config) and p.ok),
                  key=lambda p: p.ranks)


def platform_figure(points: Sequence[AuditPoint], platform: str, path: Path) -> None:
    """Top: rate against ranks, default and tuned, per kernel. Bottom: the default's time per
    phase (stacked), so a knee above shows which phase grew below."""
    plt = pyplot()
    kernels = sorted({p.kernel for p in points if p.platform == platform})
    fig, axes = plt.subplots(2, len(kernels), figsize=(4.2 * len(kernels), 6.4), squeeze=False)
    for column, kernel in enumerate(kernels):
        top, bottom = axes[0][column], axes[1][column]
        for config in CONFIGS:
            mine = _series(points, platform, kernel, config)
            top.plot([p.ranks for p in mine], [p.rate_mbs for p in mine], "o-",
                     color=_COLORS[config], label=config)
        top.set(xscale="log", yscale="log", title=f"{platform} {kernel}", ylabel="MB/s")
        top.legend(fontsize=7)
        default = _series(points, platform, kernel, "default")
        xs = [str(p.ranks) for p in default]
        base = [0.0] * len(default)
        for phase in PHASES:
            heights = [p.phases.get(phase, 0.0) for p in default]
            bottom.bar(xs, heights, bottom=base, color=_PHASE_COLORS[phase], label=phase)
            base = [b + h for b, h in zip(base, heights, strict=True)]
        if any(height > 0 for height in base):  # a log axis of nothing warns and shows nothing
            bottom.set(yscale="log")
        bottom.set(ylabel="default: s per phase (stacked)", xlabel="ranks")
        bottom.tick_params(axis="x", labelsize=7, rotation=30)
        bottom.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def cost_figure(points: Sequence[AuditPoint], path: Path) -> None:
    """The simulation's wall seconds and peak memory against ranks, every run."""
    plt = pyplot()
    fig, (seconds, memory) = plt.subplots(1, 2, figsize=(11, 4.2))
    markers = dict(zip(sorted({p.kernel for p in points}), "os^", strict=False))
    for kernel, marker in markers.items():
        mine = [p for p in points if p.kernel == kernel]
        ok = [p for p in mine if p.ok]
        failed = [p for p in mine if not p.ok]
        seconds.scatter([p.ranks for p in ok], [p.sim_seconds for p in ok], marker=marker,
                        s=16, label=kernel)
        memory.scatter([p.ranks for p in ok], [p.peak_mib for p in ok], marker=marker, s=16,
                       label=kernel)
        if failed:
            seconds.scatter([p.ranks for p in failed], [p.sim_seconds for p in failed],
                            marker="x", color="red", s=30, label=f"{kernel}: failed")
    seconds.set(xscale="log", yscale="log", xlabel="ranks", ylabel="simulation wall s",
                title="what a simulation costs: time")
    memory.set(xscale="log", yscale="log", xlabel="ranks", ylabel="peak MiB (iosim processes)",
               title="what a simulation costs: memory")
    seconds.legend(fontsize=7)
    memory.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def markdown(points: Sequence[AuditPoint]) -> str:
    platforms = sorted({p.platform for p in points})
    lines = ["| platform | kernel | config | ranks | MB/s | open s | write s | close s | binds | "
             "sim s | peak MiB |", "|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|"]
    for p in sorted(points, key=lambda p: (p.platform, p.kernel, p.config, p.ranks)):
        if not p.ok:
            lines.append(f"| {p.platform} | {p.kernel} | {p.config} | {p.ranks} | failed | | | "
                         f"| {p.error} | {p.sim_seconds:.1f} | {p.peak_mib:.0f} |")
            continue
        phases = " | ".join(f"{p.phases.get(phase, 0.0):.3g}" for phase in PHASES)
        lines.append(f"| {p.platform} | {p.kernel} | {p.config} | {p.ranks} | "
                     f"{p.rate_mbs:.0f} | {phases} | {p.binding} | {p.sim_seconds:.1f} | "
                     f"{p.peak_mib:.0f} |")
    figures = [f"![{name}](rate-{name}.png)" for name in platforms] + ["![cost](cost.png)"]
    found = knees(points)
    return "\n".join(["### Knees: where the binding mechanism changes", "",
                      *[f"- {k}" for k in found or ["none"]], "", "### Figures", "",
                      *figures, "", "### Every run", "", *lines]) + "\n"


def write_outputs(points: Sequence[AuditPoint], directory: Path) -> list[AuditPoint]:
    """The record in ``directory`` updated with ``points`` (other platforms' points kept):
    results.json, the figures and README's tables. Returns the whole record."""

    points = merged(read_points(directory / "results.json"), points)
    write_points(points, directory / "results.json")
    for platform in sorted({p.platform for p in points}):
        platform_figure(points, platform, directory / f"rate-{platform}.png")
    cost_figure(points, directory / "cost.png")
    fill_block(directory / "README.md", "scale audit", markdown(points))
    return points
