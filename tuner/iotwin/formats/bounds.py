"""The one bounds table (data/bounds.yaml): each kind of integer or number the formats hold,
with the C type its readers store it in and a sane maximum."""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotwin.core.errors import InputError
from iotwin.core.yaml_files import read_shipped

#: the range of each C type a kind may name (None: a double, no integer range)
C_TYPES: dict[str, tuple[int, int] | None] = {
    "int32": (-2**31, 2**31 - 1), "uint32": (0, 2**32 - 1),
    "int64": (-2**63, 2**63 - 1), "uint64": (0, 2**64 - 1), "double": None}
#: what every generated table stores a bound in
_TABLE_RANGE = (-2**63, 2**63 - 1)
_POWER = re.compile(r"^(-?)2\^(\d+)(-1)?$")
_SHOWN = 40  # characters of a value an error line quotes


@dataclass(frozen=True)
class Bound:
    """A kind of value: its C type and the range every reader accepts."""

    name: str
    c_type: str
    min: int | float
    max: int | float
    why: str

    @property
    def is_integer(self) -> bool:
        return self.c_type != "double"

    def contains(self, value: int | float) -> bool:
        return self.min <= value <= self.max

    def check(self, value: Any, file: str, field: str) -> int | float:
        """``value`` if it is of this kind (an integer for an integer kind, a number else)
        and within it; InputError naming the file and field, in :meth:`refusal`'s words, if
        not."""
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or (self.is_integer and not isinstance(value, int)) or not (
                self.contains(value)):
            raise InputError(file, field, self.refusal(shown(value)))
        return value

    def refusal(self, given: str, unit: str = "") -> str:
        """The words of every error about a value not of this kind or outside it ("expected
        an integer from 1 to 4096, got 5000"): ``given`` is the value as the reader quotes
        it (the C readers' words are the same), ``unit`` what the range is in (MB/s)."""
        return f"expected {self.phrase(unit)}, got {given}"

    def phrase(self, unit: str = "") -> str:
        """The values it allows, as error messages say it ("expected <this>")."""
        range_ = (f"an integer from {self.min} to {self.max}" if self.is_integer else
                  f"a number from {self.min:g} to {self.max:g}")
        return f"{range_} {unit}" if unit else range_


def shown(value: Any) -> str:
    """A value as an error line quotes it, cut short (an integer of thousands of digits has
    no repr)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        try:
            return f"an integer of {len(str(abs(value)))} digits"
        except ValueError:  # beyond Python's conversion limit
            return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}..."


def bounds_path() -> Path:
    return Path(__file__).resolve().parents[1] / "data" / "bounds.yaml"


def parse_bound_value(value: Any) -> int | float:
    """A bound as the table writes it: an integer, a number, or 2^N, 2^N-1, -2^N."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a bound")
    if isinstance(value, int | float):
        return value
    match = _POWER.match(str(value).replace(" ", ""))
    if not match:
        return float(value)
    sign, power, minus_one = match.groups()
    number = 2 ** int(power) - (1 if minus_one else 0)
    return -number if sign else number


@functools.lru_cache(maxsize=4)
def load_bounds(path: Path | None = None) -> dict[str, Bound]:
    raw = read_shipped(path or bounds_path())
    return {name: _bound(name, spec) for name, spec in raw["kinds"].items()}


def _bound(name: str, spec: dict[str, Any]) -> Bound:
    bound = Bound(name, spec["c_type"], parse_bound_value(spec["min"]),
                  parse_bound_value(spec["max"]), " ".join(str(spec["why"]).split()))
    c_range = C_TYPES[bound.c_type]
    low, high = c_range if c_range else (-math.inf, math.inf)
    if not low <= bound.min <= bound.max <= high:
        raise ValueError(f"bounds.yaml: {name}: [{bound.min}, {bound.max}] is not within "
                         f"{bound.c_type}'s range")
    if bound.is_integer and not (isinstance(bound.min, int) and isinstance(bound.max, int)
                                 and _TABLE_RANGE[0] <= bound.min <= bound.max <= _TABLE_RANGE[1]):
        raise ValueError(f"bounds.yaml: {name}: an integer kind needs integer bounds within "
                         f"int64")
    return bound
