"""What-if studies: a workload's predicted default and tuned rates on many platforms.

Tuning here is a search in simulation only: every point of a small grid (a YAML mapping of
dotted config keys to value lists, experiments/macsio/whatif-grid.yaml) is simulated and the
fastest kept. Platform variants (`ost_count=24,48`) set one key of the platform model.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from iotwin.errors import UserError

Config = dict[str, Any]
#: (platform model, workload, configs) -> predicted rate in MB/s for each config
Simulate = Callable[[Any, Mapping[str, Any], Sequence[Config]], list[float]]


@dataclass
class Prediction:
    platform: str
    variant: str
    default_mbs: float
    tuned_mbs: float | None = None
    tuned_config: Config = field(default_factory=dict)

    @property
    def speedup(self) -> float | None:
        return self.tuned_mbs / self.default_mbs if self.tuned_mbs and self.default_mbs else None


def nested(dotted: Mapping[str, Any]) -> Config:
    """{"lustre.stripe_count": 4} -> {"lustre": {"stripe_count": 4}}."""
    config: Config = {}
    for key, value in dotted.items():
        *parents, leaf = key.split(".")
        node = config
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return config


def load_grid(path: Path) -> list[Config]:
    try:
        grid = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        raise UserError(f"{path}: {error}") from error
    if not isinstance(grid, dict) or not grid or not all(
            isinstance(v, list) and v for v in grid.values()):
        raise UserError(f"{path}: expected a mapping of config keys to non-empty value lists")
    keys = list(grid)
    return [nested(dict(zip(keys, values, strict=True)))
            for values in itertools.product(*grid.values())]


def parse_variation(text: str) -> tuple[str, list[Any]]:
    """``ost_count=24,48`` -> ("ost_count", [24, 48])."""
    key, sep, values = text.partition("=")
    if not sep or not key or not values:
        raise UserError(f"--vary {text}: expected KEY=V1,V2,... (e.g. ost_count=24,48)")
    return key, [yaml.safe_load(v) for v in values.split(",")]


def with_setting(platform: Any, dotted_key: str, value: Any) -> Any:
    """A copy of a platform model (nested mappings) with one dotted key set."""
    if not isinstance(platform, Mapping):
        raise UserError(f"--vary {dotted_key}: this platform model cannot be varied by key")
    copy = dict(platform)
    head, _, rest = dotted_key.partition(".")
    if rest:
        copy[head] = with_setting(platform.get(head, {}), rest, value)
    elif head not in platform:
        raise UserError(f"--vary {dotted_key}: the platform has no key {head!r} "
                        f"(it has: {', '.join(map(str, platform))})")
    else:
        copy[head] = value
    return copy


def predict(platform_name: str, variant: str, platform: Any, work: Mapping[str, Any],
            grid: list[Config] | None, simulate: Simulate) -> Prediction:
    configs: list[Config] = [{}] + (grid or [])
    rates = simulate(platform, work, configs)
    prediction = Prediction(platform_name, variant, rates[0])
    if grid:
        best = max(range(1, len(configs)), key=lambda i: rates[i])
        if rates[best] > rates[0]:
            prediction.tuned_mbs, prediction.tuned_config = rates[best], configs[best]
        else:
            prediction.tuned_mbs = rates[0]
    return prediction


def study(work: Mapping[str, Any], platforms: Sequence[str], load_platform: Callable[[str], Any],
          simulate: Simulate, *, variation: tuple[str, list[Any]] | None = None,
          grid: list[Config] | None = None) -> list[Prediction]:
    results = []
    for name in platforms:
        model = load_platform(name)
        variants = [("default", model)]
        if variation:
            key, values = variation
            variants = [(f"{key}={v}", with_setting(model, key, v)) for v in values]
        for label, variant in variants:
            results.append(predict(name, label, variant, work, grid, simulate))
    return results
