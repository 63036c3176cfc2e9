"""The report of a tuning campaign: convergence, predicted vs measured, the configs measured."""

from __future__ import annotations

import json
import statistics
from dataclasses import replace
from typing import Any

from iotwin.config.settings import settings_text
from iotwin.core.stats import paired_speedup
from iotwin.report import plots
from iotwin.report.measured import best_so_far, measured_configs, percent_text, rate_text
from iotwin.report.mechanisms import breakdown_rows, reasons
from iotwin.report.mechanisms import rate_text as mechanism_rate
from iotwin.report.page import Page
from iotwin.store.database import Campaign, Store
from iotwin.tuning.explanation import explain, last_fit
from iotwin.tuning.parts import campaign_space, default_space
from iotwin.tuning.spec import TuneSpec


def campaign_report(store: Store, campaign: Campaign, page: Page) -> list[dict[str, Any]]:
    """Fill ``page``; returns the CSV rows (one per measured config)."""
    rows = store.evaluations(campaign.id)
    configs = measured_configs(rows)
    spec = campaign.spec
    page.paragraph(f"Campaign {campaign.id}: strategy {spec.get('strategy')}, space "
                   f"{spec.get('space')}, platform {spec.get('platform')}, executor "
                   f"{spec.get('executor')}, {spec.get('ranks')} ranks, kernel "
                   f"{spec.get('kernel')} {' '.join(spec.get('args', []))}, real-run budget "
                   f"{spec.get('real_budget')}, {spec.get('repetitions')} repetition(s) per "
                   f"config.", "meta")
    if not configs:
        page.paragraph("Nothing was measured in this campaign.")
        return []
    page.heading("Convergence")
    page.figure(plots.convergence({str(spec.get("strategy")): [best_so_far(configs)]},
                                  f"campaign {campaign.id}: best rate vs real runs"),
                "Best median rate measured so far after each distinct config run for real.")
    _predicted_vs_measured(page, configs)
    _confirmation(page, rows)
    _summary(page, rows)
    _explained(page, campaign, rows, last_fit(store, campaign.id))
    page.heading("Measured configs, in the order they ran")
    table = [c.row() for c in configs]
    page.table([c.shown() for c in configs])
    _calibrations(page, store, campaign.id)
    return table


def _predicted_vs_measured(page: Page, configs: list[Any]) -> None:
    pairs = [(c.predicted_mbs, c.rate_mbs) for c in configs if c.predicted_mbs and c.rate_mbs]
    page.heading("Predicted vs measured")
    if not pairs:
        page.paragraph("No prediction was made before a measurement (the strategy does not "
                       "use the model).")
        return
    spread = [c.spread or (0.0, 0.0) for c in configs if c.predicted_mbs and c.rate_mbs]
    best = max(pairs, key=lambda p: p[1])
    page.figure(plots.predicted_vs_measured(pairs, "model prediction before each real run",
                                            [best], spread),
                "Each point: the model's rate for a config just before it was run (x) and "
                "the median measured rate (y), the bar from its lowest to its highest run. On "
                "the dashed line the model is exact.")


def _measured(row: Any) -> bool:
    return bool(row.source != "sim" and row.ok and row.rate_mbs)


def _confirmation(page: Page, rows: list[Any]) -> None:
    """The search's top candidates re-measured before the tuned config was chosen."""
    fresh: dict[str, list[Any]] = {}
    searched: dict[str, float] = {}
    for row in rows:
        label = row.details.get("label")
        if label == "confirm" and _measured(row):
            fresh.setdefault(row.config_hash, []).append(row)
        elif label is None and _measured(row):
            searched[row.config_hash] = row.rate_mbs
    if not fresh:
        return
    page.heading("Confirmation of the best candidates")
    page.paragraph("The search's best configs by a single run, run again in interleaved "
                   "rounds; the best median of these fresh runs became the tuned config.")
    ranked = sorted(fresh.items(), key=lambda item: -statistics.median(
        r.rate_mbs for r in item[1]))
    page.table([{"settings (differences from the default)": settings_text(runs[0].config),
                 "median of fresh runs (MB/s)": rate_text(statistics.median(
                     r.rate_mbs for r in runs)),
                 "lowest-highest (MB/s)": f"{rate_text(min(r.rate_mbs for r in runs))}-"
                                          f"{rate_text(max(r.rate_mbs for r in runs))}",
                 "search run (MB/s)": rate_text(searched.get(key)), "fresh runs": len(runs)}
                for key, runs in ranked])


