"""What every benchmark does with a failed configuration: it stops and names it. A figure taken
over refused or crashed configurations measures the refusals, not the thing it is named for."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from iotwin.config.types import Config
from iotwin.model.platforms import Platform
from iotwin.model.sim import SimResult, simulate


def stop_on_failures(what: str, errors: Iterable[str | None]) -> None:
    """``errors``: one entry per configuration, None where it succeeded."""
    failed = [error for error in errors if error is not None]
    if failed:
        raise SystemExit(f"{what}: {len(failed)} configuration(s) failed; the first: {failed[0]}")


def simulate_all(what: str, platform: Platform, workload: Mapping[str, Any],
                 configs: Sequence[Config], **options: Any) -> list[SimResult]:
    """iotwin.model.sim.simulate, stopping the benchmark if any configuration failed."""
    results = simulate(platform, workload, configs, **options)
    stop_on_failures(what, (None if r.ok else r.error for r in results))
    return results
