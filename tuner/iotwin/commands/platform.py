"""`iotwin platform new SHEET`: a platform model from a site's spec sheet
(the sheet format: sim-models/platforms/sheets/README.md; the derivation:
iotwin.model.platform_sheet)."""

from __future__ import annotations

import argparse
from pathlib import Path

from iotwin.core.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "platform", help="build a platform model from a spec sheet",
        description="Platform models (sim-models/platforms/*.yaml) for the simulator.")
    actions = parser.add_subparsers(title="actions", metavar="ACTION")
    new = actions.add_parser(
        "new", help="write a platform model from a spec sheet",
        description="Turn a spec sheet (nodes, cores, NIC, routers, servers, targets, their "
        "bandwidths, metadata servers, default striping, MPI library, site rules) into a "
        "platform model: the sheet's figures keep their sources, derived figures say what "
        "they are derived from, and the rest are the documented defaults "
        "(iotwin/data/platform-sheet-defaults.yaml).")
    new.add_argument("sheet", metavar="SHEET.yaml", help="the spec sheet")
    new.add_argument("-o", "--output", metavar="PLATFORM.yaml",
                     help="where to write the model (default: print it)")
    new.set_defaults(func=main_new)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def main_new(args: argparse.Namespace) -> int:
    from iotwin.model.platform_sheet import load_sheet, platform_tree
    from iotwin.model.platform_yaml import render_platform
    from iotwin.model.platforms import parse_platform

    sheet = load_sheet(args.sheet)
    tree = platform_tree(sheet)
    platform = parse_platform(tree, args.output or sheet.origin)
    text = render_platform(tree, header=(
        f"{sheet.name}: {sheet.description}",
        f"Written by `iotwin platform new {args.sheet}`: every figure's source is in the sheet "
        "or in iotwin/data/platform-sheet-defaults.yaml.",
        "Change the sheet and write the model again rather than editing this file."))
    if not args.output:
        print(text, end="")
        return 0
    output = Path(args.output)
    try:
        output.write_text(text)
    except OSError as error:
        raise UserError(f"{output}: cannot write the platform model: {error.strerror}") from None
    print(f"{output}: {_summary(platform.data)}")
    return 0


def _summary(data: dict) -> str:
    compute, fs, routers = data["compute"], data["filesystem"], data.get("routers")
    peak = min(fs["targets"] * fs["target_mbs"], fs["servers"] * fs["server_mbs"],
               data["network"]["storage_fabric_mbs"],
               routers["count"] * routers["bandwidth_mbs"] if routers else float("inf"))
    return (f"{data['name']}: {compute['nodes']} nodes x {compute['cores_per_node']} cores; "
            f"{fs['targets']} targets x {fs['target_mbs']:g} MB/s on {fs['servers']} servers; "
            f"storage peak {peak / 1000:.1f} GB/s")
