"""Constants learned across machines: the family calibration's values in the sheet defaults.

A description (an IO500 record, a spec sheet) gives a machine's counts and links but not its
media rates, request costs, client limits or lock costs. ``iotwin calibrate --family`` fits
those over many machines at once (``iotwin.studies.family_fit``) and writes them, with their
leave-one-system-out error, to data/family-io500.yaml; every model built from a description
starts from them (``family_defaults``), and a what-if on such a model takes that error as its
band (``family_band``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.yaml_files import read_yaml
from iotwin.model.platform_sheet import sheet_defaults

#: the fitted file shipped with the package; absent until a family calibration is written
FAMILY_FILE = "family-io500.yaml"

#: the constants a family calibration fits: paths into the sheet defaults
FAMILY_CONSTANTS = (
    "media.hdd.drive_mbs", "media.hdd.request_s", "media.nvme.drive_mbs",
    "media.nvme.request_s", "lustre_client.process_write_mbs", "filesystem.lock_conflict_s",
    "filesystem.degradation",
)


def leaf_at(tree: Mapping[str, Any], path: str) -> dict[str, Any]:
    node: Any = tree
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise UserError(f"sheet defaults: no constant {path}")
        node = node[part]
    return node  # type: ignore[no-any-return]


def constant_bounds(defaults: Mapping[str, Any]) -> dict[str, tuple[float, float, float]]:
    """(prior, lower, upper) of each family constant in ``defaults``."""
    out = {}
    for path in FAMILY_CONSTANTS:
        leaf = leaf_at(defaults, path)
        out[path] = (float(leaf["value"]), float(leaf["bounds"][0]), float(leaf["bounds"][1]))
    return out


def with_constants(defaults: Mapping[str, Any], values: Mapping[str, float],
                   why: str) -> dict[str, Any]:
    """``defaults`` with each constant of ``values`` set, said to be fitted (``why``), its
    earlier value kept as its prior."""
    made = copy.deepcopy(dict(defaults))
    for path, value in values.items():
        leaf = leaf_at(made, path)
        prior = leaf["value"]
        for kind in ("source", "assumption", "fitted"):
            leaf.pop(kind, None)
        leaf.update(value=float(value), fitted=why, prior=prior)
    return made


def load_family() -> dict[str, Any] | None:
    """The shipped family calibration (its constants, errors and cases), or None."""
    path = paths.data_dir() / FAMILY_FILE
    if not path.exists():
        return None
    return read_yaml(path, "family calibration")


def family_defaults() -> dict[str, Any]:
    """The sheet defaults a model from a description starts from: the family's constants
    where a family calibration is shipped."""
    family = load_family()
    base = sheet_defaults()
    if family is None:
        return base
    return with_constants(base, family["constants"], family["fitted"])


def family_band(phase: str | None = None) -> float | None:
    """The family's leave-one-system-out error as a factor (median |log ratio|, as x), for a
    phase (``easy-write``, ``hard-write``) or overall: the band of a what-if on a model built
    from a description."""
    family = load_family()
    if family is None:
        return None
    errors = family["leave_one_system_out"]
    return float(errors.get(phase, errors["all"])["median_factor"] if phase else
                 errors["all"]["median_factor"])
