"""A config as the settings it makes, one ``key=value`` each: how people read a config."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from iotwin.core.units import format_size


def flat_settings(config: Mapping[str, Any], prefix: str = "") -> list[str]:
    """``{"dataset": {"chunk_size": 4194304}}`` -> ``["dataset.chunk_size=4MiB"]``."""
    settings = []
    for key, value in sorted(config.items()):
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            settings.extend(flat_settings(value, f"{name}."))
        elif isinstance(value, int) and not isinstance(value, bool) and value >= 1024:
            settings.append(f"{name}={format_size(value)}")
        else:
            settings.append(f"{name}={value}")
    return settings


def settings_text(config: Mapping[str, Any]) -> str:
    """``dataset.transfer_mode=independent mpiio.cb_nodes=2``; "default" for no settings."""
    return " ".join(flat_settings(config)) or "default"


def where_set(block: dict[str, Any], name: str, key: str) -> list[tuple[str, dict[str, Any]]]:
    """(config key, the mapping that holds it) of every place one block (``name``, e.g.
    ``lustre``) sets ``key``: the plain key, and in a lustre block each layout component that
    sets it too."""
    holders = [(f"{name}.{key}", block)]
    if name == "lustre":
        holders += [(f"lustre.components[{i}].{key}", component)
                    for i, component in enumerate(block.get("components", []))]
    return [(where, holder) for where, holder in holders if key in holder]
