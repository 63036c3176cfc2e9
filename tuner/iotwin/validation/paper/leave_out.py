"""Held-out predictions: each group of a platform's cases predicted by the platform refitted
without it. Leave-one-out holds out each row in turn: what the fitted models are worth on rows
they have not seen. Leave-one-scale-out holds out each core count of a platform with rows at
several: what they are worth at a scale they were not fitted at.

The refits are independent and can run in worker processes: each is a :class:`Refit`, which
carries everything it needs and so travels to a worker as it is (pickled).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from iotwin.core.worker_pool import worker_pool
from iotwin.model.platforms import Platform
from iotwin.validation.paper.cases import Case
from iotwin.validation.paper.fit import fit_cases
from iotwin.validation.paper.prediction import (
    Predicted,
    predict_cases,
    start_worker_memo,
    worker_memo_args,
)
from iotwin.validation.paper.settings import FitBudget

#: told what starts (a progress line); run in a worker, it must be picklable
Progress = Callable[[str], None]


@dataclass(frozen=True)
class Refit:
    """The refits of one leave-out: called with a group's index, it fits ``parameters`` of
    ``platform`` to the cases outside that group and predicts the group's cases."""

    platform: Platform
    cases: Sequence[Case]
    groups: Sequence[Sequence[int]]
    parameters: Sequence[str]
    budget: FitBudget
    say: Progress
    what: str

    def __call__(self, group: int) -> list[Predicted]:
        held = set(self.groups[group])
        self.say(f"{self.platform.name}: {self.what} {group + 1}/{len(self.groups)}: "
                 f"{', '.join(self.cases[i].row.label for i in sorted(held))}")
        fitted, _ = fit_cases(self.platform,
                              [c for i, c in enumerate(self.cases) if i not in held],
                              self.parameters, self.budget)
        return predict_cases(fitted, [self.cases[i] for i in sorted(held)])


def leave_out(platform: Platform, cases: Sequence[Case], groups: Sequence[Sequence[int]],
              parameters: Sequence[str], budget: FitBudget, say: Progress = print,
              workers: int = 1, what: str = "leave-one-out") -> list[Predicted]:
    """Each group of cases predicted by the platform fitted to all the other cases.

    The refits fit the same parameters as the full fit: their choice (sensitivity) uses
    the rows' workloads and configs, never a published value. ``workers`` > 1 runs that many
    refits at once, in processes of their own (which start with this process's simulations,
    see prediction.MEMO); ``say`` must then be picklable. A case in no group is not
    predicted (rate None).
    """
    refit = Refit(platform, cases, groups, parameters, budget, say, what)
    if workers <= 1:
        found = [refit(group) for group in range(len(groups))]
    else:
        with worker_pool(workers, start_worker_memo, worker_memo_args()) as pool:
            found = pool.map(refit, range(len(groups)), chunksize=1)
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
