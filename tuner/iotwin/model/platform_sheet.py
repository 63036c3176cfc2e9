"""Platform models from a site's spec sheet (``iotwin platform new``).

A spec sheet (format: sim-models/platforms/sheets/README.md) is the short YAML a site's staff
fill in from their vendor sheet: nodes, cores per node, NIC, routers, servers, targets and their
bandwidths, metadata servers, storage pools, default striping and layout, the MPI library, site
rules. ``platform_tree`` turns it into a platform model's tree (sim-models/PLATFORM.md):

- a figure the sheet gives keeps the sheet's source (a bare number is sourced to the sheet);
- a figure computed from others says ``derived from ...``;
- every other figure comes from data/platform-sheet-defaults.yaml with its own source or
  assumption and bounds.

Storage pools, metadata targets and Data-on-MDT go to the model's ``filesystem``; the default
progressive file layout and the pool a layout naming none lands in to ``site_defaults.lustre``;
the site's rules to its ``site_rules`` section (PLATFORM.md), each sourced like the rest.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotwin.core.errors import UserError
from iotwin.core.units import parse_size
from iotwin.core.yaml_files import check_keys, read_input
from iotwin.formats.bounds import load_bounds
from iotwin.model.platforms import PROVENANCE, leaves
from iotwin.model.sheet_schema import (
    SheetField,
    check_model_figures,
    check_rules,
    check_value,
    pool_name,
    read_sheet_defaults,
    required,
    sheet_error,
    sheet_schema,
    shown,
    text,
)

SHEET_VERSION = 1
_FROM_SHEET = "spec sheet "  # the source of a figure the sheet gives bare
_LEAF_KEYS = ("value", *PROVENANCE, "bounds", "prior")
_FROM_POOL = ("targets", "target_mbs", "servers")


# -- reading a sheet -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Sheet:
    """A checked spec sheet: per section, its figures as platform-model leaves."""

    origin: str
    name: str
    description: str
    sections: dict[str, dict[str, Any]]


def load_sheet(path: str | Path) -> Sheet:
    path = Path(path)
    if not path.exists():
        raise UserError(f"{path}: no such spec sheet")
    return read_input(path, "spec sheet", parse_sheet)


def parse_sheet(data: Any, origin: str) -> Sheet:
    """A sheet checked against its schema (data/sheet-schema.yaml): every key known, every
    figure of its kind and within its bounds, the rules between figures kept."""
    schema = sheet_schema()
    check_keys(data, ("platform_sheet", "name", "description", *schema.sections), origin,
               required=("platform_sheet", "name", "compute", "storage", "defaults"))
    if data["platform_sheet"] != SHEET_VERSION:
        raise sheet_error(origin, "platform_sheet", f"this iotwin reads version "
                                                    f"{SHEET_VERSION}, got "
                                                    f"{shown(data['platform_sheet'])}")
    name = text(origin, "name", data["name"])
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}", name):
        raise sheet_error(origin, "name", f"expected a file-name-like word, got {shown(name)}")
    sections = {section: _section(origin, section, data.get(section, {}), fields)
                for section, fields in schema.sections.items()}
    pools = _pools(origin, data["storage"].get("pools"))
    sections["storage"]["pools"] = pools
    _fill_from_pool(origin, sections["storage"], pools)
    _check_pool_names(origin, sections, pools)
    _check_data_on_mdt(origin, sections)
    check_rules(origin, _values(sections))
    description = data.get("description", f"{name} (from its spec sheet)")
    return Sheet(origin, name, text(origin, "description", description), sections)


def _values(sections: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The sheet's figures without their provenance, as the schema's rules read them."""
    values = {section: {key: leaf["value"] for key, leaf in leaves.items() if key != "pools"}
              for section, leaves in sections.items()}
    values["storage"]["pools"] = {name: {key: leaf["value"] for key, leaf in pool.items()}
                                  for name, pool in sections["storage"]["pools"].items()}
    return values


def _section(origin: str, section: str, raw: Any,
             fields: Mapping[str, SheetField]) -> dict[str, Any]:
    allowed = (*fields, "pools") if section == "storage" else fields
    check_keys(raw, allowed, origin, section, required=required(fields))
    return {key: _leaf(origin, f"{section}.{key}", value, fields[key])
            for key, value in raw.items() if key != "pools"}


