"""The paper validation's report: the README's tables, results.json, calibrations.json, and
fitted values recorded in the platform YAMLs."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from iotwin.core.errors import UserError
from iotwin.core.readme_block import fill_block
from iotwin.validation.paper.results import MODELS, PaperValidation


def markdown(result: PaperValidation) -> str:
    """The tables and metrics, as validation/paper/README.md shows them."""
    sections = [_figures_table(result), _rows_table(result), _speedups_table(result),
                _sensitivity_table(result), _fits_table(result)]
    if result.spreads:
        sections.append(_spreads_table(result))
    return "\n\n".join("\n".join(lines) for lines in sections) + "\n"


_MODEL_TITLES = {"prior": "prior (before any fit)", "fitted": "fitted", "loo": "leave-one-out",
                 "scale_out": "leave-one-scale-out"}


def _table(header: Sequence[str], align: str, rows: Iterable[Sequence[str]]) -> list[str]:
    """A markdown table: ``align`` has one letter per column, ``l`` (left) or ``r`` (right)."""
    rule = "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"
    return [_table_row(header), rule, *(_table_row(cells) for cells in rows)]


def _table_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _figures_table(result: PaperValidation) -> list[str]:
    scopes = [("all", result.metrics["overall"]), *result.metrics["per_platform"].items()]
    # Leave-one-scale-out runs only where a platform has rows at two scales.
    rows = [_figures_row(scope, which, figures.get(which))
            for scope, figures in scopes for which in MODELS
            if which != "scale_out" or which in figures]
    return _table(["platform", "model", "rows", "Spearman", "median abs error",
                   "90th pct abs error", "tuned above default", "of which published configs"],
                  "llrrrrrr", rows)


def _figures_row(scope: str, which: str, m: Mapping[str, Any] | None) -> list[str]:
    if m is None:
        return [scope, _MODEL_TITLES[which], "not run", "", "", "", "", ""]
    failed = f" ({m['failed']} failed)" if m["failed"] else ""
    return [scope, _MODEL_TITLES[which], f"{m['rows'] - m['failed']}{failed}",
            _num(m["spearman"]), _abs_pct(m["median_abs_error"]), _abs_pct(m["p90_abs_error"]),
            f"{m['tuned_above_default']}/{m['cases']}",
            f"{m['published_configs_above']}/{m['published_config_cases']}"]


def _rows_table(result: PaperValidation) -> list[str]:
    refitted = {which: {r.model for r in result.rows if getattr(r, f"{which}_mbs")}
                for which in ("loo", "scale_out")}

    def held_out(r: Any, which: str) -> list[str]:
        ran = r.model in refitted[which]
        return [_mbs(getattr(r, f"{which}_mbs")) if ran else "not run",
                _pct(r.error(which)) if ran else ""]

    rows = [[r.label, r.origin if r.setting == "tuned" else "", f"{r.published_mbs:.0f}",
             _mbs(r.prior_mbs), _mbs(r.fitted_mbs), _pct(r.error("fitted")),
             *held_out(r, "loo"), *held_out(r, "scale_out")]
            for r in result.rows]
    return _table(["row", "tuned config", "published MB/s", "prior MB/s", "fitted MB/s",
                   "fit error", "leave-one-out MB/s", "LOO error",
                   "leave-one-scale-out MB/s", "LOSO error"], "llrrrrrrrr", rows)


def _speedups_table(result: PaperValidation) -> list[str]:
    rows = [[c.label, c.origin, f"{c.published_speedup:.2f}x", _times(c.prior_speedup),
             _times(c.fitted_speedup), _times(c.loo_speedup), _times(c.scale_out_speedup)]
            for c in result.cases]
    return _table(["experiment", "tuned config", "published speedup", "prior", "fitted",
                   "leave-one-out", "leave-one-scale-out"], "llrrrrr", rows)


def _sensitivity_table(result: PaperValidation) -> list[str]:
    rows = [[model, e.name, f"{e.lower:.4g} - {e.upper:.4g}", f"{math.exp(e.largest):.2f}x",
             f"{'**yes**, ' if e.chosen else 'no: '}{e.reason}"]
            for model, effects in result.effects.items()
            for e in sorted(effects, key=lambda e: (not e.chosen, -e.largest))]
    return _table(["platform", "bounded parameter", "bounds",
                   "largest row change, lower to upper bound", "fitted?"], "lllrl", rows)


def _fits_table(result: PaperValidation) -> list[str]:
    rows = []
    for fit in result.fits:
        state = (f"{'converged' if fit.converged else 'not converged'}, {fit.evaluations} "
                 f"evaluations, loss {fit.loss_before:.3g} -> {fit.loss_after:.3g}")
        bounds = result.on_bound.get(fit.model, [])
        rows += [[fit.model, result.calibration_ids[fit.model], name, f"{fit.before[name]:.4g}",
                  f"{value:.4g}", "yes" if name in bounds else "", state]
                 for name, value in fit.parameters.items()]
    return _table(["model", "calibration", "parameter", "prior", "fitted", "on a bound",
                   "fit"], "lllrrll", rows)


def _spreads_table(result: PaperValidation) -> list[str]:
    rows = [[s.label, f"{s.published_min_s:.0f}-{s.published_max_s:.0f}",
             f"{s.published_ratio:.1f}x",
             f"{_num(s.simulated_min_s)}-{_num(s.simulated_max_s)} ({s.configs})",
             _times(s.simulated_ratio)] for s in result.spreads]
    return _table(["experiment", "published min-max s", "ratio",
                   "simulated min-max s (configs)", "ratio"], "llrlr", rows)


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
        "platform": f.model, "parameters": f.parameters, "priors": f.before,
        "loss_before": f.loss_before, "loss_after": f.loss_after, "converged": f.converged,
        "on_bound": result.on_bound[f.model],
        "fit_error": result.metrics["per_platform"][f.model]["fitted"]["median_abs_error"]}
        for f in result.fits}
    (directory / "calibrations.json").write_text(json.dumps(calibrations, indent=1) + "\n")
    fill_block(directory / "README.md", "paper-validation", markdown(result))


def record_fitted(platform_yaml: Path, calibration: str, values: Mapping[str, float]) -> None:
    """Set fitted values in a platform YAML, marked ``fitted: <calibration>``, in place.

    Each value is a one-line leaf ``name: {value: ..., bounds: ..., source: ...}`` under its
    section; only that line changes, so the file's comments and layout stay as they are. The
    value it replaces is kept as ``prior`` the first time (the value before any fit).

    The calibration replaces the earlier ones of its family (``paper-hopper-*``) as a whole:
    a leaf they fitted that this one leaves out goes back to its prior, since this fit ran
    with it there.
    """
    lines = platform_yaml.read_text().splitlines(keepends=True)
    family = re.compile(rf"fitted: {re.escape(calibration.rsplit('-', 1)[0])}-")
    for at, line in enumerate(lines):
        if family.search(line) and _PRIOR.search(line):
            lines[at] = _leaf_with_value(line, _prior_of(line))
    for dotted, value in values.items():
        at = _leaf_line(lines, dotted.split("."), platform_yaml)
        lines[at] = _leaf_with_value(lines[at], f"{value:.6g}",
                                     f" fitted: {calibration}, prior: {_prior_of(lines[at])},")
    platform_yaml.write_text("".join(lines))


_PRIOR = re.compile(r"prior: ([^,}]*)[,}]")
_VALUE = re.compile(r"\{value: ([^,}]+),")
_MARKS = re.compile(r"\s*(fitted|prior): [^,}]*,")


def _prior_of(leaf: str) -> str:
    """A one-line leaf's value before any fit: its prior, or its value if it has none."""
    found = _PRIOR.search(leaf) or _VALUE.search(leaf)
    assert found is not None  # _leaf_line found "{value:" on this line
    return found.group(1).strip()


def _leaf_with_value(leaf: str, value: str, marks: str = "") -> str:
    """A one-line leaf with ``value`` and ``marks`` in place of its value, fitted and prior."""
    return _VALUE.sub(f"{{value: {value},{marks}", _MARKS.sub("", leaf), count=1)


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
