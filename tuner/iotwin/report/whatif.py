"""A what-if study's answers (iotwin.studies.whatif) as a table, JSON and a figure: each rate
with its validated band and its ceiling, what binds each run, and the best ceiling any layout
reaches from the placement."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from iotwin.core.figures import pyplot
from iotwin.model.sim import SimResult
from iotwin.report.mechanisms import as_json as mechanism_json
from iotwin.report.mechanisms import percent, rate_text, reasons
from iotwin.studies.whatif import Prediction

#: bar colours of the runs a prediction answers
COLOURS = {"default": "#9aa5b1", "tuned": "#1f77b4", "yours": "#ff7f0e"}


def _mbs(value: float | None, width: int) -> str:
    return f"{value:{width}.1f}" if value is not None else f"{'failed':>{width}}"


def _band(band: tuple[float, float] | None) -> str:
    return f"[{band[0]:.0f}-{band[1]:.0f}]" if band else "[no band]"


def _speedup_band(band: tuple[float, float] | None) -> str:
    return f"[{band[0]:.2f}-{band[1]:.2f}]" if band else "[no band]"


def _of_ceiling(result: SimResult | None) -> str:
    if result is None or not result.ok:
        return "-"
    if result.ceiling_mbs is None:
        return "no ceiling"
    return f"{percent(result.ceiling_fraction)} of {rate_text(result.ceiling_mbs)}"


def _bands(p: Prediction) -> dict[str, tuple[float, float] | None]:
    return {"default": p.default_band, "tuned": p.tuned_band, "yours": p.given_band}


def table(predictions: list[Prediction]) -> str:
    """One line per prediction, each rate with its validated band (the 90th percentile of the
    model's held-out errors) and the share of its ceiling it reaches, the speedup with the band
    both rates' bands allow; below it, what binds
    each run; warnings last."""
    yours = any(p.given is not None for p in predictions)
    width = max([10, *(len(p.platform) for p in predictions)])
    head = (f"{'platform':<{width}} {'variant':<24} {'default MB/s [band]':>26} "
            f"{'of its ceiling':>20} {'tuned MB/s [band]':>26} {'of its ceiling':>20} "
            f"{'x [band]':>18} {'best ceiling':>13}")
    if yours:
        head += f" {'yours MB/s [band]':>26} {'of its ceiling':>20}"
    lines = [head + "  tuned settings"]
    warnings: list[str] = []
    notes: list[str] = []
    for p in predictions:
        default = f"{_mbs(p.default_mbs, 9)} {_band(p.default_band):>16}"
        tuned = (f"{_mbs(p.tuned_mbs, 9)} {_band(p.tuned_band):>16}" if p.strategy
                 else f"{'-':>26}")
        speedup = (f"{p.speedup:5.2f} {_speedup_band(p.speedup_band):>12}" if p.speedup
                   else f"{'-':>18}")
        line = (f"{p.platform:<{width}} {p.variant:<24} {default:>26} {_of_ceiling(p.default):>20} "
                f"{tuned:>26} {_of_ceiling(p.tuned):>20} {speedup} "
                f"{rate_text(p.best_ceiling_mbs):>13}")
        if yours:
            given = f"{_mbs(p.given_mbs, 9)} {_band(p.given_band):>16}" if p.given else "-"
            line += f" {given:>26} {_of_ceiling(p.given):>20}"
        config = p.tuned_settings or ("(site default)" if p.strategy else "-")
        lines.append(f"{line}  {config}" + (f"  ({p.note})" if p.note else ""))
        lines.append(f"  {reasons(p.runs(), {'tuned': p.tuned_settings})}")
        if p.warning and p.warning not in warnings:
            warnings.append(p.warning)
        calibrated = f"{p.platform}: simulated as fitted by {p.band_source}"
        if p.band_source.startswith("calibration") and calibrated not in notes:
            notes.append(calibrated)
    lines += [f"calibrated: {n}" for n in notes] + [f"warning: {w}" for w in warnings]
    return "\n".join(lines)


def as_json(predictions: list[Prediction]) -> list[dict[str, Any]]:
    """Each prediction: its runs (rate, band, ceiling, what binds it), the tuned config, the
    search, the validated error's band source and warnings."""
    out = []
    for p in predictions:
        runs = {label: {"rate_mbs": r.rate_mbs if r.ok else None, "error": r.error,
                        "band": _bands(p)[label], **mechanism_json(r)}
                for label, r in p.runs().items()}
        out.append({"platform": p.platform, "variant": p.variant, **runs,
                    "speedup": p.speedup, "speedup_band": p.speedup_band,
                    "best_ceiling_mbs": p.best_ceiling_mbs,
                    "tuned_config": p.tuned_config, "tuned_settings": p.tuned_settings,
                    "strategy": p.strategy, "simulations": p.simulations, "note": p.note,
                    "band_error": p.band_error, "band_source": p.band_source,
                    "warning": p.warning})
    return out


def plot(predictions: list[Prediction], title: str, path: Path) -> None:
    """Bars of each prediction's runs, each with its band as an error bar and its ceiling as
    a mark over it; the best ceiling any layout reaches as a dashed mark over the group."""
    plt = pyplot()
    labels = [(p.platform if p.variant == "default" else f"{p.platform}\n{p.variant}")
              + (f"\n({p.note.split(':')[0]})" if p.note else "")
              + ("\n(no validation)" if not p.default_band
                 else "\n(beyond validated\nscales)" if "checked at" in p.warning else "")
              for p in predictions]
    kinds = [k for k in COLOURS if any(k in p.runs() for p in predictions)]
    width = 0.8 / len(kinds)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.8 * len(labels)), 4.4))
    for k, kind in enumerate(kinds):
        xs = [x - 0.4 + width * (k + 0.5) for x in range(len(predictions))]
        runs = [p.runs().get(kind) for p in predictions]
        rates = [r.rate_mbs if r is not None and r.ok and r.rate_mbs else 0.0 for r in runs]
        ax.bar(xs, rates, width, label=kind, color=COLOURS[kind])
        _error_bars(ax, xs, [(rate, _bands(p)[kind]) for rate, p in
                             zip(rates, predictions, strict=True)])
        ceilings = [(x, r.ceiling_mbs) for x, r in zip(xs, runs, strict=True)
                    if r is not None and r.ceiling_mbs]
        ax.scatter([x for x, _ in ceilings], [c for _, c in ceilings], marker="_",
                   s=(500 * width) ** 1.2, color="#d62728", zorder=3,
                   label="its ceiling" if k == 0 else None)
    best = [(x, p.best_ceiling_mbs) for x, p in enumerate(predictions) if p.best_ceiling_mbs]
    ax.scatter([x for x, _ in best], [b for _, b in best], marker="_", s=1400, color="#d62728",
               alpha=0.35, zorder=2, label="best ceiling of any layout")
    _speedups(ax, predictions, kinds, width)
    ax.set_yscale("log")
    ax.set_xticks(range(len(predictions)), labels, fontsize=8)
    ax.set_ylabel("predicted write rate (MB/s, log scale)")
    ax.set_title(title + "\nerror bars: 90% of the model's held-out validation errors; red "
                 "marks: the ceiling of each run", fontsize=9)
    label_lines = max(label.count("\n") for label in labels)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.09 - 0.045 * label_lines),
              ncol=5, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def _speedups(ax: Any, predictions: list[Prediction], kinds: list[str], width: float) -> None:
    """Tuned over default above the tuned bar's error bar."""
    if "tuned" not in kinds:
        return
    offset = -0.4 + width * (kinds.index("tuned") + 0.5)
    for x, p in enumerate(predictions):
        if p.speedup and p.tuned_mbs:
            top = p.tuned_band[1] if p.tuned_band else p.tuned_mbs
            ax.annotate(f"x{p.speedup:.1f}", (x + offset, top), xytext=(0, 3),
                        textcoords="offset points", ha="center", fontsize=7)