def _leaf(origin: str, where: str, raw: Any, field: SheetField) -> dict[str, Any]:
    """A sheet figure as a platform-model leaf: ``{value, source|assumption|fitted, bounds?}``.
    A bare value is sourced to the sheet; a rate with units keeps them in its provenance."""
    if isinstance(raw, dict):
        check_keys(raw, _LEAF_KEYS, origin, where, required=("value",))
        given = [k for k in PROVENANCE if k in raw]
        if len(given) != 1:
            raise sheet_error(origin, where, "give exactly one of source, assumption, fitted")
        leaf = dict(raw)
        text(origin, f"{where}.{given[0]}", leaf[given[0]])
    else:
        leaf = {"value": raw, "source": f"{_FROM_SHEET}{Path(origin).name}"}
    given_value = leaf["value"]
    leaf["value"] = check_value(origin, where, given_value, field)
    if field.kind == "rate" and isinstance(given_value, str):
        provenance = next(k for k in PROVENANCE if k in leaf)
        leaf[provenance] += f" ({given_value} = {leaf['value']:g} MB/s)"
    if "prior" in leaf:
        leaf["prior"] = check_value(origin, f"{where}.prior", leaf["prior"], field)
    if "bounds" in leaf:
        if field.kind == "size":  # a calibration moves numbers: a size with bounds is in bytes
            leaf["value"] = parse_size(leaf["value"])
        leaf["bounds"] = _bounds(origin, where, leaf, field)
    return leaf


def _bounds(origin: str, where: str, leaf: dict[str, Any], field: SheetField) -> list[Any]:
    bounds = leaf["bounds"]
    if not isinstance(bounds, list) or len(bounds) != 2:
        raise sheet_error(origin, f"{where}.bounds", f"expected [lower, upper], got "
                                                     f"{shown(bounds)}")
    lower, upper = (check_value(origin, f"{where}.bounds", b, field) for b in bounds)
    if field.kind == "size":
        lower, upper = parse_size(lower), parse_size(upper)
    value = leaf["value"]
    if not all(isinstance(x, int | float) and not isinstance(x, bool)
               for x in (lower, upper, value)) or not lower <= value <= upper:
        raise sheet_error(origin, f"{where}.bounds", f"value {shown(value)} outside bounds "
                                                     f"[{lower}, {upper}]")
    return [lower, upper]


