"""A spec sheet from an IO500 submission's system description (``platform new --io500``).

An IO500 record describes a system in a dozen fields (client nodes, processes per node, data
servers, storage devices and their type and interface, network, metadata servers, file system,
vendor); its results are not read. ``sheet_of_record`` writes the native spec sheet
(sim-models/platforms/sheets/README.md) those fields say, and every figure they leave open as an
assumption with bounds, by the rules of data/io500-descriptions.yaml:

    media      <- the words of the storage type and interface (nvme, ssd, hdd)
    targets    <- devices (per server when fewer than servers); disks: RAID6 8+2 groups,
                  a RAID array vendor's devices being groups already
    links      <- the network's technology name (EDR, OPA, 16Gbps Ethernet...), per server
                  "2x" when said; clients: the same link, their NIC count by node kind
    layouts    <- ior-easy's directory one stripe, ior-hard's every OST

The sheet then becomes a model as any sheet does (``platform_sheet.platform_tree``): media
rates and request costs, client and lock constants from the sheet defaults, or from the family
calibration when one is given (``iotwin.model.family``).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.yaml_files import read_yaml
from iotwin.model.sheet_schema import parse_rate

#: the fields of a system description this reads; the rest (results, lists) are not read
DESCRIPTION_FIELDS = ("system", "institution", "storage_vendor", "filesystem_type",
                      "filesystem_family", "filesystem_version", "client_nodes",
                      "procs_per_node", "ds_nodes", "ds_storage_devices", "ds_storage_type",
                      "ds_storage_interface", "ds_network", "md_nodes")
_REQUIRED = ("system", "filesystem_family", "client_nodes", "procs_per_node", "ds_nodes",
             "ds_storage_devices", "ds_storage_type")


@functools.cache
def description_rules() -> dict[str, Any]:
    return read_yaml(paths.data_dir() / "io500-descriptions.yaml", "IO500 description rules")


def load_records(path: str | Path, submission: int | None = None) -> list[dict[str, Any]]:
    """The system records of ``path``: one record, a list of them, or an IO500 table with
    ``submissions`` (``submission``: the one with that id)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise UserError(f"{path}: cannot read: {error.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise UserError(f"{path}: not a JSON system description: {error}") from None
    records = data.get("submissions", [data]) if isinstance(data, dict) else data
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise UserError(f"{path}: expected a system record, a list of them, or "
                        "{\"submissions\": [...]}")
    if submission is not None:
        records = [r for r in records if r.get("id") == submission]
        if not records:
            raise UserError(f"{path}: no submission with id {submission}")
    return records


def sheet_name(record: Mapping[str, Any]) -> str:
    words = re.sub(r"[^A-Za-z0-9]+", "-", str(record.get("system", "system"))).strip("-")
    suffix = f"-{record['id']}" if isinstance(record.get("id"), int) else ""
    return (words.lower() or "system")[:60] + suffix


def sheet_of_record(record: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """The native spec sheet of one IO500 system record; UserError naming the field it cannot
    read."""
    _check(record, origin)
    rules = description_rules()
    family = _text(record, "filesystem_family", origin).lower()
    if family not in ("lustre", "gpfs"):
        raise UserError(f"{origin}: filesystem_family: expected lustre or gpfs, got {family!r}")
    servers = _count(record, "ds_nodes", origin)
    media = _media(record, rules, origin)
    link = _link(str(record.get("ds_network") or ""), rules)
    storage: dict[str, Any] = {
        "type": family, "servers": servers,
        "server_mbs": _server_link(str(record.get("ds_network") or ""), link, rules),
        "metadata_servers": (_count(record, "md_nodes", origin)
                             if record.get("md_nodes") is not None else 1),
        "media": media, **_targets(record, media, servers, rules, origin)}
    nics, client_link = _client_nics(record, link, rules)
    fs = f"{record.get('filesystem_type', family)} {record.get('filesystem_version') or ''}"
    description = (f"{record.get('system')} ({record.get('institution', '')}): {fs.strip()}, "
                   f"{servers} data servers, {record.get('ds_storage_devices')} "
                   f"{record.get('ds_storage_type')}; from its IO500 description")
    sheet: dict[str, Any] = {
        "platform_sheet": 1, "name": sheet_name(record), "description": description,
        "compute": {"nodes": _count(record, "client_nodes", origin),
                    "cores_per_node": _count(record, "procs_per_node", origin),
                    "nic_mbs": client_link, "nics_per_node": nics},
        "storage": storage,
        "defaults": {"mpi": rules["mpi"][family]}}
    if family == "lustre":
        sheet["defaults"]["directories"] = {
            "value": rules["directories"], "assumption": rules["directories_assumption"]}
    return sheet


def _check(record: Mapping[str, Any], origin: str) -> None:
    if not isinstance(record, Mapping):
        raise UserError(f"{origin}: expected a system record (a JSON object)")
    for field in _REQUIRED:
        if record.get(field) in (None, ""):
            raise UserError(f"{origin}: {field}: missing from the system description")


def _count(record: Mapping[str, Any], field: str, origin: str) -> int:
    value = record.get(field)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10**7:
        raise UserError(f"{origin}: {field}: expected a whole number from 1 to 10^7, "
                        f"got {value!r}")
    return value


def _text(record: Mapping[str, Any], field: str, origin: str) -> str:
    value = record.get(field)
    if not isinstance(value, str) or not value.strip():
        raise UserError(f"{origin}: {field}: expected text, got {value!r}")
    return value


def _words_match(text: str, words: list[str]) -> bool:
    lowered = text.lower()
    return any(re.search(rf"(?<![a-z0-9]){re.escape(w)}(?![a-z0-9])", lowered) for w in words)


def _names(text: str, words: list[str]) -> bool:
    """Whether ``text`` names one of ``words``: as a word, or for words of four letters or more
    inside another ("NLSAS", "OmniPath")."""
    return _words_match(text, words) or any(w in text.lower() for w in words if len(w) > 3)


def _media(record: Mapping[str, Any], rules: Mapping[str, Any], origin: str) -> str:
    said = f"{record.get('ds_storage_type', '')} {record.get('ds_storage_interface') or ''}"
    for rule in rules["media_words"]:
        if _names(said, rule["words"]):
            return str(rule["media"])
    raise UserError(f"{origin}: ds_storage_type: {said.strip()!r} names no storage media "
                    f"iotwin knows (nvme, ssd, hdd words: data/io500-descriptions.yaml)")


def _targets(record: Mapping[str, Any], media: str, servers: int, rules: Mapping[str, Any],
             origin: str) -> dict[str, Any]:
    """Targets and drives per target: flash devices are targets; disks are RAID6 groups."""
    devices = _count(record, "ds_storage_devices", origin)
    scope = rules["devices_per_server_when_fewer_than_servers"]["assumption"]
    total = devices * servers if devices < servers else devices
    raid = rules["raid"]
    if media != "hdd":
        return {"targets": {"value": max(total, 1), "assumption": scope}}
    vendor = str(record.get("storage_vendor") or "")
    if _words_match(vendor, [v.lower() for v in raid["array_vendors"]]):
        why = f"{vendor}'s devices are RAID volumes ({raid['assumption']})"
        return {"targets": {"value": total, "assumption": f"{why}; {scope}"},
                "drives_per_target": dict(raid["data_drives"]), "raid": dict(raid["array"])}
    group, parity = raid["group_drives"], raid["group_drives"] - raid["data_drives"]["value"]
    if total // group >= servers:
        why = f"{total} drives in RAID6 groups of {group} ({raid['assumption']})"
        return {"targets": {"value": total // group, "assumption": f"{why}; {scope}"},
                "drives_per_target": dict(raid["data_drives"]), "raid": dict(raid["raw_drives"])}
    # fewer drives a server than a group: each server's drives are one RAID6 group
    per_server = total // servers
    why = (f"{total} drives on {servers} servers, fewer than a RAID6 group of {group} each: "
           f"one group a server, {parity} of its {per_server} drives parity "
           f"({raid['assumption']})")
    return {"targets": {"value": servers, "assumption": f"{why}; {scope}"},
            "drives_per_target": {"value": max(1, per_server - parity), "assumption": why},
            "raid": dict(raid["raw_drives"])}


def _link(network: str, rules: Mapping[str, Any]) -> dict[str, Any]:
    """One link of the named network as a sheet leaf (a technology name or a rate)."""
    for rule in rules["link_words"]:
        if _names(network, rule["words"]):
            return {"value": rule["link"], "source": f"the description's network {network!r}"}
    rate = re.search(r"(\d+(?:\.\d+)?)\s*g(?:b(?:it)?)?(?:ps|/s|e)?\b", network.lower())
    if rate:
        return {"value": f"{rate.group(1)}Gb/s", "source": f"the description's network "
                                                            f"{network!r}"}
    kind = "ethernet" if "ether" in network.lower() else "infiniband"
    return dict(rules["unnamed_links"][kind])


def _server_link(network: str, link: Mapping[str, Any], rules: Mapping[str, Any]
                 ) -> dict[str, Any]:
    many = re.search(r"(\d+)\s*x", network.lower())
    count = int(many.group(1)) if many else rules["links_per_server"]["value"]
    leaf = dict(link)
    if count > 1:
        leaf["value"] = count * parse_rate(link["value"])
        leaf.pop("bounds", None)
    why = ("the description says" if many else rules["links_per_server"]["assumption"])
    kind = "source" if "source" in leaf else "assumption"
    leaf[kind] = f"{count} link(s) a server ({why}): {leaf[kind]}"
    return leaf


def _client_nics(record: Mapping[str, Any], link: Mapping[str, Any],
                 rules: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    system = str(record.get("system") or "")
    for kind in rules["client_nodes"]:
        if _words_match(system, kind["words"]):
            return ({"value": kind["nics"], "source": kind["source"]},
                    {"value": kind["link"], "source": kind["source"]})
    client = {**{k: v for k, v in link.items() if k in ("value", "bounds")},
              "assumption": f"clients on the servers' network: {_why(link)}"}
    return dict(rules["client_nics"]), client


def _why(leaf: Mapping[str, Any]) -> str:
    return str(leaf.get("source") or leaf.get("assumption"))
