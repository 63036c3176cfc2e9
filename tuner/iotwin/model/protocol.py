"""What the tuner needs of a performance model: predict rates of configs, refit to
measurements (:class:`Model`), and what a refit found (:class:`Fit`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from iotwin.config.types import Config


@dataclass(frozen=True)
class Fit:
    """A model refit: the parameters it found and its error on the data it was fitted to."""

    parameters: dict[str, float]
    fit_error: float | None
    heldout_error: float | None = None
    details: dict[str, Any] = field(default_factory=dict)


class Model(Protocol):
    """Predicts rates of configs and refits itself to measurements (the simulator, or a fake)."""

    platform_name: str

    def predict(self, configs: Sequence[Config]) -> list[float | None]: ...

    def fit(self, measured: Sequence[tuple[Config, float]]) -> Fit: ...

    def use(self, parameters: Mapping[str, float]) -> None:
        """Adopt parameters fitted before (a resumed campaign's stored calibration);
        ValueError naming a parameter the model has no such value of."""
        ...
