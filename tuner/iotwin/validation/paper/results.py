"""The paper validation's record: each row's published and simulated rates, each experiment's
speedups, each platform's fit and sensitivity scan, the figures, and their round trip through
``validation/paper/results.json`` (and a ``partial`` directory's ``MODEL.json``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from iotwin.config.types import Config
from iotwin.validation.paper.fit import PlatformFit
from iotwin.validation.paper.sensitivity import ParameterEffect

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_Record = TypeVar("_Record", bound="DataclassInstance")

#: the models each row is predicted by: before any fit, fitted, and the two held-out refits
MODELS = ("prior", "fitted", "loo", "scale_out")


@dataclass
class RowResult:
    label: str
    source: str
    model: str
    kernel: str
    cores: int
    setting: str
    origin: str
    published_mbs: float
    prior_mbs: float | None  # the platform model before any fit (its YAML priors)
    fitted_mbs: float | None
    loo_mbs: float | None
    config: Config
    scale_out_mbs: float | None = None  # fitted without any row of this row's scale

    def error(self, which: str) -> float | None:
        predicted = getattr(self, f"{which}_mbs")
        return predicted / self.published_mbs - 1 if predicted else None


@dataclass
class SpeedupCase:
    """Default vs tuned of one experiment: does the model rank them as the paper measured?"""

    label: str
    origin: str  # how the tuned config was chosen
    published_speedup: float
    prior_speedup: float | None
    fitted_speedup: float | None
    loo_speedup: float | None
    scale_out_speedup: float | None = None

    def ranks_tuned_above(self, which: str) -> bool:
        """Whether model ``which`` (prior, fitted, loo) simulates tuned above default."""
        speedup = getattr(self, f"{which}_speedup")
        return bool(speedup and speedup > 1)


@dataclass
class Spread:
    """The poster's min / max observed runtimes against the model's over a sample of its space."""

    label: str
    published_min_s: float
    published_max_s: float
    simulated_min_s: float | None
    simulated_max_s: float | None
    configs: int

    @property
    def published_ratio(self) -> float:
        return self.published_max_s / self.published_min_s

    @property
    def simulated_ratio(self) -> float | None:
        if self.simulated_min_s and self.simulated_max_s:
            return self.simulated_max_s / self.simulated_min_s
        return None


class RowErrors(TypedDict):
    """How far one model's rows are from the published ones."""

    rows: int
    median_abs_error: float | None  # of |predicted / published - 1|
    p90_abs_error: float | None
    spearman: float | None
    failed: int  # rows the model could not simulate


class ModelFigures(RowErrors):
    """One model's figures: its row errors and how often it ranks tuned above default."""

    tuned_above_default: int
    published_configs_above: int  # of those, the experiments with published tuned configs
    cases: int
    published_config_cases: int


#: the figures of each model that ran (MODELS), by model
Figures = dict[str, ModelFigures]


class Metrics(TypedDict):
    overall: Figures
    per_platform: dict[str, Figures]


@dataclass
class PlatformPart:
    """One platform's share of the validation (what ``partial`` directories keep)."""

    rows: list[RowResult]
    fit: PlatformFit
    spreads: list[Spread]
    effects: list[ParameterEffect]
    on_bound: list[str]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlatformPart:
        return cls([RowResult(**r) for r in data["rows"]], PlatformFit(**data["fit"]),
                   [Spread(**s) for s in data["spreads"]],
                   [ParameterEffect(**e) for e in data["effects"]], list(data["on_bound"]))


@dataclass
class PaperValidation:
    rows: list[RowResult]
    cases: list[SpeedupCase]
    fits: list[PlatformFit]
    spreads: list[Spread]
    metrics: Metrics
    calibration_ids: dict[str, str]
    effects: dict[str, list[ParameterEffect]]  # per platform: the sensitivity scan
    on_bound: dict[str, list[str]]  # per platform: fitted parameters that ended on a bound

    def to_json(self) -> dict[str, Any]:
        return {"metrics": self.metrics, "calibration_ids": self.calibration_ids,
                "fits": [asdict(f) for f in self.fits], "rows": [asdict(r) for r in self.rows],
                "cases": [{**asdict(c), **{f"{w}_ranks_tuned_above": c.ranks_tuned_above(w)
                                           for w in MODELS}} for c in self.cases],
                "sensitivity": {m: [asdict(e) for e in found]
                                for m, found in self.effects.items()},
                "on_bound": self.on_bound,
                "spreads": [{**asdict(s), "published_ratio": s.published_ratio,
                             "simulated_ratio": s.simulated_ratio} for s in self.spreads]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PaperValidation:
        """The validation as ``results.json`` records it (the derived keys dropped)."""
        return cls(rows=[_record(RowResult, r) for r in data["rows"]],
                   cases=[_record(SpeedupCase, c) for c in data["cases"]],
                   fits=[_record(PlatformFit, f) for f in data["fits"]],
                   spreads=[_record(Spread, s) for s in data["spreads"]],
                   metrics=_metrics(data["metrics"]),
                   calibration_ids=dict(data["calibration_ids"]),
                   effects={model: [_record(ParameterEffect, e) for e in found]
                            for model, found in data["sensitivity"].items()},
                   on_bound={model: list(names) for model, names in data["on_bound"].items()})


def _record(kind: type[_Record], data: Mapping[str, Any]) -> _Record:
    """A dataclass from its asdict() form, keys that are not its fields left out."""
    return kind(**{f.name: data[f.name] for f in fields(kind) if f.name in data})


def _metrics(data: Mapping[str, Any]) -> Metrics:
    return Metrics(overall=data["overall"], per_platform=data["per_platform"])


def calibration_id(fit: PlatformFit) -> str:
    """A stable name for a fit: the model and a digest of its fitted values."""
    digest = hashlib.sha1(json.dumps(fit.parameters, sort_keys=True).encode()).hexdigest()
    return f"paper-{fit.model}-{digest[:8]}"
