"""Comparing two iosim answers number by number (sim-models/IOSIM.md, "What the simulation
costs": the closed form against the old path that walks every piece)."""

from __future__ import annotations

import math
from typing import Any


def differences(a: Any, b: Any, rel: float = 1e-9, path: str = "") -> list[str]:
    """Where two answers differ: their keys, lengths, words, or numbers beyond `rel`."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{path}: keys {sorted(a)} != {sorted(b)}"]
        return [d for k in a for d in differences(a[k], b[k], rel, f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in differences(x, y, rel, f"{path}[{i}]")]
    if _number(a) and _number(b):
        return [] if math.isclose(a, b, rel_tol=rel, abs_tol=0.0) else [f"{path}: {a} != {b}"]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def largest_difference(a: Any, b: Any) -> float:
    """The largest relative difference between the numbers of two answers of one shape."""
    if isinstance(a, dict):
        return max((largest_difference(a[k], b[k]) for k in a), default=0.0)
    if isinstance(a, list):
        return max((largest_difference(x, y) for x, y in zip(a, b, strict=True)), default=0.0)
    if _number(a) and a != b:
        return float(abs(a - b) / max(abs(a), abs(b)))
    return 0.0


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)
