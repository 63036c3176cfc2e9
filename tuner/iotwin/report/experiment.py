"""The report of an experiment: the figure its study calls for, and every cell as a table."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from iotwin.core.units import format_size
from iotwin.report import plots
from iotwin.report.measured import best_so_far, measured_configs
from iotwin.report.page import Page
from iotwin.store.database import Campaign, Store
from iotwin.studies.experiment.measurers import CellResult
from iotwin.studies.experiment.published import load_published
from iotwin.studies.experiment.spec import WorkloadSpec

_SIZE_LEAVES = ("size", "boundary", "threshold")


def experiment_report(store: Store, campaign: Campaign, page: Page) -> list[dict[str, Any]]:
    spec = campaign.spec
    cells = stored_cells(store, campaign)
    page.paragraph(f"Experiment {spec.get('name')} (campaign {campaign.id}, from "
                   f"{spec.get('file')}): {', '.join(spec.get('study', []))}, rates "
                   f"{_measured_by(spec)}.", "meta")
    if spec.get("description"):
        page.paragraph(spec["description"])
    if not cells:
        page.paragraph("This experiment has no measured cell yet.")
        return []
    for study in spec["study"]:
        _FIGURES[study](store, spec, cells, page)
    page.heading("Every cell")
    table = [cell.row() for cell in cells]
    page.table([_shown(row, _size_sweeps(spec)) for row in table])
    return table


def _size_sweeps(spec: dict[str, Any]) -> set[str]:
    """Labels of the sweeps whose values are sizes."""
    labels = set()
    for entry in spec["configs"]:
        keys = entry.get("sweep", {}).get("key", [])
        first = keys[0] if isinstance(keys, list) and keys else keys
        if first and str(first).endswith(_SIZE_LEAVES):
            labels.add(entry["label"])
    return labels


def _shown(row: dict[str, Any], size_sweeps: set[str]) -> dict[str, Any]:
    """A row as the page shows it: swept sizes with units (the CSV keeps bytes)."""
    if row["config"] in size_sweeps and isinstance(row["x"], int):
        return {**row, "x": format_size(row["x"])}
    return row


def _measured_by(spec: dict[str, Any]) -> str:
    return {"sim": "predicted by the platform models (simulation)",
            "twin": "measured on the platforms' twins (perturbed model with noise)",
            "real": "measured on this machine"}.get(spec.get("measure", "sim"), "?") + (
        f", median of {spec.get('repetitions')} repetitions" if spec.get("repetitions", 1) > 1
        else "")


def stored_cells(store: Store, campaign: Campaign) -> list[CellResult]:
    """The experiment's cells rebuilt from its rows (search predictions left out)."""
    spec = campaign.spec
    workloads = {(w["label"], w["ranks"]): WorkloadSpec(w["kernel"], w["ranks"],
                                                        tuple(w["args"]), w["label"])
                 for w in spec["workloads"]}
    published = load_published(spec.get("published"))
    cells: dict[tuple[Any, ...], CellResult] = {}
    for row in store.evaluations(campaign.id):
        if "cell" not in row.details:
            continue
        workload = workloads[(row.details["workload_label"], row.ranks)]
        key = (row.platform, workload.name, row.ranks, row.details["cell"],
               str(row.details.get("x")))
        if key not in cells:
            cells[key] = CellResult(
                row.platform, workload, row.details["cell"], row.config,
                x=row.details.get("x"), campaign_id=row.details.get("campaign"),
                tuning=row.details.get("tuning"),
                published_mbs=published.get((row.platform.lower(), workload.kernel.lower(),
                                             row.ranks, row.details["cell"])))
        cells[key].runs.append(row.run_result())
    return list(cells.values())


def _group(cell: CellResult) -> str:
    return f"{cell.workload.name} x{cell.workload.ranks}"


def _labels(cells: Sequence[CellResult]) -> list[str]:
    return list(dict.fromkeys(c.label for c in cells))


def _bars(cells: Sequence[CellResult], groups: list[str], group_of: Callable[[CellResult], str]
          ) -> tuple[dict[str, list[float | None]], dict[str, list[float | None]]]:
    """Rates and published rates per label, in the order of ``groups``."""
    rates: dict[str, list[float | None]] = {}
    published: dict[str, list[float | None]] = {}
    for label in _labels(cells):
        by_group = {group_of(c): c for c in cells if c.label == label}
        rates[label] = [by_group[g].rate_mbs if g in by_group else None for g in groups]
        published[label] = [by_group[g].published_mbs if g in by_group else None
                            for g in groups]
    return rates, published


def _default_vs_tuned(store: Store, spec: dict[str, Any], cells: list[CellResult],
                      page: Page) -> None:
    page.heading("Default vs tuned, per platform")
    for platform in dict.fromkeys(c.platform for c in cells):
        mine = [c for c in cells if c.platform == platform]
        groups = list(dict.fromkeys(_group(c) for c in mine))
        rates, published = _bars(mine, groups, _group)
        page.figure(plots.grouped_bars(groups, rates, f"{platform}", markers=published),
                    f"{platform}: rate per workload and core count (log scale); black "
                    "diamonds: the published measurement where there is one.")
    page.heading("Speedups")
    page.table(_speedups(cells))