def _pools(origin: str, raw: Any) -> dict[str, dict[str, Any]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not raw:
        raise sheet_error(origin, "storage.pools", "expected a mapping of pool names")
    fields = sheet_schema().records["pool"]
    return {pool_name(origin, f"storage.pools.{shown(name)}", name):
            _section(origin, f"storage.pools.{name}", pool, fields)
            for name, pool in raw.items()}


def _fill_from_pool(origin: str, storage: dict[str, Any], pools: Mapping[str, Any]) -> None:
    """The simulated targets are ``storage.pool``'s when the sheet names one and does not give
    them itself; without a pool, the sheet must give them."""
    pool = storage.get("pool", {}).get("value")
    if pools and pool is None:
        raise sheet_error(origin, "storage.pool", "missing: which of storage.pools the "
                                                  "file system's targets are")
    _check_pool(origin, "storage.pool", pool, pools)
    for key in _FROM_POOL:
        if key in storage or (key == "target_mbs" and "media" in storage):
            continue  # a target's bandwidth from its media: platform_tree derives it
        if pool is None or key not in pools[pool]:
            raise sheet_error(origin, f"storage.{key}", "missing")
        leaf = copy.deepcopy(pools[pool][key])
        provenance = next(k for k in PROVENANCE if k in leaf)
        leaf[provenance] = f"storage.pools.{pool}: {leaf[provenance]}"
        storage[key] = leaf


def _check_pool_names(origin: str, sections: Mapping[str, Any],
                      pools: Mapping[str, Any]) -> None:
    for section in ("site_rules", "defaults"):
        _check_pool(origin, f"{section}.pool",
                    sections[section].get("pool", {}).get("value"), pools)
    for section, key in (("defaults", "layout"), ("site_rules", "recommended_layouts")):
        for i, record in enumerate(sections[section].get(key, {}).get("value", [])):
            _check_pool(origin, f"{section}.{key}[{i}].pool", record.get("pool"), pools)


def _check_pool(origin: str, where: str, pool: str | None, pools: Mapping[str, Any]) -> None:
    if pool is not None and pool not in pools:
        raise sheet_error(origin, where, f"no pool {shown(pool)} in storage.pools "
                                         f"({', '.join(pools) or 'none given'})")


def _check_data_on_mdt(origin: str, sections: Mapping[str, Any]) -> None:
    """Data-on-MDT needs the MDTs' bandwidth and the largest DoM component they take, and the
    default layout's DoM component must fit in it."""
    storage = sections["storage"]
    given = [key for key in ("mdt_mbs", "dom_max") if key in storage]
    if len(given) == 1:
        missing = "dom_max" if given == ["mdt_mbs"] else "mdt_mbs"
        raise sheet_error(origin, f"storage.{missing}", "missing (Data-on-MDT needs both "
                                                        "storage.mdt_mbs and storage.dom_max)")
    largest = parse_size(storage["dom_max"]["value"]) if given else 0
    for i, component in enumerate(sections["defaults"].get("layout", {}).get("value", [])):
        if component.get("mdt") and parse_size(component["end"]) > largest:
            raise sheet_error(origin, f"defaults.layout[{i}].end",
                              f"a Data-on-MDT component ends past storage.dom_max "
                              f"({largest} bytes; 0: no Data-on-MDT)")


# -- the platform model --------------------------------------------------------------------------

def sheet_defaults() -> dict[str, Any]:
    """The sheet defaults (a copy: callers may change it)."""
    return copy.deepcopy(read_sheet_defaults())


def _derived(value: Any, how: str) -> dict[str, Any]:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return {"value": value, "source": f"derived from {how}"}


def platform_tree(sheet: Sheet, defaults: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The platform model's tree (PLATFORM.md) for ``sheet``, in the files' section order."""
    base = copy.deepcopy(dict(defaults) if defaults is not None else sheet_defaults())
    s = copy.deepcopy(sheet.sections)
    _bound_bare_bandwidths(s, base["bare_bandwidth_bounds"])
    tree: dict[str, Any] = {"platform": 1, "name": sheet.name, "description": sheet.description,
                            "compute": _compute(s), "network": _network(s, base)}
    if s["routers"]:
        tree["routers"] = {"side": s["routers"].get("side", {}).get("value", "server"),
                           **{k: v for k, v in s["routers"].items() if k != "side"}}
    tree["filesystem"] = _filesystem(s, base)
    tree["lustre_client"] = {**base["lustre_client"], **_client_of_nics(s), **s["client"]}
    tree["hdf5"] = {**base["hdf5"], **s["hdf5"]}
    tree["site_defaults"] = _site_defaults(s, base)
    tree["twin"] = base["twin"]
    if s["site_rules"]:
        renamed = {"stripe_only_above": "stripe_only_above_bytes"}
        tree["site_rules"] = {renamed.get(k, k): v for k, v in s["site_rules"].items()}
    check_model_figures(sheet.origin, leaves(tree))  # a derived figure names its sheet keys
    return tree


def _bound_bare_bandwidths(node: dict[str, Any], rule: Mapping[str, Any]) -> None:
    """Give every bandwidth the sheet states bare (``*_mbs`` sourced to the sheet itself)
    calibration bounds, as the defaults file's ``bare_bandwidth_bounds`` says."""
    low, high = rule["value"]
    for key, leaf in node.items():
        if not isinstance(leaf, dict):
            continue
        if "value" not in leaf:
            _bound_bare_bandwidths(leaf, rule)
        elif key.endswith("_mbs") and "bounds" not in leaf and str(
                leaf.get("source", "")).startswith(_FROM_SHEET):
            leaf["bounds"] = [low * leaf["value"], high * leaf["value"]]
            leaf["source"] += (f"; bounds {low:g}-{high:g} x the figure: "
                               f"{_provenance(rule)} (platform-sheet-defaults.yaml)")


def _compute(s: Mapping[str, Any]) -> dict[str, Any]:
    compute = {k: s["compute"][k] for k in ("nodes", "cores_per_node", "nic_mbs")}
    if "nics_per_node" in s["compute"]:
        compute["nic_mbs"] = _times(s["compute"]["nic_mbs"], s["compute"]["nics_per_node"],
                                    "compute.nics_per_node x compute.nic_mbs")
    return compute


def _times(leaf: Mapping[str, Any], count: Mapping[str, Any], how: str) -> dict[str, Any]:
    """``leaf`` times a count leaf: the value and its bounds scaled, its provenance kept."""
    n = count["value"]
    made = _derived(leaf["value"] * n, f"{how} ({n} x {_provenance(leaf)})")
    if "bounds" in leaf:
        made["bounds"] = [bound * n for bound in leaf["bounds"]]
    return made


def _client_of_nics(s: Mapping[str, Any]) -> dict[str, Any]:
    """A node's Lustre client sends through all its NICs: with several, its limit is theirs
    (a sheet without ``nics_per_node`` keeps the defaults' single-link client)."""
    if "nics_per_node" not in s["compute"]:
        return {}
    node = _compute(s)["nic_mbs"]
    return {"node_write_mbs": {**node, "source": f"{node['source']}: a node's client sends "
                                                 "through every NIC it has"}}


def _network(s: Mapping[str, Any], base: Mapping[str, Any]) -> dict[str, Any]:
    compute, storage, given = s["compute"], s["storage"], s["network"]
    injection = compute["nodes"]["value"] * compute["nic_mbs"]["value"] / 2
    servers = storage["servers"]["value"] * storage["server_mbs"]["value"]
    return {
        "mpi_fabric_mbs": given.get("mpi_fabric_mbs") or _derived(
            injection, "compute.nodes x compute.nic_mbs / 2: half of all nodes' injection "
                       "crosses the network's bisection (an assumption on its topology)"),
        "storage_fabric_mbs": given.get("storage_fabric_mbs") or _derived(
            servers, "storage.servers x storage.server_mbs: the storage network carries what "
                     "the servers' links carry (no published peak in the sheet)"),
        "collective_step_s": given.get("collective_step_s") or base["network"]["collective_step_s"],
        "memcpy_mbs": compute.get("memcpy_mbs") or base["network"]["memcpy_mbs"],
    }


def _filesystem(s: Mapping[str, Any], base: Mapping[str, Any]) -> dict[str, Any]:
    storage = s["storage"]
    fs: dict[str, Any] = {"type": storage["type"]["value"]}
    fs.update({k: storage[k] for k in ("servers", "targets")})
    fs["max_stripe_count"] = _max_stripes(storage["targets"]["value"])
    fs["target_mbs"] = storage.get("target_mbs") or _media_target(storage, base, "drive_mbs")
    fs["server_mbs"] = storage["server_mbs"]
    fs.update(base["filesystem"])
    if "media" in storage:
        fs["rpc_overhead_s"] = _media_target(storage, base, "request_s")
    if "raid" in storage:
        fs.update(_target_raid(storage["raid"], base["raid"]))
    if fs["type"] == "lustre":
        fs.update(base["lustre"])
    if fs["type"] == "gpfs":
        fs["lock_block_bytes"] = storage.get("block_size") or base["gpfs"]["block_size"]
        fs["token_ops_per_s"] = base["gpfs"]["token_ops_per_s"]
    if "rpc_size" in storage:
        fs["rpc_max_bytes"] = storage["rpc_size"]
    fs.update(_pools_of(storage))
    fs["metadata_servers"] = storage["metadata_servers"]
    if "dom_max" in storage:
        fs["dom_max_bytes"] = storage["dom_max"]
        fs["mdt_mbs"] = storage["mdt_mbs"]
    return fs


def _target_raid(raid: Mapping[str, Any], rules: Mapping[str, Any]) -> dict[str, Any]:
    """What stands between a target and its drives, with the constant of its small writes
    (sim-models/src/fs/partial_stripe_writes.hpp)."""
    fs: dict[str, Any] = {"target_raid": raid}
    if raid["value"] == "parity":
        fs["read_modify_write_passes"] = rules["read_modify_write_passes"]
    elif raid["value"] == "cached_array":
        fs["cache_write_s"] = rules["cache_write_s"]
    return fs


def _max_stripes(targets: int) -> dict[str, Any]:
    """One stripe per target at most, and no more than a file's layout holds (Lustre's
    LOV_MAX_STRIPE_COUNT, bounds.yaml's stripe_count)."""
    most = int(load_bounds()["stripe_count"].max)
    if targets <= most:
        return _derived(targets, "storage.targets: one stripe per target at most (Lustre)")
    return _derived(most, f"storage.targets ({targets}), but a Lustre file has at most {most} "
                          "stripes (LOV_MAX_STRIPE_COUNT; bounds.yaml: stripe_count)")


def _media_target(storage: Mapping[str, Any], base: Mapping[str, Any],
                  figure: str) -> dict[str, Any]:
    """A target's ``drive_mbs`` (its drives' sum) or ``request_s`` (one positioning of them
    all) from its media class and drives per target."""
    media = storage["media"]["value"]
    leaf = dict(base["media"][media][figure])
    if figure != "drive_mbs" or "drives_per_target" not in storage:
        kind = next(k for k in PROVENANCE if k in leaf)
        return {**leaf, kind: f"{media}: {leaf[kind]}"}
    return _times(leaf, storage["drives_per_target"],
                  f"storage.drives_per_target x the {media} drive's bandwidth")


def _pools_of(storage: Mapping[str, Any]) -> dict[str, Any]:
    """The pool the file system's own targets form (``pool``) and its other pools
    (``pools``), each with its targets, their bandwidth and the servers holding them."""
    if "pool" not in storage:
        return {}
    name = storage["pool"]["value"]
    return {"pool": storage["pool"],
            "pools": {other: pool for other, pool in storage["pools"].items() if other != name}}


def _site_defaults(s: Mapping[str, Any], base: Mapping[str, Any]) -> dict[str, Any]:
    defaults, mpi = s["defaults"], base["mpi"][s["defaults"]["mpi"]["value"]]
    site = copy.deepcopy(base["site_defaults"])
    for key in ("stripe_count", "stripe_size", "pool"):
        if key in defaults:
            site["lustre"][key] = defaults[key]
    if "layout" in defaults:
        site["lustre"]["components"] = defaults["layout"]
    directories = defaults.get("directories")
    why = defaults["mpi"]
    mpiio = {"romio_cb_write": _for_site(mpi["romio_cb_write"], why), **site["mpiio"]}
    mpiio.update({hint: _for_site(mpi[hint], why) for hint in _LIBRARY_HINTS if hint in mpi})
    made = {"romio_driver": _for_site(mpi["romio_driver"], why),
            "default_cb_nodes": _for_site(mpi["default_cb_nodes"], why),
            **({"aggregator_placement": _for_site(mpi["aggregator_placement"], why)}
               if "aggregator_placement" in mpi else {}),
            "lustre": site["lustre"], "mpiio": mpiio, "hdf5": site["hdf5"]}
    if directories:
        made["directories"] = {name: {key: {"value": value, **_provenance_of(directories)}
                                      for key, value in layout.items()}
                               for name, layout in directories["value"].items()}
    return made


def _provenance_of(leaf: Mapping[str, Any]) -> dict[str, str]:
    kind = next(k for k in PROVENANCE if k in leaf)
    return {kind: leaf[kind]}


#: MPI-IO hints whose default an MPI library of the sheet defaults may set (else ROMIO's)
_LIBRARY_HINTS = ("romio_ds_write", "cb_config_list")


def _for_site(library_leaf: Mapping[str, Any], mpi: Mapping[str, Any]) -> dict[str, Any]:
    """What the MPI library does, and why the sheet says the site's is that library (when the
    sheet says more than its name): an assumption about the site stays one."""
    kind = next(k for k in PROVENANCE if k in mpi)
    if mpi[kind].startswith(_FROM_SHEET):
        return dict(library_leaf)
    return {"value": library_leaf["value"],
            kind: f"{_provenance(library_leaf)}; the site's MPI: {mpi[kind]}"}


def _provenance(leaf: Mapping[str, Any]) -> str:
    return str(next(leaf[k] for k in PROVENANCE if k in leaf))
