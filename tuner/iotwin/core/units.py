"""Byte sizes with units, as users write them in configs and on the command line.

``32MiB``, ``32MB``, ``32M`` and ``32m`` all mean 32 * 2**20 bytes: HPC tools (``lfs
setstripe``, ROMIO hints, the papers) use binary units whatever the suffix, and so does
iotwin. A bare integer is a byte count.
"""

from __future__ import annotations

import re

_FACTORS = {"": 1, "b": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "p": 2**50}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?\s*$", re.IGNORECASE)


def parse_size(value: int | str) -> int:
    """Bytes in ``value`` (an int, or a string such as ``"4MiB"``); ValueError if it is not one."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a size")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{value!r} is not a size: negative")
        return value
    if isinstance(value, str):
        match = _SIZE.match(value)
        if match:
            number, unit = match.groups()
            size = float(number) * _FACTORS[unit.lower()]
            if size == int(size):
                return int(size)
    raise ValueError(f"{value!r} is not a size (examples: 1048576, 64KiB, 4MiB, 1GiB)")


def format_size(nbytes: int) -> str:
    """The shortest exact unit form: 4194304 -> '4MiB', 1000 -> '1000'."""
    for unit, factor in (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20),
                         ("KiB", 2**10)):
        if nbytes and nbytes % factor == 0:
            return f"{nbytes // factor}{unit}"
    return str(nbytes)
