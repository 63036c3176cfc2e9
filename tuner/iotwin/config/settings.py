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
