"""Dotted keys (``mpiio.cb_buffer_size``, ``filesystem.target_mbs``) into nested mappings: the
one place configs, platform trees and experiment specs are read and written by them."""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any


def dotted_get(tree: Mapping[str, Any], key: str) -> Any:
    """The value at ``key``; None where a part of it is missing."""
    node: Any = tree
    for part in key.split("."):
        node = node.get(part) if isinstance(node, Mapping) else None
    return node


def dotted_set(tree: MutableMapping[str, Any], key: str, value: Any) -> None:
    """Set ``key`` to ``value`` in place, making the mappings on its way."""
    *parents, leaf = key.split(".")
    node = tree
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value
