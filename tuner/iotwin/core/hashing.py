"""A config's canonical JSON text and hash: the same settings give the same text and hash
whatever the order of their keys, so "already measured" is a lookup."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any


def config_hash(config: Mapping[str, Any]) -> str:
    """Canonical hash of a config: the same settings give the same hash whatever the key order.

    Hash validated configs (``iotwin.config.validation.validate_config``), whose sizes are byte
    counts, so that ``4MiB`` and ``4194304`` are the same config.
    """
    return hashlib.sha256(canonical_json(config).encode()).hexdigest()[:20]


def canonical_json(value: Mapping[str, Any]) -> str:
    """``value`` as JSON text that is the same whatever the order of its keys."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
