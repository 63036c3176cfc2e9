"""The paper validation's report: the README's tables, results.json, calibrations.json, and
fitted values recorded in the platform YAMLs."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from iotwin.errors import UserError
from iotwin.paper_validation import MODELS, PaperValidation

_README_BEGIN = "<!-- paper-validation results: begin -->"
_README_END = "<!-- paper-validation results: end -->"


def markdown(result: PaperValidation) -> str:
    """The tables and metrics, as validation/paper/README.md shows them."""
    sections = [_figures_table(result), _rows_table(result), _speedups_table(result),
                _sensitivity_table(result), _fits_table(result)]
    if result.spreads:
        sections.append(_spreads_table(result))
    return "\n\n".join("\n".join(lines) for lines in sections) + "\n"


_MODEL_TITLES = {"prior": "prior (YAML values)", "fitted": "fitted", "loo": "leave-one-out"}


def _figures_table(result: PaperValidation) -> list[str]:
    lines = ["| platform | model | rows | Spearman | median abs error | 90th pct abs error "
             "| tuned above default | of which published configs |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    scopes = [("all", result.metrics["overall"]), *result.metrics["per_platform"].items()]
    for scope, figures in scopes:
        for which in MODELS:
            m = figures.get(which)
            if m is None:
                lines.append(f"| {scope} | {_MODEL_TITLES[which]} | not run | | | | | |")
                continue
            failed = f" ({m['failed']} failed)" if m["failed"] else ""
            lines.append(
                f"| {scope} | {_MODEL_TITLES[which]} | {m['rows'] - m['failed']}{failed} | "
                f"{_num(m['spearman'])} | {_abs_pct(m['median_abs_error'])} | "
                f"{_abs_pct(m['p90_abs_error'])} | {m['tuned_above_default']}/{m['cases']} | "
                f"{m['published_configs_above']}/{m['published_config_cases']} |")
    return lines


def _rows_table(result: PaperValidation) -> list[str]:
    lines = ["| row | tuned config | published MB/s | prior MB/s | fitted MB/s | fit error "
             "| leave-one-out MB/s | LOO error |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    refitted = {r.model for r in result.rows if r.loo_mbs}
    for r in result.rows:
        origin = r.origin if r.setting == "tuned" else ""
        held_out = _mbs(r.loo_mbs) if r.model in refitted else "not run"
        lines.append(f"| {r.label} | {origin} | {r.published_mbs:.0f} | {_mbs(r.prior_mbs)} | "
                     f"{_mbs(r.fitted_mbs)} | {_pct(r.error('fitted'))} | {held_out} | "
                     f"{_pct(r.error('loo'))} |")
    return lines


def _speedups_table(result: PaperValidation) -> list[str]:
    lines = ["| experiment | tuned config | published speedup | prior | fitted | "
             "leave-one-out |", "|---|---|---:|---:|---:|---:|"]
    lines += [f"| {c.label} | {c.origin} | {c.published_speedup:.2f}x | "
              f"{_times(c.prior_speedup)} | {_times(c.fitted_speedup)} | "
              f"{_times(c.loo_speedup)} |" for c in result.cases]
    return lines


def _sensitivity_table(result: PaperValidation) -> list[str]:
    lines = ["| platform | bounded parameter | bounds | largest row change, lower to upper "
             "bound | fitted? |", "|---|---|---|---:|---|"]
    for model, effects in result.effects.items():
        for e in sorted(effects, key=lambda e: (not e.chosen, -e.largest)):
            lines.append(f"| {model} | {e.name} | {e.lower:.4g} - {e.upper:.4g} | "
                         f"{math.exp(e.largest):.2f}x | "
                         f"{'**yes**, ' if e.chosen else 'no: '}{e.reason} |")
    return lines


def _fits_table(result: PaperValidation) -> list[str]:
    lines = ["| model | calibration | parameter | YAML value | fitted | on a bound | fit |",
             "|---|---|---|---:|---:|---|---|"]
    for fit in result.fits:
        state = (f"{'converged' if fit.converged else 'not converged'}, {fit.evaluations} "
                 f"evaluations, loss {fit.loss_before:.3g} -> {fit.loss_after:.3g}")
        for name, value in fit.parameters.items():
            bound = "yes" if name in result.on_bound.get(fit.model, []) else ""
            lines.append(f"| {fit.model} | {result.calibration_ids[fit.model]} | {name} | "
                         f"{fit.before[name]:.4g} | {value:.4g} | {bound} | {state} |")
    return lines


def _spreads_table(result: PaperValidation) -> list[str]:
    lines = ["| experiment | published min-max s | ratio | simulated min-max s (configs) "
             "| ratio |", "|---|---|---:|---|---:|"]
    lines += [f"| {s.label} | {s.published_min_s:.0f}-{s.published_max_s:.0f} | "
              f"{s.published_ratio:.1f}x | {_num(s.simulated_min_s)}-"
              f"{_num(s.simulated_max_s)} ({s.configs}) | {_times(s.simulated_ratio)} |"
              for s in result.spreads]
    return lines


def _mbs(value: float | None) -> str:
    return f"{value:.0f}" if value else "failed"


def _pct(value: float | None) -> str:
    return f"{100 * value:+.0f}%" if value is not None else "-"


def _abs_pct(value: float | None) -> str:
    return f"{100 * value:.0f}%" if value is not None else "-"


def _times(value: float | None) -> str:
    return f"{value:.2f}x" if value else "-"


def _num(value: float | None) -> str:
    return f"{value:.3g}" if value is not None else "-"


def write_outputs(result: PaperValidation, directory: Path) -> None:
    """results.json, calibrations.json, and the results block of README.md."""
    (directory / "results.json").write_text(json.dumps(result.to_json(), indent=1) + "\n")
    calibrations = {result.calibration_ids[f.model]: {
        "platform": f.model, "parameters": f.parameters, "yaml_values": f.before,
        "loss_before": f.loss_before, "loss_after": f.loss_after, "converged": f.converged,
        "on_bound": result.on_bound[f.model],
        "fit_error": result.metrics["per_platform"][f.model]["fitted"]["median_abs_error"]}
        for f in result.fits}
    (directory / "calibrations.json").write_text(json.dumps(calibrations, indent=1) + "\n")
    readme = directory / "README.md"
    text = readme.read_text() if readme.exists() else ""
    begin, end = text.find(_README_BEGIN), text.find(_README_END)
    if begin < 0 or end < begin:
        raise UserError(f"{readme}: no {_README_BEGIN} ... {_README_END} block to fill")
    readme.write_text(text[:begin + len(_README_BEGIN)] + "\n\n" + markdown(result) + "\n"
                      + text[end:])


def record_fitted(platform_yaml: Path, calibration: str, values: Mapping[str, float]) -> None:
    """Set fitted values in a platform YAML, marked ``fitted: <calibration>``, in place.

    Each value is a one-line leaf ``name: {value: ..., bounds: ..., source: ...}`` under its
    section; only that line changes, so the file's comments and layout stay as they are.
    """
    lines = platform_yaml.read_text().splitlines(keepends=True)
    for dotted, value in values.items():
        at = _leaf_line(lines, dotted.split("."), platform_yaml)
        leaf = re.sub(r"\s*fitted: [^,}]*,", "", lines[at])
        lines[at] = re.sub(r"\{value: [^,}]+,", f"{{value: {value:.6g}, fitted: {calibration},",
                           leaf, count=1)
    platform_yaml.write_text("".join(lines))


def _leaf_line(lines: Sequence[str], keys: Sequence[str], origin: Path) -> int:
    """The index of the line holding the leaf ``keys`` (nested by indentation)."""
    at, indent = -1, -1
    for key in keys:
        child_indent, found = None, None
        for i in range(at + 1, len(lines)):
            text = lines[i].strip()
            if not text or text.startswith("#"):
                continue
            level = len(lines[i]) - len(lines[i].lstrip(" "))
            if level <= indent:
                break
            child_indent = level if child_indent is None else child_indent
            if level == child_indent and text.startswith(f"{key}:"):
                found = i
                break
        if found is None:
            break
        at, indent = found, child_indent or 0
    else:
        if "{value:" in lines[at]:
            return at
    raise UserError(f"{origin}: no one-line leaf {'.'.join(keys)} to record a fit in")
