"""A prior for a new program's configs from earlier campaigns' residuals on the same platform.

Each earlier config's residual (log measured / simulated, centred on its campaign's mean:
iotwin.tuning.transfer) is explained by the settings that make it, one additive log factor per
``key=value`` (iotwin.config.settings), fitted by ridge regression: a Gaussian prior at 0 on
every factor worth ``shrink`` configs, so that a setting few earlier configs had moves little.
A new config's transferred residual is the sum of its settings' factors (0 for a setting no
earlier campaign ran); sim-screened adds it to the simulator's log rate (iotwin.search.screened),
so that its first batch leans where the model erred before, and its runs correct the rest.
Settings are compared as the config's ``key=value``, so a factor carries over between programs
and spaces that set the same keys.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from iotwin.config.settings import flat_settings
from iotwin.config.types import Config


@dataclass(frozen=True)
class SettingFactors:
    """One log factor per setting (``key=value``) learnt from earlier campaigns' residuals."""

    factors: Mapping[str, float]
    configs: int  # the earlier measured configs they were learnt from

    @classmethod
    def fitted(cls, residuals: Sequence[tuple[Config, float]], shrink: float) -> SettingFactors:
        """The additive log factor of each setting that explains ``residuals`` best, every
        factor pulled toward 0 with the weight of ``shrink`` configs."""
        if not residuals:
            return cls({}, 0)
        rows = [flat_settings(config) for config, _ in residuals]
        settings = sorted({setting for row in rows for setting in row})
        column = {setting: i for i, setting in enumerate(settings)}
        design = np.zeros((len(rows), len(settings)))
        for i, row in enumerate(rows):
            design[i, [column[s] for s in row]] = 1.0
        target = np.array([residual for _, residual in residuals])
        weights = np.linalg.solve(design.T @ design + shrink * np.eye(len(settings)),
                                  design.T @ target)
        return cls({s: float(w) for s, w in zip(settings, weights, strict=True)},
                   len(residuals))

    def of(self, config: Config) -> float:
        """The transferred residual (a log factor) of ``config``."""
        return sum(self.factors.get(setting, 0.0) for setting in flat_settings(config))
