"""Where a model-guided search loses on a measured table: the configs its model ties.

sim-screened runs what its model predicts best. When the model predicts a group of configs
alike, it cannot say which of them is the table's optimum, and the search has to spend real
runs inside the group. Whether that is the model's fault depends on whether the table itself
tells the group apart:

    ties(table, predicted):
        tied       <- configs predicted within `tolerance` of the model's best
        spread     <- their lowest and highest median, relative to the table's optimum
        null       <- the lowest / highest median they would show if they all had one true
                      rate: each tied config's passes redrawn from the group's pooled
                      residuals (a run / its config's median), `resamples` times; 5th and
                      95th percentile
        friedman_p <- Friedman test of the tied configs' passes (a pass runs every config
                      once, so it is a block): small when the table orders the group
        optimum_place <- the table optimum's place in the model's order (1: first)
        order_within  <- Spearman of the model's predictions against the medians inside the
                      tied group: how the model orders what it ties (a learnt surrogate's
                      order is judged the same way, :func:`spearman_within`)

A spread inside the null interval with a large Friedman p means the model's tie is the
table's too: a search that must land within a few percent of the optimum is then looking for
the luckiest median of the group, which no model of the machine can predict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from iotwin.core.stats import friedman_p, paired_spearman, spearman
from iotwin.executors.table import Landscape
from iotwin.studies.table_resolution import as_arrays


@dataclass(frozen=True)
class Ties:
    tied: int  # configs predicted within `tolerance` of the model's best
    tolerance: float
    optimum_tied: bool  # whether the table's optimum is among them
    optimum_place: int  # the optimum's place in the model's order (1: first)
    spread: tuple[float, float]  # lowest, highest median of the tied / the optimum
    null: tuple[float, float]  # 5th, 95th percentile of lowest / highest under one true rate
    friedman_p: float | None  # None: fewer than 3 tied configs with every pass measured
    spearman: float  # the model against the table's medians, every config
    group: tuple[int, ...]  # the tied configs (indices of the table's)
    order_within: float | None  # the model against the medians inside the group (None: < 3)


def ties(table: Landscape, predicted: Sequence[float | None], *, tolerance: float = 0.01,
         resamples: int = 2000, seed: int = 0) -> Ties:
    rates, medians = as_arrays(table)
    model = np.array([p if p else 0.0 for p in predicted], dtype=float)
    tied = tied_group(predicted, tolerance)
    optimum = int(np.nanargmax(medians))
    order = list(np.argsort(-model, kind="stable"))
    known = medians[tied][~np.isnan(medians[tied])]
    complete = [row for row in rates[tied] if not np.isnan(row).any()]
    return Ties(
        tied=len(tied), tolerance=tolerance, optimum_tied=optimum in tied,
        optimum_place=order.index(optimum) + 1,
        spread=(float(known.min() / medians[optimum]), float(known.max() / medians[optimum])),
        null=_null_spread(rates[tied], medians[tied], resamples, seed),
        friedman_p=friedman_p(*complete) if len(complete) >= 3 else None,
        spearman=paired_spearman(predicted, table.medians()),
        group=tuple(int(i) for i in tied),
        order_within=spearman_within(tied, predicted, table.medians()))


def tied_group(predicted: Sequence[float | None], tolerance: float = 0.01) -> np.ndarray:
    """Indices of the configs predicted within ``tolerance`` of the best prediction."""
    model = np.array([p if p else 0.0 for p in predicted], dtype=float)
    return np.flatnonzero(model >= (1 - tolerance) * model.max())


def spearman_within(group: Sequence[int] | np.ndarray, predicted: Sequence[float | None],
                    medians: Sequence[float | None]) -> float | None:
    """Spearman of ``predicted`` against ``medians`` over the configs of ``group`` that have
    both (None: fewer than 3, or either side all alike: no order to compare)."""
    pairs = [(p, m) for i in group if (p := predicted[i]) and (m := medians[i])]
    first, second = [p for p, _ in pairs], [m for _, m in pairs]
    if len(pairs) < 3 or len(set(first)) < 2 or len(set(second)) < 2:
        return None
    return spearman(first, second)


def _null_spread(rates: np.ndarray, medians: np.ndarray, resamples: int,
                 seed: int) -> tuple[float, float]:
    residuals = (rates / medians[:, None]).ravel()
    residuals = residuals[~np.isnan(residuals)]
    if len(rates) < 2 or not len(residuals):
        return (1.0, 1.0)
    rng = np.random.default_rng(seed)
    drawn = rng.choice(residuals, size=(resamples, *rates.shape))
    group = np.median(drawn, axis=2)
    low, high = np.percentile(group.min(axis=1) / group.max(axis=1), [5, 95])
    return (float(low), float(high))


def ties_text(found: Ties) -> str:
    place = f"the model's #{found.optimum_place}"
    if found.tied == 1:
        return (f"Spearman {found.spearman:.2f}; its best config (no other predicted within "
                f"{100 * found.tolerance:g}%) measures {100 * found.spread[0]:.0f}% of the "
                f"optimum"
                + ("" if found.optimum_tied else f", which is {place}"))
    optimum = (f"the optimum among them ({place})" if found.optimum_tied
               else f"the optimum not among them ({place})")
    within = ("" if found.order_within is None else
              f", the model orders them against their medians with Spearman "
              f"{found.order_within:.2f}")
    friedman = ("" if found.friedman_p is None
                else f"; Friedman p = {found.friedman_p:.2f} over the passes")
    return (f"Spearman {found.spearman:.2f}; {found.tied} configs predicted within "
            f"{100 * found.tolerance:g}% of its best, {optimum}; their medians span "
            f"{100 * found.spread[0]:.0f}-{100 * found.spread[1]:.0f}% of the optimum"
            f"{within}; were they one true rate, this table's noise alone would put their "
            f"lowest median at "
            f"{100 * found.null[0]:.0f}-{100 * found.null[1]:.0f}% of their highest "
            f"(90%){friedman}")
