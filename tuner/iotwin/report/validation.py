"""The report of a validation campaign: cross-validated predictions against measurements."""

from __future__ import annotations

from typing import Any

from iotwin.report import plots
from iotwin.report.measured import measured_configs
from iotwin.report.page import Page
from iotwin.store.database import Campaign, Store
from iotwin.validation.local import TOP_K, is_confirmation_run, paired_metrics


def validation_report(store: Store, campaign: Campaign, page: Page) -> list[dict[str, Any]]:
    rows = [row for row in store.evaluations(campaign.id) if not is_confirmation_run(row)]
    configs = measured_configs(rows)
    latest_cv: dict[str, float | None] = {}
    for row in rows:
        if row.source == "sim" and "fold" in row.details:
            latest_cv[row.config_hash] = row.rate_mbs  # later refits overwrite earlier ones
    predicted = [latest_cv.get(c.key) for c in configs]
    measured = [c.rate_mbs for c in configs]
    spec = campaign.spec
    page.paragraph(f"Campaign {campaign.id}: {len(configs)} configs of space "
                   f"{spec.get('space')}, {spec.get('kernel')} {' '.join(spec.get('args', []))} "
                   f"on {spec.get('ranks')} ranks, {spec.get('repetitions')} repetitions each "
                   f"(median), predicted by platform {spec.get('platform')} calibrated under "
                   f"{spec.get('folds')}-fold cross-validation (never on the fold that holds "
                   f"the config).", "meta")
    result, notes = paired_metrics(predicted, measured)
    page.heading("Fidelity")
    if result is None:
        page.paragraph("No metrics: " + "; ".join(notes))
    else:
        page.table([{"configs": result.n, "Spearman": result.spearman,
                     "median |pred/meas-1|": result.median_error,
                     "p90 |pred/meas-1|": result.p90_error,
                     "predicted rank of measured best": result.best_predicted_rank,
                     f"best in predicted top {TOP_K}": "yes" if result.best_in_top5 else "no",
                     "targets met": "yes" if result.meets_targets() else "no"}])
        for note in notes:
            page.paragraph(note)
        pairs = [(p, m) for p, m in zip(predicted, measured, strict=True) if p and m]
        best = max(pairs, key=lambda pair: pair[1])
        page.figure(plots.predicted_vs_measured(pairs, "cross-validated prediction vs "
                                                "measurement", [best]),
                    "Each point is one config: predicted by a model fitted without it (x), "
                    "median of its real runs (y).")
    page.heading("Configs")
    table = [{**c.row(), "predicted_mbs": p} for c, p in zip(configs, predicted, strict=True)]
    page.table(table)
    return table

