"""The strategy benchmark's figures as a page, a README table and JSON
(iotwin.studies.strategy_benchmark)."""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from iotwin.report.page import Page
from iotwin.report.plots import quality_vs_runs
from iotwin.studies.model_ties import spearman_within, ties_text
from iotwin.studies.strategy_benchmark import (
    BenchmarkSettings,
    ModelOnTable,
    StrategyFigures,
    TableCase,
    curve,
    runs_relative_interval,
    runs_relative_to,
)
from iotwin.studies.table_import import Imported
from iotwin.studies.table_resolution import Resolution


@dataclass(frozen=True)
class TableBenchmark:
    case: TableCase
    figures: list[StrategyFigures]
    #: the platform model on the table, as loaded and refitted to it (None: not analysed)
    model: ModelOnTable | None
    resolution: Resolution  # how finely the table tells configs apart


def as_json(results: Sequence[TableBenchmark], settings: BenchmarkSettings) -> dict[str, Any]:
    return {"settings": {"seeds": settings.seeds, "confirm": settings.confirm,
                         "confirm_runs": settings.confirm_runs,
                         "confirm_max_runs": settings.confirm_max_runs,
                         "caps": dict(settings.caps),
                         "targets": list(settings.targets)},
            "tables": {r.case.name: _case_json(r, settings) for r in results}}


def _case_json(result: TableBenchmark, settings: BenchmarkSettings) -> dict[str, Any]:
    return {
        "configs": len(result.case.table.configs), "optimum_mbs": result.case.table.optimum,
        "model_spearman": result.model.loaded.spearman if result.model else None,
        "model_ties": None if result.model is None else {
            "loaded": dataclasses.asdict(result.model.loaded),
            "fitted": dataclasses.asdict(result.model.fitted),
            "fitted_parameters": result.model.parameters},
        "resolution": dataclasses.asdict(result.resolution),
        "strategies": {f.strategy: {
            "cap": f.cap,
            **{_key(t): f.summary(t, searched=True) for t in settings.targets},
            **{f"with_confirmation_{_key(t)}": f.summary(t) for t in settings.targets},
            **{f"runs_each_{_key(t)}": f.runs_to(t, searched=True) for t in settings.targets},
            **{f"with_confirmation_each_{_key(t)}": f.runs_to(t) for t in settings.targets},
            **{f"found_{_key(t)}": f.found_summary(t) for t in settings.targets},
            **{f"found_each_{_key(t)}": f.found_in(t) for t in settings.targets},
            "model": _model_summary(f),
            "prior_weights_each": [t.prior_weights for t in f.trajectories],
            "tied_spearman_each": tied_order(result, f)} for f in result.figures},
        **{f"ratio_to_sim_screened_{_key(t)}": runs_relative_to(result.figures, t)
           for t in settings.targets},
        **{f"ratio_to_sim_screened_interval_{_key(t)}": runs_relative_interval(result.figures, t)
           for t in settings.targets},
        "runs_counted": RUNS_COUNTED}


def _model_summary(figures: StrategyFigures) -> dict[str, float]:
    keys = {key for t in figures.trajectories for key in t.model}
    return {key: statistics.median(t.model[key] for t in figures.trajectories
                                   if key in t.model and not math.isnan(t.model[key]))
            for key in sorted(keys)}


def tied_order(result: TableBenchmark, figures: StrategyFigures) -> list[float]:
    """Per seed of a model-guided strategy: how its grey-box surrogate, refitted to all the
    campaign's runs, orders the configs the model as loaded ties (Spearman against the
    table's medians inside that group)."""
    if result.model is None:
        return []
    medians = result.case.table.medians()
    found = [spearman_within(result.model.loaded.group, t.believed, medians)
             for t in figures.trajectories if t.believed is not None]
    return [value for value in found if value is not None]


def tied_order_texts(result: TableBenchmark) -> list[str]:
    """The tied group's order by each model-guided strategy's surrogate, in words."""
    texts: list[str] = []
    if result.model is None:
        return texts
    loaded = result.model.loaded
    before = ("" if loaded.order_within is None
              else f" (the model as loaded: {loaded.order_within:.2f})")
    for figures in result.figures:
        found = tied_order(result, figures)
        if not found or loaded.tied < 3:
            continue
        q1, median, q3 = np.percentile(found, [25, 50, 75])
        texts.append(f"{figures.strategy}'s surrogate, refitted to each campaign's runs, orders "
                     f"the {loaded.tied} configs the model as loaded ties against their "
                     f"medians with Spearman {median:.2f} [{q1:.2f}-{q3:.2f}] over "
                     f"{len(found)} seeds{before}")
    return texts


