"""Writing a tuning config as the interposer reads it: sizes with units."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from iotwin.config.schema import Key, load_schema
from iotwin.config.validation import validate_config
from iotwin.core.units import format_size


def dump_config(data: Mapping[str, Any], source: str = "config") -> str:
    """YAML the interposer reads, sizes written with units (``4MiB``).

    ``data`` is validated first, so it may hold sizes in any form :func:`validate_config`
    accepts (``4194304``, ``"4MiB"``, ``"4m"``), and a bad one is a ConfigError naming
    ``source`` rather than a file the interposer would refuse.
    """
    normalised = validate_config(data, source)
    return yaml.safe_dump(_with_units(dict(normalised), "top"), sort_keys=False,
                          default_flow_style=False)


def _with_units(data: dict[str, Any], scope_name: str) -> dict[str, Any]:
    schema = load_schema()
    scope = schema.scopes[scope_name]
    inline = schema.blocks[scope.inline] if scope.inline else {}
    out: dict[str, Any] = {}
    for name, value in data.items():
        if name in scope.blocks:
            out[name] = _block_with_units(schema.blocks[name], value)
        elif name in scope.lists:
            out[name] = [_with_units(item, scope.lists[name]) for item in value]
        elif name in inline:
            out[name] = _value_with_units(inline[name], value)
        else:
            out[name] = value
    return out


def _block_with_units(keys: dict[str, Key], block: dict[str, Any]) -> dict[str, Any]:
    return {name: _value_with_units(keys[name], value) for name, value in block.items()}


def _value_with_units(key: Key, value: Any) -> Any:
    if key.type == "size" and not isinstance(value, str):
        text = format_size(value)
        return text if not text.isdigit() else value
    if key.type == "record":
        return _block_with_units(key.fields, value)
    if key.type == "record-list":
        return [_block_with_units(key.fields, record) for record in value]
    return value
