"""Paper validation: the platform models fitted to the published measurements, and how well.

The rows are ``validation/paper/published-measurements.csv`` (rows); how each row is
simulated is data, ``validation/paper/cases.yaml`` (settings, cases).

Each platform model's free parameters (bounds from its YAML) are chosen by a sensitivity scan
(sensitivity) and fitted to that platform's default and tuned rows (fit). A tuned
row without published parameters is predicted with the model's own best config over a seeded
sample of the paper's space, chosen under the model being fitted and re-chosen after the fit.
Leave-one-out and leave-one-scale-out refit the platform without some of its rows and predict
them (leave_out). The record and its results.json are results, its figures
metrics, the README's tables report (modules of this package).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path

from iotwin.core.cost import Limits
from iotwin.model.calibration import Observation
from iotwin.model.platforms import Platform
from iotwin.model.platforms import load_platform as platform_from_file
from iotwin.validation.paper.cases import Case, KernelWorkload, LoadPlatform
from iotwin.validation.paper.cost import paper_cost
from iotwin.validation.paper.fit import fit_cases
from iotwin.validation.paper.leave_out import Progress, leave_one_out, leave_one_scale_out
from iotwin.validation.paper.metrics import case_results, validation_metrics
from iotwin.validation.paper.prediction import MEMO, Predicted, predict_cases, predict_rates
from iotwin.validation.paper.results import (
    PaperValidation,
    PlatformPart,
    RowResult,
    calibration_id,
)
from iotwin.validation.paper.rows import PublishedRow
from iotwin.validation.paper.selection import select_cases
from iotwin.validation.paper.sensitivity import choose_parameters, scan
from iotwin.validation.paper.settings import Settings, load_settings
from iotwin.validation.paper.spread import spreads
from iotwin.workloads.workload import kernel_workload as kernel_description


def run_paper_validation(*, settings_path: Path | None = None,
                         platforms: Sequence[str] | None = None,
                         kernels: Sequence[str] | None = None,
                         loo: bool = True, workers: int = 1,
                         max_evaluations: int | None = None,
                         load_platform: LoadPlatform | None = None,
                         kernel_workload: KernelWorkload | None = None,
                         progress: Progress | None = None,
                         partial: Path | None = None,
                         limits: Limits | None = None) -> PaperValidation:
    """Per platform: scan, choose and fit its free parameters, refit without each row; report.

    Each platform starts from its YAML values before any fit (``Platform.with_priors``): a
    fit recorded by an earlier run is never where a leave-one-out refit starts.

    ``platforms`` (model names) and ``kernels`` (as the CSV names them, e.g. ``VPIC-IO``)
    select a subset of the rows; ``loo`` runs the leave-one-out refits; ``workers`` refits run
    at once (in worker processes, which are sent ``progress``: it must then be picklable);
    ``max_evaluations`` replaces cases.yaml's evaluations per fit round; ``progress`` is told
    what starts. With ``partial``, each platform's part is saved there as ``MODEL.json`` when
    done and a saved part is reused, and every simulation is logged there
    (``simulated-PID.jsonl``) and not run again: an interrupted run resumes where it stopped,
    and platforms can run in separate processes that a last run merges. With ``limits``, the
    validation is estimated before any simulation and refused beyond them (UserError naming
    --platforms), the estimate said to ``progress``.
    """
    say = progress or _quiet
    settings = load_settings(settings_path)
    if max_evaluations:
        settings = replace(settings, fit=replace(settings.fit,
                                                 evaluations_per_round=max_evaluations))
    selection = select_cases(settings, platforms, kernels, load_platform or platform_from_file,
                             kernel_workload or kernel_description)
    if limits is not None:
        say(paper_cost(selection.platforms, settings, loo, ",".join(platforms or ["all"]),
                       limits).text())
    MEMO.keep_in(partial)
    parts = []
    for part in selection.platforms:
        saved = partial / f"{part.model}.json" if partial else None
        if saved and saved.exists():
            say(f"{part.model}: from {saved}")
            parts.append(PlatformPart.from_json(json.loads(saved.read_text())))
            continue
        parts.append(_validate_platform(part.platform.with_priors(), part.cases,
                                        selection.rows, settings, loo, say, workers))
        if saved:
            saved.parent.mkdir(parents=True, exist_ok=True)
            saved.write_text(json.dumps(asdict(parts[-1]), indent=1) + "\n")
    return _validation(parts)


def _quiet(_: str) -> None:
    """Progress told to no one (picklable, unlike a lambda)."""


def _validation(parts: Sequence[PlatformPart]) -> PaperValidation:
    """The platforms' parts as one validation, with the figures of all their rows."""
    results = [row for part in parts for row in part.rows]
    return PaperValidation(results, case_results(results), [p.fit for p in parts],
                           [s for p in parts for s in p.spreads], validation_metrics(results),
                           {p.fit.model: calibration_id(p.fit) for p in parts},
                           {p.fit.model: p.effects for p in parts},
                           {p.fit.model: p.on_bound for p in parts})


def _validate_platform(platform: Platform, cases: Sequence[Case], rows: Sequence[PublishedRow],
                       settings: Settings, refit: bool, say: Progress,
                       workers: int) -> PlatformPart:
    name = platform.name
    prior = predict_cases(platform, cases)
    say(f"{name}: sensitivity scan of {len(platform.free_parameters())} bounded parameters "
        f"over {len(cases)} rows")
    at_prior = [Observation(c.workload, p.config, c.published_mbs)
                for c, p in zip(cases, prior, strict=True)]
    effects = scan(platform, lambda model: predict_rates(model, at_prior))
    parameters = choose_parameters(effects, len(cases), settings.selection)
    say(f"{name}: fitting {', '.join(parameters) or 'nothing'} to {len(cases)} rows")
    fitted, fit = fit_cases(platform, cases, parameters, settings.fit)
    say(f"{name}: fit {'converged' if fit.converged else 'NOT converged'} after "
        f"{fit.evaluations} evaluations in {fit.rounds} rounds")
    after = predict_cases(fitted, cases)
    not_run = [Predicted({}, None)] * len(cases)
    held_out = (leave_one_out(platform, cases, parameters, settings.fit, say, workers)
                if refit else not_run)
    scale_out = (leave_one_scale_out(platform, cases, parameters, settings.fit, say, workers)
                 if refit else not_run)
    return PlatformPart([_row_result(*args) for args in zip(cases, prior, after, held_out,
                                                           scale_out, strict=True)],
                        fit, spreads(fitted, rows, cases, settings.spread), effects,
                        fit.on_bound(platform))


def _row_result(case: Case, prior: Predicted, fitted: Predicted, held_out: Predicted,
                scale_out: Predicted) -> RowResult:
    row = case.row
    return RowResult(row.label, row.source, case.model, row.kernel, row.cores, row.setting,
                     case.origin, case.published_mbs, prior.rate_mbs, fitted.rate_mbs,
                     held_out.rate_mbs, fitted.config, scale_out.rate_mbs)