def _re_measured(rows: list[Any]) -> dict[str, list[Any]]:
    """The default's and the tuned config's re-measurements after the search that ran, by label
    (a label without any left out)."""
    by_label = {label: [row for row in rows if row.details.get("label") == label and _measured(row)]
                for label in ("default", "tuned")}
    return {label: found for label, found in by_label.items() if found}


def _summary(page: Page, rows: list[Any]) -> None:
    """The default and tuned re-measurements `iotwin tune` makes after the search, in pairs
    (one of each per round)."""
    labelled: dict[str, list[float]] = {}
    rounds: dict[str, dict[int, float]] = {}
    for label, runs in _re_measured(rows).items():
        labelled[label] = [row.rate_mbs for row in runs]
        by_round = rounds.setdefault(label, {})
        for row in runs:
            by_round[row.details.get("round", len(by_round))] = row.rate_mbs
    if not labelled:
        return
    page.heading("Default vs tuned (re-measured after the search, same session)")
    page.figure(plots.grouped_bars(["this campaign"], {k: [statistics.median(v)] for k, v in
                                                       labelled.items()},
                                   "default vs tuned", log=False),
                "Median of the re-measurements of each config.")
    page.table([{"config": k, "median (MB/s)": rate_text(statistics.median(v)),
                 "lowest-highest (MB/s)": f"{rate_text(min(v))}-{rate_text(max(v))}",
                 "runs": len(v)} for k, v in labelled.items()])
    default, tuned = rounds.get("default", {}), rounds.get("tuned", {})
    paired = sorted(set(default) & set(tuned))
    speedup = paired_speedup([default[r] for r in paired], [tuned[r] for r in paired])
    if speedup is not None:
        page.paragraph(speedup.text())


def _explained(page: Page, campaign: Campaign, rows: list[Any],
               calibration: dict[str, float]) -> None:
    """Default and tuned simulated on the campaign's platform model (or its last calibration,
    where that predicts the measured medians better: tuning.explanation): each measured median
    as a share of its ceiling, what binds each, their breakdowns side by side."""
    tuned = next((row.config for row in rows if row.details.get("label") == "tuned"), None)
    if tuned is None or campaign.kind != "tune":
        return
    search = TuneSpec.from_json(campaign.spec).search
    if search.kernel is None and search.workload is None:
        return  # a program whose workload was never captured: nothing to simulate
    search = replace(search, space=search.space or default_space(search))
    medians: dict[str, float | None] = {
        label: statistics.median(row.rate_mbs for row in runs)
        for label, runs in _re_measured(rows).items()}
    explanation = explain(search, tuned, campaign_space(search), calibration=calibration,
                          measured=medians)
    if explanation is None:
        return
    page.heading("Why the tuned config is faster (simulated)")
    calibrated = explanation.calibration_text()
    page.paragraph(f"The default and the tuned config simulated on the {search.platform} "
                   + (f"model as this campaign calibrated it ({calibrated})" if calibrated
                      else "model")
                   + f": {reasons(explanation.runs, {'tuned': explanation.tuned_settings})}.")
    page.table([{"config": label, "measured median (MB/s)": rate_text(share["measured_mbs"]),
                 "simulated ceiling": mechanism_rate(share["ceiling_mbs"]),
                 "of its ceiling": percent_text(share["of_ceiling"]),
                 "of the best ceiling of the space": percent_text(share["of_best_ceiling"])}
                for label, share in explanation.fractions(medians).items()])
    page.paragraph(f"The best ceiling any config of the space reaches from this placement: "
                   f"{mechanism_rate(explanation.best_ceiling_mbs)}. The simulated breakdown "
                   f"of each config:")
    page.table(breakdown_rows(explanation.runs))


def _calibrations(page: Page, store: Store, campaign_id: int) -> None:
    found = store.calibrations(campaign_id=campaign_id)
    if not found:
        return
    page.heading("Calibrations")
    page.table([{"id": c.id, "configs measured": c.details.get("measured"),
                 "fit error": percent_text(c.fit_error),
                 "error on the batch before it": percent_text(c.heldout_error),
                 "parameters": json.dumps({k: float(f"{v:.4g}") for k, v in
                                           c.parameters.items()})} for c in found])
