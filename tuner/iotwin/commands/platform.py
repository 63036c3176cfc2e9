"""`iotwin platform`: platform models from a site's spec sheet or an IO500 system description
(the sheet format: sim-models/platforms/sheets/README.md; the derivations:
iotwin.model.platform_sheet and iotwin.model.io500_description), and the models there are."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from iotwin.commands._options import (
    add_cost_limit_arguments,
    add_output_file_arguments,
    cost_limits,
    new_output,
)
from iotwin.core.document_cost import document_cost
from iotwin.core.errors import UserError
from iotwin.model.family import family_defaults
from iotwin.model.io500_description import load_records, sheet_of_record
from iotwin.model.platform_sheet import Sheet, load_sheet, parse_sheet, platform_tree
from iotwin.model.platform_yaml import render_platform
from iotwin.model.platforms import Platform, list_platforms, load_platform, parse_platform
from iotwin.workloads.replication.output import write_atomically


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "platform", help="list platform models, or build one from a spec sheet or an IO500 "
        "system description", description="Platform models (sim-models/platforms/*.yaml) for "
        "the simulator.")
    actions = parser.add_subparsers(title="actions", metavar="ACTION")
    new = actions.add_parser(
        "new", help="write a platform model from a spec sheet or an IO500 description",
        description="Turn a spec sheet (nodes, cores, NICs, routers, servers, targets, media, "
        "their bandwidths, metadata servers, default layouts, MPI library, site rules) or an "
        "IO500 submission's system description (--io500) into a platform model: given "
        "figures keep their sources, derived figures say what they are derived from, and "
        "the rest are the documented defaults (iotwin/data/platform-sheet-defaults.yaml), "
        "or the family calibration's constants where one is shipped "
        "(iotwin/data/family-io500.yaml). An IO500 description's unknowns (media rates, "
        "drives per target, NICs per client, the site's layouts) become stated assumptions "
        "with bounds (iotwin/data/io500-descriptions.yaml).")
    source = new.add_mutually_exclusive_group(required=True)
    source.add_argument("sheet", metavar="SHEET.yaml", nargs="?", help="the spec sheet")
    source.add_argument("--io500", metavar="RECORD.json",
                        help="an IO500 system description (one record, a list, or an IO500 "
                        "table with `submissions`: then --submission ID)")
    new.add_argument("--submission", type=int, metavar="ID",
                     help="with --io500: the submission of the table to read")
    new.add_argument("--sheet-out", metavar="SHEET.yaml",
                     help="with --io500: also write the spec sheet the description reads as")
    add_output_file_arguments(new, "PLATFORM.yaml")
    add_cost_limit_arguments(new)
    new.set_defaults(func=main_new)
    listing = actions.add_parser(
        "list", help="the platform models shipped, with their storage peak",
        description="Every model in sim-models/platforms/: its nodes, targets, storage peak "
        "and description.")
    listing.set_defaults(func=main_list)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def _sheet(args: argparse.Namespace) -> Sheet:
    if not args.io500:
        if args.submission is not None or args.sheet_out:
            raise UserError("--submission and --sheet-out go with --io500")
        return load_sheet(args.sheet)
    records = load_records(args.io500, args.submission)
    if len(records) != 1:
        raise UserError(f"{args.io500}: {len(records)} system records; name one with "
                        "--submission ID")
    origin = args.io500 + (f"#{args.submission}" if args.submission is not None else "")
    document = sheet_of_record(records[0], origin)
    if args.sheet_out:
        write_atomically(Path(args.sheet_out), render_platform(document, header=(
            f"The spec sheet of {origin}, as `iotwin platform new --io500` reads it.",)))
    return parse_sheet(document, origin)


def main_new(args: argparse.Namespace) -> int:
    for output in (args.output, args.sheet_out):
        if output:
            new_output(Path(output), args.force)
    source = args.io500 or args.sheet
    document_cost(Path(source), source, cost_limits(args))
    sheet = _sheet(args)
    tree = platform_tree(sheet, family_defaults() if args.io500 else None)
    platform = parse_platform(tree, args.output or sheet.origin)
    what = f"--io500 {args.io500}" if args.io500 else args.sheet
    text = render_platform(tree, header=(
        f"{sheet.name}: {sheet.description}",
        f"Written by `iotwin platform new {what}`: every figure's source is in the sheet "
        "or in iotwin/data/platform-sheet-defaults.yaml.",
        "Change the sheet and write the model again rather than editing this file."))
    if not args.output:
        print(text, end="")
        return 0
    write_atomically(Path(args.output), text)
    print(f"{args.output}: {_summary(platform)}")
    return 0


def main_list(args: argparse.Namespace) -> int:
    for name in list_platforms():
        platform = load_platform(name)
        print(f"{name:12s} {_summary(platform)}")
        print(f"{'':12s} {platform.tree.get('description', '')}")
    return 0


def _summary(platform: Platform) -> str:
    data: dict[str, Any] = platform.data
    compute, fs, peak = data["compute"], data["filesystem"], platform.storage_peak_mbs
    nodes = f"{compute['nodes']} nodes x " if "nodes" in compute else ""
    return (f"{data['name']}: {nodes}{compute['cores_per_node']} cores; "
            f"{fs['targets']} targets x {fs['target_mbs']:g} MB/s on {fs['servers']} servers "
            f"({fs['type']}); storage peak {peak / 1000:.1f} GB/s")
