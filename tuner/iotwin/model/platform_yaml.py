"""A platform model's tree as the platform files write it (sim-models/platforms/*.yaml): one
figure a line, each leaf ``{value: ..., source: ...}`` in flow style, sections as blocks."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from iotwin.model.platforms import is_leaf


class _Dumper(yaml.SafeDumper):
    """Double quotes where quotes are needed, as the hand-written platform files have them."""

    def choose_scalar_style(self) -> str:
        style = super().choose_scalar_style()
        return '"' if style == "'" else style


def _flow(key: str, value: Any) -> str:
    """``key: value`` on one line, YAML quoting what needs it."""
    text = yaml.dump({key: value}, Dumper=_Dumper, default_flow_style=True, width=math.inf,
                     sort_keys=False, allow_unicode=True).strip()
    return text[1:-1]  # the dump is "{key: value}"


def _lines(tree: Mapping[str, Any], depth: int) -> Iterable[str]:
    pad = "  " * depth
    for key, node in tree.items():
        if isinstance(node, dict) and not is_leaf(node):
            yield f"{pad}{key}:"
            yield from _lines(node, depth + 1)
        else:
            yield pad + _flow(str(key), node)


def render_platform(tree: Mapping[str, Any], header: Iterable[str] = ()) -> str:
    """The YAML text of ``tree``, after ``header`` as comment lines."""
    lines = [f"# {line}" if line else "#" for line in header]
    lines += _lines(tree, 0)
    return "\n".join(lines) + "\n"
