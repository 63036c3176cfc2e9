"""What reading and writing a document costs (a workload, a spec sheet, a table of runs), in
proportion to its bytes: the constants of data/costs.yaml's ``documents``."""

from __future__ import annotations

from pathlib import Path

from iotwin.core.cost import Cost, Driver, Limits, constant


def document_cost(path: Path, name: str, limits: Limits, *, written: float = 1.0) -> Cost:
    """Reading the document at ``path`` (its refusal names it as ``name``) and writing
    ``written`` times its bytes again, refused beyond ``limits``. A file that cannot be
    read costs nothing here: the command's own reader names it."""
    size = file_size(path)
    return text_cost(size * (1 + written), Driver(name, f"{size} bytes"), limits)


def text_cost(nbytes: float, driver: Driver, limits: Limits) -> Cost:
    """Parsing, checking or writing ``nbytes`` of YAML, refused beyond ``limits`` naming
    ``driver``."""
    return bytes_cost(nbytes, "documents", driver, limits)


def bytes_cost(nbytes: float, section: str, driver: Driver, limits: Limits, *,
               fixed_seconds: float = 0.0) -> Cost:
    """Work in proportion to ``nbytes`` of input, at the ``seconds_per_byte`` and
    ``bytes_per_byte`` of data/costs.yaml's ``section``, in one Python process, refused beyond
    ``limits`` naming ``driver``."""
    return limits.check(Cost(
        fixed_seconds + nbytes * constant(section, "seconds_per_byte"),
        constant("python", "process_bytes") + nbytes * constant(section, "bytes_per_byte"),
        driver, driver))


def file_size(path: Path) -> int:
    """The bytes of the file at ``path``; 0 for one that cannot be read (its reader names it)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0
