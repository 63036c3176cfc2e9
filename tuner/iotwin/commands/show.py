"""`iotwin show ID`: what a campaign is, what it measured, how good its model got."""

from __future__ import annotations

import argparse
import json
import statistics
from collections import Counter
from typing import Any

import yaml

from iotwin.commands._options import add_store_argument
from iotwin.config.settings import settings_text
from iotwin.core.text import printable
from iotwin.store.database import Calibration, Evaluation, Store, resolve_path
from iotwin.workloads.workload import describe_workload

TOP = 10
WIDE = 100  # a spec value longer than this is shown over several lines


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("show", help="show a campaign from the store",
                                   description="Show a campaign: its spec, its measured "
                                   "configs best first, and its calibrations.")
    parser.add_argument("id", type=int, help="campaign id (as `iotwin tune` prints it)")
    parser.add_argument("--top", type=int, default=TOP, metavar="N",
                        help=f"measured configs to list (default {TOP})")
    parser.add_argument("--json", action="store_true", help="print as JSON")
    add_store_argument(parser)
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    with Store(resolve_path(args.store), read_only=True) as store:
        campaign = store.campaign(args.id)
        rows = store.evaluations(campaign.id)
        calibrations = store.calibrations(campaign_id=campaign.id)
    measured = _measured_configs([r for r in rows if r.source != "sim"])
    if args.json:
        print(json.dumps({"id": campaign.id, "name": campaign.name, "kind": campaign.kind,
                          "spec": campaign.spec, "counts": _counts(rows),
                          "measured": measured[:args.top],
                          "calibrations": [_calibration_json(c) for c in calibrations]},
                         indent=2))
        return 0
    print(f"campaign {campaign.id}: {printable(campaign.name)} ({campaign.kind})")
    for key, value in campaign.spec.items():
        if value not in ((), [], {}, None):
            print(spec_entry(key, value))
    print("evaluations: " + ", ".join(f"{n} {k}" for k, n in sorted(_counts(rows).items())))
    print("measured configs, best first (median rate of their repetitions):")
    for entry in measured[:args.top]:
        rate = f"{entry['rate_mbs']:10.1f} MB/s" if entry["rate_mbs"] else f"{entry['status']:>15s}"
        print(f"  {rate}  x{entry['repetitions']}  {settings_text(entry['config'])}")
    for c in calibrations:
        print(f"calibration {c.id}: {c.details.get('measured', '?')} measured, fit error "
              f"{_percent(c.fit_error)}, held-out error {_percent(c.heldout_error)}")
    return 0


def spec_entry(key: str, value: Any) -> str:
    """One entry of a campaign's spec for people: a workload as a few lines, a long value as
    indented YAML, any other on its line."""
    if key == "workload" and isinstance(value, dict):
        return "\n".join([f"  {key}: " + describe_workload(value)[0],
                          *(f"  {line}" for line in describe_workload(value)[1:])])
    flat = json.dumps(value) if isinstance(value, (dict, list)) else str(value)
    if len(flat) <= WIDE:
        return f"  {key}: {flat}"
    block = yaml.safe_dump(value, sort_keys=False, default_flow_style=False, width=WIDE)
    return f"  {key}:\n" + "\n".join(f"    {line}" for line in block.rstrip().splitlines())


def _counts(rows: list[Evaluation]) -> dict[str, int]:
    return dict(Counter(f"{r.source} {r.status}" for r in rows))


def _measured_configs(rows: list[Evaluation]) -> list[dict[str, Any]]:
    """One entry per config (the summary re-measurements included), best median first."""
    grouped: dict[str, list[Evaluation]] = {}
    for row in rows:
        grouped.setdefault(row.config_hash, []).append(row)
    entries = []
    for group in grouped.values():
        rates = [r.rate_mbs for r in group if r.ok and r.rate_mbs]
        entries.append({"config": group[0].config, "repetitions": len(group),
                        "rate_mbs": statistics.median(rates) if rates else None,
                        "status": "ok" if rates else group[-1].status})
    return sorted(entries, key=lambda e: e["rate_mbs"] or 0.0, reverse=True)


def _calibration_json(c: Calibration) -> dict[str, Any]:
    return {"id": c.id, "parameters": c.parameters, "fit_error": c.fit_error,
            "heldout_error": c.heldout_error, "details": c.details}


def _percent(value: float | None) -> str:
    return f"{100 * value:.1f}%" if value is not None else "-"
