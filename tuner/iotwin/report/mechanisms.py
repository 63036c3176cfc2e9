"""What a simulated run says about itself, as people read it: its ceiling (the most it could
write under its placement) and what binds it (IOSIM.md "Ceiling and binding mechanism"), the
breakdown of two or more runs side by side, and the one-line reason a tuned config is faster.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from iotwin.core.units import format_size
from iotwin.model.sim import SimResult

MB = 1e6


def rate_text(mbs: float | None) -> str:
    """A rate with the unit that reads best: 419 MB/s, 46.8 GB/s, 2.30 TB/s."""
    if mbs is None:
        return "-"
    for unit, factor in (("TB/s", 1e6), ("GB/s", 1e3)):
        if abs(mbs) >= factor:
            value = mbs / factor
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{mbs:.3g} MB/s" if mbs < 100 else f"{mbs:.0f} MB/s"


def percent(fraction: float | None) -> str:
    return "-" if fraction is None else f"{100 * fraction:.0f} %"


#: a ceiling resource's name for one of them
_ONE = {"OSTs": "OST", "OSS links": "OSS link", "routers": "router", "client NICs": "client NIC",
        "client nodes": "client node", "client processes": "client process"}


def _counted(resource: str, result: SimResult) -> str:
    """``2 OSTs``, ``1 client NIC``: a ceiling resource with how many the run used."""
    term = result.ceiling.get(resource)
    if not term or resource == "storage fabric":
        return resource
    head, _, rest = resource.partition(" (")
    name = _ONE.get(head, head) if term["count"] == 1 else head
    return f"{term['count']:g} {name}" + (f" ({rest}" if rest else "")


def _run_bound(result: SimResult) -> str:
    """What binds the run, with the count of the resources where the ceiling has them."""
    mechanism = result.bound_by.get("run", "")
    for resource in result.ceiling:
        if mechanism.startswith(resource):
            return f"{_counted(resource, result)}{mechanism[len(resource):]}"
    return mechanism


def ceiling_line(result: SimResult) -> str:
    """``ceiling 448 MB/s (2 OSTs); the rate is 94 % of it; the best any layout reaches from
    these nodes: 34.9 GB/s``."""
    if result.ceiling_mbs is None:
        return f"ceiling: {result.bound_by.get('ceiling', 'none')}"
    best = (f"; the best any layout reaches from this placement: "
            f"{rate_text(result.best_ceiling_mbs)}" if result.best_ceiling_mbs else "")
    return (f"ceiling {rate_text(result.ceiling_mbs)} "
            f"({_counted(result.bound_by['ceiling'], result)}); the rate is "
            f"{percent(result.ceiling_fraction)} of it{best}")


def binding_line(result: SimResult) -> str:
    """``bound by 2 OSTs (bandwidth): 46.6 s of 81.7 s; then client processes 26.1 s, ...``."""
    charged = sorted(result.time_by_mechanism.items(), key=lambda item: -item[1])
    if not charged or result.time_s is None:
        return "bound by nothing: no time was spent"
    rest = ", ".join(f"{name} {seconds:.3g} s" for name, seconds in charged[1:4])
    return (f"bound by {_run_bound(result)}: {charged[0][1]:.3g} s of {result.time_s:.3g} s"
            + (f"; then {rest}" if rest else ""))


def reason(label: str, result: SimResult, settings: str = "") -> str:
    """``tuned (stripe_count=64): client processes bind it at 9.66 GB/s, 67 % of its 14.3
    GB/s ceiling``."""
    if not result.ok or result.rate_mbs is None:
        return f"{label}: the simulation failed ({result.error})"
    what = f"{label} ({settings})" if settings else label
    ceiling = (f", {percent(result.ceiling_fraction)} of its {rate_text(result.ceiling_mbs)} "
               f"ceiling ({_counted(result.bound_by['ceiling'], result)})"
               if result.ceiling_mbs else "")
    return f"{what}: {_run_bound(result)} binds it at {rate_text(result.rate_mbs)}{ceiling}"


def reasons(runs: Mapping[str, SimResult], settings: Mapping[str, str] | None = None) -> str:
    """The reasons of several runs on one line, and the best any layout reaches."""
    given = settings or {}
    line = "; ".join(reason(label, result, given.get(label, "")) for label, result in runs.items())
    best = next((r.best_ceiling_mbs for r in runs.values() if r.best_ceiling_mbs), None)
    return line + (f" (the best any layout reaches here: {rate_text(best)})" if best else "")


#: the breakdown's rows: (label, how to read it from a result)
def _targets(r: SimResult) -> Any:
    return sum(1 for b in r.breakdown.get("bytes_per_target", []) if b)


def _aggregators(r: SimResult) -> Any:
    used = r.breakdown.get("aggregators") or []
    return max(used) if used else "-"


def _extra_written(r: SimResult) -> Any:
    bd = r.breakdown
    return format_size(max(0, sum(bd.get("bytes_per_target", [])) - bd.get("payload_bytes", 0)))


BREAKDOWN: tuple[tuple[str, Any], ...] = (
    ("rate", lambda r: rate_text(r.rate_mbs)),
    ("ceiling", lambda r: rate_text(r.ceiling_mbs)),
    ("of the ceiling", lambda r: percent(r.ceiling_fraction)),
    ("ceiling set by", lambda r: _counted(r.bound_by.get("ceiling", "-"), r)),
    ("bound by", _run_bound),
    ("open s", lambda r: f"{r.phases.get('open', 0):.3g}"),
    ("write s", lambda r: f"{r.phases.get('write', 0):.3g}"),
    ("close s", lambda r: f"{r.phases.get('close', 0):.3g}"),
    ("targets used", _targets),
    ("aggregators", _aggregators),
    ("two-phase rounds", lambda r: r.breakdown.get("rounds", 0)),
    ("RPCs", lambda r: r.breakdown.get("rpcs", 0)),
    ("lock revocations", lambda r: r.breakdown.get("lock_conflicts", 0)),
    ("bytes read before writing (sieving, read-modify-write)",
     lambda r: format_size(r.breakdown.get("posix", {}).get("read_bytes", 0))),
    ("bytes written beyond the data (fill, sieving)", _extra_written),
)


def breakdown_rows(runs: Mapping[str, SimResult]) -> list[dict[str, Any]]:
    """One row per breakdown item, a column per run: for tables."""
    return [{"": label, **{name: read(r) if r.ok else "failed" for name, r in runs.items()}}
            for label, read in BREAKDOWN]


def breakdown_table(runs: Mapping[str, SimResult]) -> str:
    """The simulated breakdown of the runs side by side, as text."""
    rows = breakdown_rows(runs)
    columns = ["", *runs]
    widths = [max(len(str(row[c])) for row in [dict(zip(columns, columns, strict=True)), *rows])
              for c in columns]

    def line(cells: list[Any]) -> str:
        first, *rest = (str(cell) for cell in cells)
        return "  " + first.ljust(widths[0]) + "".join(
            "  " + cell.rjust(width) for cell, width in zip(rest, widths[1:], strict=True))

    return "\n".join([line(["", *runs]), *(line([row[c] for c in columns]) for row in rows)])


def as_json(result: SimResult) -> dict[str, Any]:
    """The ceiling and binding of a run, for JSON answers."""
    return {"ceiling_mbs": result.ceiling_mbs, "best_ceiling_mbs": result.best_ceiling_mbs,
            "of_ceiling": result.ceiling_fraction, "bound_by": result.bound_by,
            "ceiling": result.ceiling, "time_by_mechanism": result.time_by_mechanism}