def _key(fraction: float) -> str:
    return f"within_{100 * fraction:g}pct"


#: what "runs to X%" counts, said wherever the figures are shown
RUNS_COUNTED = ("runs to X%: the search's real runs until the config the campaign would "
                "recommend is within X% of the best (a miss counts as the cap); 'with its "
                "confirmation': those plus the confirmation's runs that chose the "
                "recommendation; 'found': the search's runs until it had run a config within "
                "X%, recommended or not (on a table whose near-best configs its runs cannot "
                "tell apart, the recommendation lags what the search found); '/ sim-screened': "
                "a strategy's median runs over sim-screened's, with its 95% interval (a "
                "percentile bootstrap over the seeds, each strategy paired with sim-screened "
                "seed by seed: above 1, sim-screened needed fewer)")


def markdown(results: Sequence[TableBenchmark], settings: BenchmarkSettings) -> str:
    """The README table: per strategy, search runs to each target as median [quartiles]
    (misses), its median over sim-screened's, and the median with the confirmation's runs;
    below it, each table's resolution and the configs its model ties."""
    targets = settings.targets
    head = ("| table | strategy | cap | " + " | ".join(
        f"runs to {100 * t:g}%: median [quartiles] (misses) · / sim-screened [95% interval] "
        f"· with its confirmation · found" for t in targets) + " |")
    lines = [RUNS_COUNTED[0].upper() + RUNS_COUNTED[1:] + ".", "", head,
             "|" + "---|" * (3 + len(targets))]
    for result in results:
        against = {t: (runs_relative_to(result.figures, t),
                       runs_relative_interval(result.figures, t)) for t in targets}
        lines += [f"| {result.case.name} | {f.strategy} | {f.cap} | "
                  + " | ".join(_runs_cell(f, t, *against[t]) for t in targets) + " |"
                  for f in result.figures]
    lines.append("")
    lines.extend(f"- {r.case.name}: {resolution_text(r.resolution)}" for r in results)
    lines.extend(f"- {r.case.name}: {text}" for r in results
                 for text in model_and_order_texts(r))
    return "\n".join(lines)


def _runs_cell(figures: StrategyFigures, fraction: float, ratios: dict[str, float],
               intervals: dict[str, tuple[float, float]]) -> str:
    """Search runs to ``fraction``: median [quartiles] (misses), over sim-screened's (its
    table's ``ratios`` and ``intervals``, reckoned once for all its strategies), and the
    median with the confirmation's runs."""
    s = figures.summary(fraction, searched=True)
    ratio = ratios.get(figures.strategy)
    interval = intervals.get(figures.strategy)
    confirmed = figures.summary(fraction)["median"]
    found = figures.found_summary(fraction)
    return (f"{s['median']:g} [{s['q1']:g}-{s['q3']:g}] ({s['misses']}/{s['seeds']})"
            + (f" · {ratio:.2f}x" if ratio is not None else "")
            + (f" [{interval[0]:.2f}-{interval[1]:.2f}]" if interval is not None else "")
            + f" · {confirmed:g}"
            + (f" · {found['median']:g}" if found else " · -"))


def model_and_order_texts(result: TableBenchmark) -> list[str]:
    """The model on a table, as loaded and refitted to it, and the order of the configs it
    ties by each model-guided strategy's surrogate, in words."""
    model = result.model
    if model is None:
        return ["the model on the whole table: not analysed (--model-analysis off)"]
    refit = ", ".join(model.parameters) or "no parameter that changes these configs"
    return [f"the model as loaded: {ties_text(model.loaded)}",
            f"the model refitted to every config's median ({refit}): "
            f"{ties_text(model.fitted)}", *tied_order_texts(result)]


def resolution_text(resolution: Resolution) -> str:
    agreement = ("too few to tell" if resolution.agreement is None
                 else f"{resolution.agreement:.2f}")
    return (f"a config's median carries a {100 * resolution.median_se:.0f}% standard error; "
            f"the optimum stays best in {100 * resolution.optimum_kept:.0f}% of bootstrap "
            f"resamples ({resolution.contenders} configs are best in some); the "
            f"{resolution.near_best} configs within {100 * resolution.near:g}% of it are "
            f"ordered alike by two halves of their runs with Spearman {agreement}")