def _error_bars(ax: Any, xs: list[float],
                rates: list[tuple[float | None, tuple[float, float] | None]]) -> None:
    """The bands of the bars that have one, as error bars."""
    banded = [(x, rate, band) for x, (rate, band) in zip(xs, rates, strict=True)
              if rate and band and math.isfinite(rate)]
    if banded:
        ax.errorbar([x for x, _, _ in banded], [r for _, r, _ in banded],
                    yerr=[[r - b[0] for _, r, b in banded], [b[1] - r for _, r, b in banded]],
                    fmt="none", ecolor="black", elinewidth=1, capsize=3)


#: a band is the 90th percentile of the model's held-out errors: as a log-normal error, 1.2816
#: standard deviations
_Z90 = 1.2816


def verdict(predictions: list[Prediction]) -> str:
    """Which platform wins (its best rate: tuned where searched, else default) and with what
    confidence: whether the bands overlap, and the probability that it is faster than the
    runner-up if each model's error is log-normal with its band as the 90th percentile and
    the two errors independent."""
    best: list[tuple[float, Prediction]] = []
    for p in predictions:
        rate = p.tuned_mbs or p.default_mbs
        if rate:
            best.append((rate, p))
    if len({p.platform for _, p in best}) < 2:
        return ""
    best.sort(key=lambda pair: -pair[0])
    (rate, first), (second_rate, second) = best[0], next(
        pair for pair in best[1:] if pair[1].platform != best[0][1].platform)
    what = "tuned" if first.tuned_mbs else "default"
    name = first.platform + ("" if first.variant == "default" else f" ({first.variant})")
    head = (f"verdict: {name} wins ({what} {rate_text(rate)} against "
            f"{second.platform}'s {rate_text(second_rate)}, {rate / second_rate:.2f}x)")
    if first.band_error is None or second.band_error is None:
        return head + "; no band on one of them: no confidence can be given"
    sigma = math.hypot(math.log1p(first.band_error), math.log1p(second.band_error)) / _Z90
    chance = 0.5 * (1 + math.erf(math.log(rate / second_rate) / (sigma * math.sqrt(2))))
    overlap = (rate / (1 + first.band_error)) <= second_rate * (1 + second.band_error)
    return (head + f"; {'the bands overlap' if overlap else 'beyond both bands'}: "
            f"P({first.platform} faster) = {100 * chance:.0f} % (errors log-normal, bands "
            f"their 90th percentile, independent)")
