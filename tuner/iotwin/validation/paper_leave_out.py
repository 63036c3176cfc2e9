"""Held-out predictions: each group of a platform's cases predicted by the platform refitted
without it. Leave-one-out holds out each row in turn: what the fitted models are worth on rows
they have not seen. Leave-one-scale-out holds out each core count of a platform with rows at
several: what they are worth at a scale they were not fitted at.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence

from iotwin.model.platforms import Platform
from iotwin.validation.paper_cases import Case
from iotwin.validation.paper_fit import fit_cases
from iotwin.validation.paper_prediction import Predicted, predict_cases
from iotwin.validation.paper_settings import FitBudget

#: told what starts (a progress line)
Progress = Callable[[str], None]


def leave_out(platform: Platform, cases: Sequence[Case], groups: Sequence[Sequence[int]],
              parameters: Sequence[str], budget: FitBudget, say: Progress = print,
              workers: int = 1, what: str = "leave-one-out") -> list[Predicted]:
    """Each group of cases predicted by the platform fitted to all the other cases.

    The refits fit the same parameters as the full fit: their choice (paper_sensitivity) uses
    the rows' workloads and configs, never a published value. ``workers`` > 1 runs that many
    refits at once, in forked processes (which start with this process's simulations, see
    paper_prediction.MEMO). A case in no group is not predicted (rate None).
    """
    def held_out(group: int) -> list[Predicted]:
        held = set(groups[group])
        say(f"{platform.name}: {what} {group + 1}/{len(groups)}: "
            f"{', '.join(cases[i].row.label for i in sorted(held))}")
        fitted, _ = fit_cases(platform, [c for i, c in enumerate(cases) if i not in held],
                              parameters, budget)
        return predict_cases(fitted, [cases[i] for i in sorted(held)])

    if workers <= 1:
        found = [held_out(group) for group in range(len(groups))]
    else:
        global _forked_job
        _forked_job = held_out  # forked workers inherit it: a closure cannot be pickled
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            found = pool.map(_run_forked_job, range(len(groups)), chunksize=1)
    predicted = [Predicted({}, None)] * len(cases)
    for group, predictions in zip(groups, found, strict=True):
        for i, prediction in zip(sorted(group), predictions, strict=True):
            predicted[i] = prediction
    return predicted


def leave_one_out(platform: Platform, cases: Sequence[Case], parameters: Sequence[str],
                  budget: FitBudget, say: Progress = print, workers: int = 1
                  ) -> list[Predicted]:
    """Each case predicted by the platform fitted to all the other cases."""
    return leave_out(platform, cases, [[i] for i in range(len(cases))], parameters, budget,
                     say, workers)


def scale_groups(cases: Sequence[Case]) -> list[list[int]]:
    """The cases by core count, when a platform has rows at more than one scale."""
    by_cores: dict[int, list[int]] = {}
    for i, case in enumerate(cases):
        by_cores.setdefault(case.row.cores, []).append(i)
    return list(by_cores.values()) if len(by_cores) > 1 else []


def leave_one_scale_out(platform: Platform, cases: Sequence[Case], parameters: Sequence[str],
                        budget: FitBudget, say: Progress = print, workers: int = 1
                        ) -> list[Predicted]:
    """Each scale's cases predicted by the platform fitted to the other scales' cases only
    (hopper: fitted at 128 cores, predicting 512, and the reverse): how the models extrapolate
    in scale, which leave-one-out, with rows of both scales in every refit, does not test."""
    return leave_out(platform, cases, scale_groups(cases), parameters, budget, say, workers,
                     "leave-one-scale-out")


_forked_job: Callable[[int], list[Predicted]] | None = None


def _run_forked_job(index: int) -> list[Predicted]:
    assert _forked_job is not None
    return _forked_job(index)
