"""The report of a validation campaign: cross-validated predictions against measurements,
the confirmation of the measured best, and the model's bias by setting (what `iotwin validate
local` prints, as a page)."""

from __future__ import annotations

import math
from typing import Any

from iotwin.report import plots
from iotwin.report.measured import MeasuredConfig, measured_configs, percent_text, rate_text
from iotwin.report.page import Page
from iotwin.store.database import Campaign, Evaluation, Store
from iotwin.validation.local import (
    TOP_K,
    Metrics,
    confirmation,
    is_confirmation_run,
    paired_metrics,
    residuals_by_setting,
)


def validation_report(store: Store, campaign: Campaign, page: Page) -> list[dict[str, Any]]:
    every = store.evaluations(campaign.id)
    rows = [row for row in every if not is_confirmation_run(row)]
    configs = measured_configs(rows)
    latest_cv: dict[str, float | None] = {}
    for row in rows:
        if row.source == "sim" and "fold" in row.details:
            latest_cv[row.config_hash] = row.rate_mbs  # later refits overwrite earlier ones
    predicted = [latest_cv.get(c.key) for c in configs]
    measured = [c.rate_mbs for c in configs]
    spec = campaign.spec
    program = " ".join(spec.get("command") or [str(spec.get("kernel"))])
    page.paragraph(f"Campaign {campaign.id}: {len(configs)} configs of space "
                   f"{spec.get('space')}, {program} {' '.join(spec.get('args', []))} "
                   f"on {spec.get('ranks')} ranks, {spec.get('repetitions')} repetitions each "
                   f"(median), predicted by platform {spec.get('platform')} calibrated under "
                   f"{spec.get('folds')}-fold cross-validation (never on the fold that holds "
                   f"the config).", "meta")
    result, notes = paired_metrics(predicted, measured)
    page.heading("Fidelity")
    if result is None:
        page.paragraph("No metrics: " + "; ".join(notes))
    else:
        page.table([_fidelity_row(result)])
        for note in notes:
            page.paragraph(note)
        _figure(page, configs, predicted)
    _confirmation(page, every, configs, predicted)
    _bias(page, configs, predicted)
    page.heading("Configs")
    page.table([{**c.shown(), "predicted (MB/s)": rate_text(p)}
                for c, p in zip(configs, predicted, strict=True)])
    return [{**c.row(), "predicted_mbs": p} for c, p in zip(configs, predicted, strict=True)]


def _fidelity_row(result: Metrics) -> dict[str, Any]:
    return {"configs": result.n, "Spearman (target >= 0.8)": f"{result.spearman:.3f}",
            "median |predicted / measured - 1|": percent_text(result.median_error),
            "90th percentile": percent_text(result.p90_error),
            "predicted rank of the measured best": result.best_predicted_rank,
            f"best in the predicted top {TOP_K}": "yes" if result.best_in_top5 else "no",
            "targets met": "yes" if result.meets_targets() else "no"}


def _figure(page: Page, configs: list[MeasuredConfig], predicted: list[float | None]) -> None:
    kept = [(p, c) for c, p in zip(configs, predicted, strict=True) if p and c.rate_mbs]
    pairs = [(p, c.rate_mbs or 0.0) for p, c in kept]
    spread = [c.spread or (c.rate_mbs or 0.0,) * 2 for _, c in kept]
    best = max(pairs, key=lambda pair: pair[1])
    page.figure(plots.predicted_vs_measured(pairs, "cross-validated prediction vs "
                                            "measurement", [best], spread),
                "Each point is one config: predicted by a model fitted without it (x), median "
                "of its real runs (y), the bar from its lowest to its highest run.")


def _confirmation(page: Page, rows: list[Evaluation], configs: list[MeasuredConfig],
                  predicted: list[float | None]) -> None:
    """The measured top configs re-run in interleaved rounds (the suite's confirmation)."""
    runs = [row for row in rows if is_confirmation_run(row) and row.source != "sim"]
    if not runs:
        return
    index = {c.key: i for i, c in enumerate(configs)}
    samples = list(dict.fromkeys(index[row.config_hash] for row in runs
                                 if row.config_hash in index))
    rounds: list[dict[int, float]] = [{} for _ in samples]
    for row in runs:
        if row.ok and row.rate_mbs and row.config_hash in index:
            rounds[samples.index(index[row.config_hash])][row.details["confirm_round"]] = \
                row.rate_mbs
    found = confirmation(samples, rounds)
    page.heading("Confirmation of the measured best")
    page.paragraph("A best picked from a few noisy repetitions is itself noisy and biased up. "
                   "The measured top configs ran again in interleaved rounds (the order "
                   "rotated each round); the confirmed best is the highest median of these "
                   "fresh runs alone.")
    if found is not None:
        p_value = f", signed-rank p = {found.p_value:.3f}" if found.p_value is not None else ""
        page.paragraph(f"Confirmed best: config #{found.best + 1}; it beat the runner-up "
                       f"(#{found.runner_up + 1}) in {found.rounds_won} of "
                       f"{found.rounds_paired} paired rounds{p_value}.")
    page.table([{"#": s + 1, "settings": configs[s].shown()["settings (differences from the "
                                                            "default)"],
                 "fresh runs": len(r), "median of fresh runs (MB/s)":
                 rate_text(found.median(s) if found and r else None),
                 "suite median (MB/s)": rate_text(configs[s].rate_mbs),
                 "predicted (MB/s)": rate_text(predicted[s])}
                for s, r in zip(samples, rounds, strict=True)])


def _bias(page: Page, configs: list[MeasuredConfig], predicted: list[float | None]) -> None:
    residuals = residuals_by_setting([c.config for c in configs], predicted,
                                     [c.rate_mbs for c in configs])
    if not residuals:
        return
    page.heading("The model's bias by setting")
    page.paragraph("Among the configs that share a setting, the median of predicted / "
                   "measured: a setting whose configs are all over- or under-predicted names "
                   "a mechanism the model gets wrong. Largest first.")
    page.table([{"setting": r.setting, "configs": r.configs,
                 "predicted / measured (median)": _signed_percent(r.median_log_ratio)}
                for r in residuals[:12]])


def _signed_percent(log_ratio: float) -> str:
    ratio = math.exp(log_ratio)
    return f"{100 * (ratio - 1):+.0f}% ({'over' if ratio >= 1 else 'under'}-predicted)"
