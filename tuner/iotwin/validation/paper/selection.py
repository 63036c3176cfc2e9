"""What a paper validation works on: the published rows selected, their cases, and each
platform model those need, read once. A full run (pipeline) and the re-evaluation of its
record (check) both start here."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from iotwin.core.errors import UserError
from iotwin.model.platforms import Platform
from iotwin.validation.paper.cases import Case, KernelWorkload, LoadPlatform, build_cases
from iotwin.validation.paper.rows import PublishedRow, read_published
from iotwin.validation.paper.settings import Settings


@dataclass(frozen=True)
class PlatformCases:
    """One platform model, as loaded (its YAML's values), and the cases it simulates."""

    model: str  # as the rows name it
    platform: Platform
    cases: list[Case]


@dataclass(frozen=True)
class Selection:
    rows: list[PublishedRow]  # every selected row, the spreads' minimum and maximum among them
    platforms: list[PlatformCases]  # by model name

    @property
    def cases(self) -> list[Case]:
        return [case for part in self.platforms for case in part.cases]


def select_cases(settings: Settings, platforms: Sequence[str] | None,
                 kernels: Sequence[str] | None, load_platform: LoadPlatform,
                 kernel_workload: KernelWorkload) -> Selection:
    """The rows of ``platforms`` and ``kernels`` (None: every one) as cases, per model."""
    rows = selected_rows(settings, platforms, kernels)
    read_once = functools.cache(load_platform)
    cases = build_cases(rows, settings, read_once, kernel_workload)
    models = sorted({case.model for case in cases})
    return Selection(rows, [PlatformCases(model, read_once(model),
                                          [case for case in cases if case.model == model])
                            for model in models])


def selected_rows(settings: Settings, platforms: Sequence[str] | None,
                  kernels: Sequence[str] | None) -> list[PublishedRow]:
    """The published rows of ``platforms`` and ``kernels`` (None: every one)."""
    rows = [row for row in read_published(settings.published)
            if (not platforms or row.model in platforms)
            and (not kernels or row.kernel in kernels)]
    if not rows:
        raise UserError(f"no published row for platforms {platforms or 'any'} and kernels "
                        f"{kernels or 'any'}")
    return rows
