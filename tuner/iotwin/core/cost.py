"""What a command will cost, estimated from its inputs before any work starts: its time and
its memory, each with the input that drives it, and the limits beyond which the command is
refused (data/costs.yaml; ``--max-time``, ``--max-memory``, or IOTWIN_MAX_TIME and
IOTWIN_MAX_MEMORY)."""

from __future__ import annotations

import functools
import math
import os
import re
import sys
from dataclasses import dataclass, replace
from typing import Any, TextIO

from iotwin.core.errors import UserError
from iotwin.core.paths import data_dir
from iotwin.core.units import parse_size
from iotwin.core.yaml_files import read_shipped

TIME_ENV = "IOTWIN_MAX_TIME"
MEMORY_ENV = "IOTWIN_MAX_MEMORY"
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|min|h|d)?\s*$")
_SECONDS = {"s": 1, "min": 60, "h": 3600, "d": 86400}


@functools.lru_cache(maxsize=1)
def constants() -> dict[str, Any]:
    """data/costs.yaml: the measured constants of the estimates, and the default limits."""
    loaded: dict[str, Any] = read_shipped(data_dir() / "costs.yaml")
    return loaded


def constant(section: str, name: str) -> float:
    """One constant of data/costs.yaml (a size may carry a unit: 64MiB)."""
    value = constants()[section][name]
    return float(parse_size(value)) if isinstance(value, str) else float(value)


@dataclass(frozen=True)
class Driver:
    """The input an estimate grows with, as a refusal names it: ``name`` as the user wrote it
    (``--budget``, ``spec.yaml: workloads[0].ranks``), its ``value`` (None: the name says it
    all), and ``how`` it drives the estimate (``1000000 x 0.1 s``)."""

    name: str
    value: object = None
    how: str = ""


@dataclass(frozen=True)
class Cost:
    """A command's estimated time (CPU seconds of this machine) and peak memory, each with the
    input that drives it."""

    seconds: float
    memory_bytes: float
    time_driver: Driver
    memory_driver: Driver

    def times(self, count: float, driver: Driver) -> Cost:
        """``count`` of this work one after another (``driver`` is what gives the count):
        the time multiplied, the memory as it was."""
        how = f"{count:g} x {duration_text(self.seconds)}"
        return replace(self, seconds=self.seconds * count,
                       time_driver=replace(driver, how=driver.how or how))

    def then(self, other: Cost) -> Cost:
        """This work, then ``other``: the times added, the larger memory; each driver the
        larger part's."""
        larger_time = self if self.seconds >= other.seconds else other
        larger_memory = self if self.memory_bytes >= other.memory_bytes else other
        return Cost(self.seconds + other.seconds, larger_memory.memory_bytes,
                    larger_time.time_driver, larger_memory.memory_driver)

    def holding(self, memory_bytes: float, driver: Driver) -> Cost:
        """This work while ``memory_bytes`` more are held beside it (by the iotwin process,
        say): the memory added, its driver the larger part's."""
        larger = driver if memory_bytes > self.memory_bytes else self.memory_driver
        return replace(self, memory_bytes=self.memory_bytes + memory_bytes, memory_driver=larger)

    def text(self) -> str:
        """``estimated 3.2 min of CPU and 1.2 GiB``"""
        return (f"estimated {duration_text(self.seconds)} of CPU and "
                f"{bytes_text(self.memory_bytes)}")


@dataclass(frozen=True)
class Limits:
    """What one command may cost before it is refused."""

    seconds: float
    memory_bytes: float

    def check(self, cost: Cost) -> Cost:
        """``cost`` if within the limits; UserError naming the input that drives it else."""
        if cost.memory_bytes > self.memory_bytes:
            raise UserError(refusal(cost.memory_driver, f"{bytes_text(cost.memory_bytes)} of "
                                    "memory", bytes_text(self.memory_bytes), "--max-memory"))
        if cost.seconds > self.seconds:
            raise UserError(refusal(cost.time_driver, f"{duration_text(cost.seconds)} of CPU",
                                    duration_text(self.seconds), "--max-time"))
        return cost


def refusal(driver: Driver, estimate: str, limit: str, flag: str) -> str:
    """The one line of a refused estimate: ``NAME = VALUE: estimated ESTIMATE (HOW), over the
    LIMIT limit; lower NAME or raise FLAG``."""
    how = f" ({driver.how})" if driver.how else ""
    given = driver.name if driver.value is None else f"{driver.name} = {driver.value}"
    return (f"{given}: estimated {estimate}{how}, over the {limit} limit; lower "
            f"{driver.name.rpartition(': ')[2]} or raise {flag}")


def limits(max_time: str | None = None, max_memory: str | None = None) -> Limits:
    """The limits a command runs under: the options given, else the environment's, else
    data/costs.yaml's."""
    time_text = max_time or os.environ.get(TIME_ENV)
    memory_text = max_memory or os.environ.get(MEMORY_ENV)
    seconds = (parse_duration(time_text, "--max-time" if max_time else TIME_ENV) if time_text
               else constant("limits", "max_seconds"))
    memory = (_parsed_memory(memory_text, "--max-memory" if max_memory else MEMORY_ENV)
              if memory_text else constant("limits", "max_memory"))
    return Limits(seconds, memory)


def parse_duration(text: str, name: str) -> float:
    """Seconds in ``90``, ``90s``, ``30min``, ``2h`` or ``1d``; UserError naming ``name`` else."""
    match = _DURATION.match(text)
    if not match:
        raise UserError(f"{name}: expected a duration (90, 90s, 30min, 2h, 1d), got {text!r}")
    number, unit = match.groups()
    return float(number) * _SECONDS[unit or "s"]


def _parsed_memory(text: str, name: str) -> float:
    try:
        return float(parse_size(text))
    except ValueError:
        raise UserError(f"{name}: expected a size (512MiB, 8GiB), got {text!r}") from None


def announce(what: str, cost: Cost, stream: TextIO | None = None) -> None:
    """The estimate on stderr before long work starts: ``iotwin: whatif: estimated ...``."""
    print(f"iotwin: {what}: {cost.text()}", file=stream or sys.stderr, flush=True)


def duration_text(seconds: float) -> str:
    """``0.02 s``, ``45 s``, ``3.25 min``, ``5.1 h``, ``12 d``: three figures at most."""
    if not math.isfinite(seconds):
        return "forever"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.3g} s"


def bytes_text(nbytes: float) -> str:
    """``512 MiB``, ``1.5 GiB``."""
    for unit, size in (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20),
                       ("KiB", 2**10)):
        if nbytes >= size:
            value = nbytes / size
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
    return f"{nbytes:.0f} B"