def _speedups(cells: Sequence[CellResult]) -> list[dict[str, Any]]:
    table = []
    for platform in dict.fromkeys(c.platform for c in cells):
        for group in dict.fromkeys(_group(c) for c in cells if c.platform == platform):
            by_label = {c.label: c for c in cells if c.platform == platform
                        and _group(c) == group}
            default, tuned = by_label.get("default"), by_label.get("tuned")
            if not (default and tuned and default.rate_mbs and tuned.rate_mbs):
                continue
            row = {"platform": platform, "workload": group, "default_mbs": default.rate_mbs,
                   "tuned_mbs": tuned.rate_mbs, "speedup": tuned.rate_mbs / default.rate_mbs}
            if default.published_mbs and tuned.published_mbs:
                row["published_speedup"] = tuned.published_mbs / default.published_mbs
            table.append(row)
    return table


def _partial_tuning(store: Store, spec: dict[str, Any], cells: list[CellResult],
                    page: Page) -> None:
    page.heading("Partial tuning")

    def group_of(cell: CellResult) -> str:
        return f"{cell.platform} {_group(cell)}"

    groups = list(dict.fromkeys(group_of(c) for c in cells))
    rates, _ = _bars(cells, groups, group_of)
    page.figure(plots.grouped_bars(groups, rates, "default, partial and fully tuned settings"),
                "Each bar: the rate with only that layer's tuned settings applied (the rest "
                "at their defaults); log scale.")


def _sensitivity(store: Store, spec: dict[str, Any], cells: list[CellResult],
                 page: Page) -> None:
    for entry in spec["configs"]:
        if "sweep" not in entry:
            continue
        keys = entry["sweep"]["key"]
        key = " = ".join(keys) if isinstance(keys, list) else keys
        swept = [c for c in cells if c.label == entry["label"] and c.rate_mbs]
        lines: dict[str, list[tuple[float, float, float, float]]] = {}
        for cell in swept:
            lines.setdefault(f"{cell.platform} {_group(cell)}", []).append(_point(cell.x, cell))
        fixed = {f"{c.label} ({c.platform} {_group(c)})": c.rate_mbs for c in cells
                 if c.x is None and c.rate_mbs and c.campaign_id is None}
        page.heading(f"Sensitivity to {key}")
        is_size = key.endswith(_SIZE_LEAVES)
        log_y = _spans_decades(cell.rate_mbs or 0.0 for cell in swept)
        page.figure(plots.curves(lines, f"rate vs {key}", xlabel=key + (" (log scale)"
                                                                       if is_size else ""),
                                 x_is_size=is_size, log_x=is_size, log_y=log_y,
                                 references=fixed),
                    f"Rate as {key} varies, everything else as in the sweep's base config "
                    "(bars: lowest to highest repetition); dashed: the experiment's fixed "
                    "configs." + (" Log rate axis: the lines differ by more than 10x."
                                  if log_y else ""))


def _scaling(store: Store, spec: dict[str, Any], cells: list[CellResult], page: Page) -> None:
    page.heading("Weak scaling")
    for workload in dict.fromkeys(c.workload.name for c in cells):
        lines: dict[str, list[tuple[float, float, float, float]]] = {}
        for cell in cells:
            if cell.workload.name == workload and cell.rate_mbs:
                lines.setdefault(f"{cell.platform} {cell.label}", []).append(
                    _point(cell.workload.ranks, cell))
        page.figure(plots.curves(lines, f"{workload}: rate vs cores", xlabel="cores (MPI ranks)",
                                 log_y=True),
                    f"{workload}: the same data per core at every scale; log-log axes.")


def _spans_decades(rates: Iterable[float]) -> bool:
    positive = [r for r in rates if r > 0]
    return bool(positive) and max(positive) > 10 * min(positive)


def _point(x: Any, cell: CellResult) -> tuple[float, float, float, float]:
    return (float(x), cell.rate_mbs or 0.0, min(cell.rates), max(cell.rates))


def _convergence(store: Store, spec: dict[str, Any], cells: list[CellResult],
                 page: Page) -> None:
    page.heading("Convergence")
    for platform in dict.fromkeys(c.platform for c in cells):
        for group in dict.fromkeys(_group(c) for c in cells if c.platform == platform):
            curves: dict[str, list[list[float]]] = {}
            for cell in cells:
                if cell.platform == platform and _group(cell) == group and cell.campaign_id:
                    rows = store.evaluations(cell.campaign_id)
                    curves.setdefault(cell.label, []).append(best_so_far(measured_configs(rows)))
            page.figure(plots.convergence(curves, f"{platform} {group}"),
                        "Best rate measured so far vs real runs: median over seeds, band "
                        "from the worst to the best seed.")


_FIGURES: dict[str, Callable[[Store, dict[str, Any], list[CellResult], Page], None]] = {
    "default-vs-tuned": _default_vs_tuned,
    "partial-tuning": _partial_tuning,
    "sensitivity": _sensitivity,
    "scaling": _scaling,
    "convergence": _convergence,
}