def plot(result: TableBenchmark, targets: Sequence[float]) -> bytes:
    optimum = result.case.table.optimum
    longest = max(f.cap_cost for f in result.figures)
    bands = {f.strategy: (curve(f, longest) * optimum).tolist() for f in result.figures}
    return quality_vs_runs(bands, optimum, f"{result.case.table.label}: "
                                           f"{len(result.case.table.configs)} measured configs",
                           targets, result.resolution.median_se)


def write(results: Sequence[TableBenchmark], settings: BenchmarkSettings, out: Path,
          command: str) -> list[Path]:
    """results.json, a figure per table and index.html in ``out``; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "results.json"]
    written[0].write_text(json.dumps(as_json(results, settings), indent=1) + "\n")
    page = Page("Real runs to a good config: strategies against measured tables")
    page.paragraph(f"{command}", "meta")
    page.paragraph(
        f"Each strategy ran {settings.seeds} times (seeds) against each table: a campaign "
        f"replays the table's measured runs and ends at its own stop or its cap. Had it been "
        f"stopped after b runs, the tuning pipeline's confirmation ({settings.confirm} best "
        f"configs and the default, {settings.confirm_runs} more runs each, up to "
        f"{settings.confirm_max_runs} for those that race on: a config's next "
        f"stored repetitions, the same at every b) would have recommended a config. "
        f"{RUNS_COUNTED[0].upper() + RUNS_COUNTED[1:]}.")
    page.table([{"table": r.case.name, "configs": len(r.case.table.configs),
                 "optimum (best median)": f"{r.case.table.optimum:.1f} MB/s",
                 "model Spearman on the medians (no fit)":
                     f"{r.model.loaded.spearman:.2f}" if r.model else "not analysed",
                 "resolution": resolution_text(r.resolution)}
                for r in results])
    for result in results:
        page.heading(result.case.name)
        png = plot(result, settings.targets)
        figure = out / f"{result.case.name}.png"
        figure.write_bytes(png)
        written.append(figure)
        page.figure(png, "median over seeds (line) and quartiles (band) of the recommended "
                         "config's measured median rate; dashed: the targets below the optimum")
        page.table(_page_rows(result, settings))
        for text in model_and_order_texts(result):
            page.paragraph(text[0].upper() + text[1:] + ".")
    index = out / "index.html"
    index.write_text(page.render())
    return [*written, index]


def _page_rows(result: TableBenchmark, settings: BenchmarkSettings) -> list[dict[str, Any]]:
    rows = []
    intervals = {t: runs_relative_interval(result.figures, t) for t in settings.targets}
    for f in result.figures:
        row: dict[str, Any] = {"strategy": f.strategy, "cap (runs)": f.cap}
        for t in settings.targets:
            s = f.summary(t, searched=True)
            found = f.found_summary(t)
            against = intervals[t].get(f.strategy)
            row[f"runs to {100 * t:g}%"] = (f"{s['median']:g} (quartiles {s['q1']:g}-"
                                            f"{s['q3']:g}), {s['misses']} of {s['seeds']} missed;"
                                            f" {f.summary(t)['median']:g} with its confirmation"
                                            + (f"; found in {found['median']:g}" if found else "")
                                            + (f"; over sim-screened's, 95% interval "
                                               f"{against[0]:.2f}-{against[1]:.2f}x"
                                               if against else ""))
        model = _model_summary(f)
        if model:
            row["model error on the configs it chose"] = f"{100 * model['chosen_error']:.0f}%"
            row["model Spearman after its last refit"] = f"{model['refitted_spearman']:.2f}"
        rows.append(row)
    return rows


def import_page(imported: Imported, found: Resolution, command: str, timed: str) -> str:
    """The Markdown page beside an imported table: how its CSV became the space's configs,
    how finely the table tells them apart, and the region its rates are timed over."""
    lines = [f"# {imported.table.label}: imported", "", f"`{command}`", "",
             *(f"- {text}" for text in imported.texts()), "",
             f"Resolution: {resolution_text(found)}.", "",
             f"Timed region: {timed} (the workload's `timed`, sim-models/WORKLOAD.md): the "
             f"model predicts the table's configs over the same region.", ""]
    return "\n".join(lines)
