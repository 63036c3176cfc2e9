"""How finely a measured table can tell configs apart (iotwin.executors.table.Landscape).

The benchmark judges a recommendation by its median against the table's best median. When
the repetitions spread widely, the best median is partly luck: another five runs of each
config would crown another one. These figures say how much of "within X% of the optimum"
a table can resolve:

    resolution(table):
        for each of `resamples` bootstrap tables (each config's runs drawn with
        replacement from its own runs: configs may have unequal numbers of them):
            note which config has the best median, and each config's median
        optimum_kept   <- share of the resamples in which the table's optimum stays best
        contenders     <- configs that are best in at least one resample
        median_se      <- median over configs of the bootstrap spread (standard deviation)
                          of its median, relative to its median
        near_best      <- configs whose median is within `near` of the optimum
        agreement      <- Spearman of their medians between two disjoint halves of each
                          config's runs, averaged over random splits: does the table order
                          the near-best configs reproducibly?
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iotwin.core.stats import row_spearman
from iotwin.executors.table import Landscape


@dataclass(frozen=True)
class Resolution:
    optimum_kept: float  # share of bootstrap resamples in which the optimum stays best
    contenders: int  # configs best in at least one resample
    median_se: float  # relative standard error of a config's median (median over configs)
    near: float  # what counts as near the best (0.2: within 20% of the optimum)
    near_best: int  # configs that near
    agreement: float | None  # split-half Spearman among them (None: fewer than 4, or < 4 passes)


def resolution(table: Landscape, *, seed: int = 0, resamples: int = 1000,
               near: float = 0.2) -> Resolution:
    rates, medians = as_arrays(table)
    rng = np.random.default_rng(seed)
    runs = _runs_first(rates)
    counts = np.count_nonzero(~np.isnan(runs), axis=1)
    runs, counts = runs[counts > 0], counts[counts > 0]
    medians = medians[~np.isnan(medians)]
    beyond = np.arange(runs.shape[1])[None, :] >= counts[:, None]  # a config's empty cells
    best_counts = np.zeros(len(medians))
    boot = np.empty((resamples, len(medians)))
    for i in range(resamples):
        draw = (rng.random(runs.shape) * counts[:, None]).astype(int)  # among its own runs
        drawn = np.where(beyond, np.nan, np.take_along_axis(runs, draw, axis=1))
        boot[i] = np.nanmedian(drawn, axis=1)  # as many draws as the config has runs
        best_counts[np.argmax(boot[i])] += 1
    optimum = int(np.nanargmax(medians))
    near_best = medians >= (1 - near) * np.nanmax(medians)
    return Resolution(
        optimum_kept=float(best_counts[optimum] / resamples),
        contenders=int(np.count_nonzero(best_counts)),
        median_se=float(np.nanmedian(np.nanstd(boot, axis=0) / medians)),
        near=near, near_best=int(np.count_nonzero(near_best)),
        agreement=_split_half_agreement(runs[near_best], rng))


def as_arrays(table: Landscape) -> tuple[np.ndarray, np.ndarray]:
    """The table's rates [config][pass] and its medians [config], NaN where none."""
    rates = np.array([[r if r else np.nan for r in row] for row in table.rates], dtype=float)
    medians = np.array([m if m else np.nan for m in table.medians()], dtype=float)
    return rates, medians


def _runs_first(rates: np.ndarray) -> np.ndarray:
    """Each config's runs moved to the front of its row, the empty cells (NaN) after them."""
    order = np.argsort(np.isnan(rates), axis=1, kind="stable")
    return np.take_along_axis(rates, order, axis=1)


def _split_half_agreement(rates: np.ndarray, rng: np.random.Generator,
                          splits: int = 200) -> float | None:
    """Spearman of the configs' medians between two halves of each config's own runs, split
    at random, averaged over the splits (None: fewer than 4 configs run twice, or no config
    run 4 times). Each config is halved among its own runs: an imported table's configs have
    unequal numbers of them, and a split of the table's columns could leave one with none."""
    counts = np.count_nonzero(~np.isnan(rates), axis=1)
    rates, counts = rates[counts >= 2], counts[counts >= 2]
    if rates.shape[0] < 4 or counts.max(initial=0) < 4:
        return None
    half = (counts // 2)[:, None]
    present = ~np.isnan(rates)
    first, second = np.empty((splits, rates.shape[0])), np.empty((splits, rates.shape[0]))
    for split in range(splits):
        keys = np.where(present, rng.random(rates.shape), np.inf)  # the empty cells last
        rank = np.argsort(np.argsort(keys, axis=1), axis=1)
        first[split] = np.nanmedian(np.where(rank < half, rates, np.nan), axis=1)
        second[split] = np.nanmedian(np.where((rank >= half) & present, rates, np.nan), axis=1)
    return float(np.nanmean(row_spearman(first, second)))
