"""A site's rules on file layouts, as its platform model states them (``site_rules``,
sim-models/PLATFORM.md): the most stripes a file may have, the pool a hand-set layout must
name, the file size below which a layout is left to the site's default, settings the site
forbids, and its recommended layouts.

The rules act in two places: :func:`check_config` refuses a user's config that breaks one,
naming the rule and its source, and :func:`constrain` binds a search space to them, so that no
config a search makes breaks one. A *hand-set layout* is a ``lustre`` block that sets any of
:data:`LAYOUT_KEYS` for a file; the site's default layout (``site_defaults.lustre``) never
breaks its rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from iotwin.config import resolution
from iotwin.config.settings import where_set
from iotwin.config.types import Config
from iotwin.core.errors import UserError
from iotwin.core.units import format_size
from iotwin.model.platforms import Platform
from iotwin.space.parameters import SpaceContext
from iotwin.workloads.partial_writes import workload_apis
from iotwin.workloads.workload import instance_bytes

#: the lustre keys that make a file's layout hand-set
LAYOUT_KEYS = ("stripe_count", "stripe_size", "stripe_offset", "pool", "components")


@dataclass(frozen=True)
class Rule:
    """One site rule: its name (a key of the platform's ``site_rules``), value and source."""

    name: str
    value: Any
    source: str


def site_rules(platform: Platform) -> dict[str, Rule]:
    """The platform's rules by name (none for a machine without ``site_rules``)."""
    section = platform.tree.get("site_rules") or {}
    return {name: Rule(name, platform.data["site_rules"][name], _provenance(leaf))
            for name, leaf in section.items()}


def needs_file_sizes(platform: Platform) -> bool:
    """Whether the platform's rules depend on the size of the files written."""
    return "stripe_only_above_bytes" in site_rules(platform)


def _provenance(leaf: Mapping[str, Any]) -> str:
    return str(next(leaf[k] for k in ("source", "assumption", "fitted") if k in leaf))


def _file_names(workload: Mapping[str, Any]) -> list[tuple[str, int | None]]:
    """(name as the config's rules see it, bytes of one file) of each workload file."""
    return [(str(f["name"]).replace("%r", "0").replace("%g", "0"), instance_bytes(f))
            for f in workload["files"]]


def _hand_set(lustre: Mapping[str, Any]) -> list[str]:
    return [key for key in LAYOUT_KEYS if key in lustre]


def violations(platform: Platform, config: Config,
               workload: Mapping[str, Any] | None = None) -> list[str]:
    """One line per broken rule and file: the config key, the rule, its value and source."""
    rules = site_rules(platform)
    found: list[str] = []
    for where, settings, size in _settings(config, workload):
        for problem in _broken(platform, rules, settings, size):
            line = f"{problem}{where}"
            if line not in found:
                found.append(line)
    return found


def _settings(config: Config, workload: Mapping[str, Any] | None
              ) -> list[tuple[str, Mapping[str, Any], int | None]]:
    """(where, blocks, file bytes) to check: each workload file's resolved settings; without a
    workload, the config's own blocks and each of its ``files`` sections."""
    if workload is not None:
        return [(f" for {name}", resolution.resolve(config, name), size)
                for name, size in _file_names(workload)]
    sections = config.get("files", [])
    return [("", config, None), *((f" in files[{i}]", section, None)
                                  for i, section in enumerate(sections))]


def _broken(platform: Platform, rules: Mapping[str, Rule], settings: Mapping[str, Any],
            size: int | None) -> list[str]:
    out = _forbidden_set(rules, settings)
    lustre = settings.get("lustre", {})
    hand_set = _hand_set(lustre)
    if not hand_set:
        return out
    threshold = rules.get("stripe_only_above_bytes")
    if threshold and size is not None and size < threshold.value:
        out.append(_message(f"lustre.{hand_set[0]}", threshold,
                            f"a layout set by hand on a file of {format_size(size)}, under "
                            f"{format_size(threshold.value)}"))
    most = rules.get("max_stripes_per_file")
    if most:
        for key, holder in where_set(dict(lustre), "lustre", "stripe_count"):
            count = holder["stripe_count"]
            every = count == -1 and _pool_targets(platform, lustre) > most.value
            if count > most.value or every:
                shown = "-1 (every target)" if every else str(count)
                out.append(_message(key, most, f"{shown} stripes, more than "
                                               f"{most.value} a file"))
    pool = rules.get("pool")
    if pool:
        for key, named in _pools_named(platform, lustre):
            if named != pool.value:
                out.append(_message(key, pool, f"a hand-set layout on pool {named!r}, not "
                                               f"{pool.value!r}"))
    return out


def _forbidden_set(rules: Mapping[str, Rule], settings: Mapping[str, Any]) -> list[str]:
    """A line for every place the config sets a value the site forbids: any key of any block,
    and a layout key in any component of ``lustre.components`` as well as plain."""
    out = []
    for forbidden in (rules["forbidden"].value if "forbidden" in rules else []):
        block, _, key = forbidden["key"].partition(".")
        why = f": {forbidden['why']}" if forbidden.get("why") else ""
        for where, holder in where_set(dict(settings.get(block, {})), block, key):
            if holder[key] == forbidden["value"]:
                out.append(_message(where, rules["forbidden"],
                                    f"{key} {forbidden['value']} is forbidden{why}"))
    return out


def _message(key: str, rule: Rule, what: str) -> str:
    return f"{key}: breaks the site rule {rule.name} ({what}; {rule.source})"


def _pools_named(platform: Platform, lustre: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key, pool) of every part of a hand-set layout on OSTs: the plain layout's pool, or each
    component's (a component without one takes the layout's; Data-on-MDT has no pool)."""
    default = lustre.get("pool", _site_pool(platform))
    components = lustre.get("components")
    if not components:
        return [("lustre.pool", default)] if default else []
    return [(f"lustre.components[{i}].pool", c.get("pool", default))
            for i, c in enumerate(components) if not c.get("mdt") and c.get("pool", default)]


def _site_pool(platform: Platform) -> str | None:
    """The pool a layout naming none lands in (the site's default), else the file system's."""
    data = platform.data
    return data["site_defaults"].get("lustre", {}).get("pool") or data["filesystem"].get("pool")


def _pool_targets(platform: Platform, lustre: Mapping[str, Any]) -> int:
    fs = platform.data["filesystem"]
    pool = lustre.get("pool", _site_pool(platform))
    if pool is None or pool == fs.get("pool"):
        return int(fs["targets"])
    return int(fs.get("pools", {}).get(pool, {}).get("targets", fs["targets"]))


def check_config(platform: Platform, config: Config, workload: Mapping[str, Any] | None,
                 origin: str, ignore: bool = False) -> list[str]:
    """UserError naming every rule of the platform's site that ``config`` breaks; with
    ``ignore``, the broken rules as warning lines instead."""
    found = [f"{origin}: {line}" for line in violations(platform, config, workload)]
    if found and not ignore:
        raise UserError(f"{found[0]}" + (f" (and {len(found) - 1} more)" if len(found) > 1
                                         else "") + "; --ignore-site-rules to go on")
    return found


def platform_space_context(platform: Platform, ranks: int,
                           workload: Mapping[str, Any] | None = None) -> SpaceContext:
    """The platform model's file system, stripe limit and site rules, as a parameter space
    needs them for ``ranks`` ranks (and ``workload``'s files, when known)."""
    filesystem = platform.data.get("filesystem", {})
    apis = workload_apis(workload) if workload is not None else SpaceContext.apis
    return constrain(platform, SpaceContext(
        filesystem=str(filesystem.get("type", "ufs")), ranks=ranks,
        max_stripe_count=filesystem.get("max_stripe_count"),
        dom_max_bytes=filesystem.get("dom_max_bytes"), apis=apis), workload)


def constrain(platform: Platform, context: SpaceContext,
              workload: Mapping[str, Any] | None = None) -> SpaceContext:
    """``context`` bound to the platform's rules: stripe counts up to the rule's maximum,
    hand-set layouts on the site's pool and only for the files above its size threshold,
    forbidden values never chosen."""
    rules = site_rules(platform)
    if not rules:
        return context
    most = rules.get("max_stripes_per_file")
    limit = context.max_stripe_count
    if most:
        limit = most.value if limit is None else min(limit, most.value)
    threshold = rules.get("stripe_only_above_bytes")
    layout_files = None
    if threshold and workload is not None:
        sizes = _file_names(workload)
        big = tuple(name for name, size in sizes if size is not None and size >= threshold.value)
        layout_files = None if len(big) == len(sizes) else big
    forbidden = tuple((f["key"], f["value"]) for f in
                      (rules["forbidden"].value if "forbidden" in rules else []))
    pool = rules.get("pool")
    return replace(context, max_stripe_count=limit, layout_files=layout_files,
                   layout_pool=pool.value if pool else None, forbidden=forbidden)
