"""Which free parameters a platform's published rows can fit: a sensitivity scan and a choice.

The scan moves each bounded parameter of a platform model, alone, from its lower to its upper
bound (the others at their YAML values) and records, per row, how far the simulated rate moves
(``log(rate at upper / rate at lower)``). The choice is a pivoted Gram-Schmidt over those
per-row effect vectors: the parameter that moves the rows most is taken first, then each time
the one whose effect is least explained by those already taken, while its own part still moves
some row by ``min_effect`` and while the platform has ``rows_per_parameter`` rows for each
parameter taken. A parameter whose effect on these rows is what the chosen ones already do
(e.g. two bandwidths in series that both cap the same rows) cannot be told apart from them by
these rows and is left at its YAML value. Small counts (a site default stripe count) are
scanned and shown, but a gradient fit cannot move them: its finite-difference steps of a few
percent round back to the same integer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from iotwin.model.platforms import Platform

#: a platform model -> the simulated rate of each row on it (None: failed)
RowRates = Callable[[Platform], list[float | None]]


@dataclass(frozen=True)
class SelectionRule:
    """``fit_selection`` in validation/paper/cases.yaml."""

    min_effect: float  # a parameter's own effect must move some row by this log rate
    rows_per_parameter: int  # fit at most rows // rows_per_parameter parameters

    @classmethod
    def from_settings(cls, data: Mapping[str, Any]) -> SelectionRule:
        return cls(float(data["min_effect"]), int(data["rows_per_parameter"]))


@dataclass
class ParameterEffect:
    name: str
    lower: float
    upper: float
    integer: bool
    changes: list[float]  # per row: log(rate at upper / rate at lower); 0 where one failed
    chosen: bool = False
    reason: str = ""  # why it is fitted or left at its YAML value

    @property
    def largest(self) -> float:
        """The largest |change| over the rows (a log rate)."""
        return max((abs(c) for c in self.changes), default=0.0)


def scan(platform: Platform, rates_of: RowRates) -> list[ParameterEffect]:
    """Each bounded parameter of ``platform`` at its two bounds; ``rates_of`` simulates the
    rows on a platform."""
    effects = []
    for name, (_, lower, upper) in sorted(platform.free_parameters().items()):
        if lower == upper:
            continue
        low, high = (rates_of(platform.with_values({name: bound})) for bound in (lower, upper))
        changes = [math.log(h / lo) if h and lo else 0.0 for lo, h in zip(low, high, strict=True)]
        integer = _is_small_count(platform.data, name)
        effects.append(ParameterEffect(name, lower, upper, integer, changes))
    return effects


#: an integer below this is a count that a step of a few percent does not change
_SMALL_COUNT = 50


def _is_small_count(values: Mapping[str, Any], dotted: str) -> bool:
    """Whether the model's value at ``dotted`` is a small integer (rates written as whole
    numbers, e.g. ``400`` MB/s, are not: a fit moves them in steps of 1)."""
    node: Any = values
    for key in dotted.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return False
        node = node[key]
    return isinstance(node, int) and not isinstance(node, bool) and abs(node) < _SMALL_COUNT


def choose_parameters(effects: Sequence[ParameterEffect], rows: int, rule: SelectionRule
           ) -> list[str]:
    """Mark each effect chosen or not (with its reason); the chosen names, in choice order."""
    limit = max(1, rows // rule.rows_per_parameter)
    basis: list[np.ndarray] = []
    chosen: list[str] = []
    candidates = []
    for effect in effects:
        if effect.integer:
            effect.reason = "a small count: a gradient fit cannot move it"
        elif effect.largest < rule.min_effect:
            effect.reason = f"moves no row by {rule.min_effect:.0%} between its bounds"
        else:
            candidates.append(effect)
    while candidates:
        own = {e.name: _residual(np.array(e.changes), basis) for e in candidates}
        best = max(candidates, key=lambda e: float(np.max(np.abs(own[e.name]))))
        if float(np.max(np.abs(own[best.name]))) < rule.min_effect:
            for effect in candidates:
                effect.reason = (f"what {', '.join(chosen)} already do(es) to these rows "
                                 f"(own effect < {rule.min_effect:.0%})")
            break
        if len(chosen) == limit:
            for effect in candidates:
                effect.reason = (f"{rows} rows support at most {limit} parameters "
                                 f"({rule.rows_per_parameter} rows each)")
            break
        best.chosen, best.reason = True, f"choice {len(chosen) + 1}"
        chosen.append(best.name)
        basis.append(own[best.name] / np.linalg.norm(own[best.name]))
        candidates.remove(best)
    return chosen


def _residual(vector: np.ndarray, basis: Sequence[np.ndarray]) -> np.ndarray:
    """The part of ``vector`` that the orthonormal ``basis`` does not span."""
    for unit in basis:
        vector = vector - float(unit @ vector) * unit
    return vector
