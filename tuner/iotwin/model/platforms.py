"""Platform models: the YAML files of sim-models/platforms/ (schema: sim-models/PLATFORM.md).

A platform YAML gives every number as a leaf ``{value: ..., source|assumption|fitted: ...}``,
with ``bounds: [lower, upper]`` on the parameters calibration may fit, and ``prior: ...`` on a
fitted one: its value before any fit, where a validation's fits start. ``Platform.data`` is the
same tree with only the values (sizes in bytes), as the simulator reads it.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotwin.core import paths
from iotwin.core.errors import InputError, UserError
from iotwin.core.units import parse_size
from iotwin.core.yaml_files import read_input
from iotwin.model.sheet_schema import check_model_figures, shown

#: what a leaf says about where its value comes from: one of these keys
PROVENANCE = ("source", "assumption", "fitted")
_SIZE_SUFFIXES = ("_bytes", "_size", "boundary", "threshold")
#: sizes among the fields of a record in a list (a layout's components, a site's advice)
_RECORD_SIZES = ("end", "at_least")
#: the sections that describe the machine itself (not its site defaults or its twin)
_MACHINE_SECTIONS = ("compute", "network", "routers", "filesystem", "hdf5")


def is_leaf(node: Any) -> bool:
    """A figure of the model: ``{value: ..., source|assumption|fitted: ...}``."""
    return isinstance(node, dict) and "value" in node


def leaves(tree: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    for key, node in tree.items():
        path = f"{prefix}{key}"
        if is_leaf(node):
            yield path, node
        elif isinstance(node, dict):
            yield from leaves(node, path + ".")


def _check_leaf(origin: str, path: str, leaf: dict[str, Any]) -> None:
    if not any(k in leaf for k in PROVENANCE):
        raise InputError(origin, path, "says neither source, assumption nor fitted")
    bounds = leaf.get("bounds")
    if bounds is None:
        return
    if not (isinstance(bounds, list) and len(bounds) == 2
            and all(isinstance(b, int | float) for b in bounds) and bounds[0] <= bounds[1]):
        raise InputError(origin, f"{path}.bounds", f"expected [lower, upper], got {bounds!r}")
    for key in ("value", "prior"):
        if key in leaf and not (isinstance(leaf[key], int | float)
                                and bounds[0] <= leaf[key] <= bounds[1]):
            raise InputError(origin, f"{path}.{key}", f"{leaf[key]!r} is not within the "
                                                      f"leaf's bounds {bounds}")


def _plain_value(path: str, value: Any) -> Any:
    if isinstance(value, str) and path.endswith(_SIZE_SUFFIXES):
        return parse_size(value)
    if isinstance(value, list):  # records (a layout's components): their sizes in bytes
        return [{k: _record_field(k, v) for k, v in item.items()} if isinstance(item, dict)
                else item for item in value]
    return value


def _record_field(key: str, value: Any) -> Any:
    if isinstance(value, str) and value != "eof" and (
            key in _RECORD_SIZES or key.endswith(_SIZE_SUFFIXES)):
        return parse_size(value)
    return value


def _values(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, node in tree.items():
        path = f"{prefix}{key}"
        if is_leaf(node):
            out[key] = _plain_value(path, node["value"])
        elif isinstance(node, dict):
            out[key] = _values(node, path + ".")
        else:
            out[key] = node
    return out


@dataclass(frozen=True)
class Platform:
    """A machine's model. ``noise`` > 0 only for a truth (twin) platform."""

    name: str
    tree: dict[str, Any]
    origin: str = "<memory>"
    noise: float = 0.0

    @property
    def data(self) -> dict[str, Any]:
        return _values(self.tree)

    @property
    def storage_peak_mbs(self) -> float:
        """The most the storage side takes: the least of its targets, their servers, the
        storage fabric and the routers in front of them (the client side aside)."""
        data = self.data
        fs, routers = data["filesystem"], data.get("routers")
        return min(fs["targets"] * fs["target_mbs"], fs["servers"] * fs["server_mbs"],
                   data["network"]["storage_fabric_mbs"],
                   routers["count"] * routers["bandwidth_mbs"] if routers else float("inf"))

    def client_peak_mbs(self, nodes: int) -> float:
        """What ``nodes`` client nodes can send: their NICs and Lustre clients."""
        data = self.data
        per_node = data["compute"]["nic_mbs"]
        node_client = data.get("lustre_client", {}).get("node_write_mbs") or per_node
        return nodes * min(per_node, node_client)

    def peak_mbs(self, nodes: int) -> float:
        """What ``nodes`` client nodes can write at most: the least of the storage side's
        peak and their own."""
        return min(self.storage_peak_mbs, self.client_peak_mbs(nodes))

    def free_parameters(self) -> dict[str, tuple[float, float, float]]:
        return {path: (float(leaf["value"]), float(leaf["bounds"][0]), float(leaf["bounds"][1]))
                for path, leaf in leaves(self.tree)
                if "bounds" in leaf}

    def check_fitted(self, values: Mapping[str, float]) -> None:
        """ValueError naming the first of ``values`` (fitted parameters, stored before) that
        is not a finite number within a free parameter's bounds of this model."""
        free = self.free_parameters()
        for path, value in values.items():
            if path not in free:
                raise ValueError(f"{path}: not a fitted parameter of platform {self.name}")
            _, lower, upper = free[path]
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                    lower <= value <= upper):
                raise ValueError(f"{path}: {shown(value)} is not within platform {self.name}'s "
                                 f"bounds [{lower:g}, {upper:g}]")

    def with_priors(self) -> Platform:
        """The model before any fit: each fitted parameter back at its ``prior``. A
        validation refits from here, so that no refit starts from values fitted to the rows
        it holds out."""
        return self.with_values({path: leaf["prior"] for path, leaf in leaves(self.tree)
                                 if "prior" in leaf})

    def parameter_paths(self) -> list[str]:
        """The dotted path of every value of the model (what ``with_values`` may set)."""
        return [path for path, _ in leaves(self.tree)]

    def with_values(self, values: Mapping[str, float]) -> Platform:
        tree = copy.deepcopy(self.tree)
        found = dict(leaves(tree))
        for path, value in values.items():
            if path not in found:
                raise UserError(f"{self.origin}: no parameter {path}")
            leaf = found[path]
            leaf["value"] = type(leaf["value"])(value) if isinstance(leaf["value"], int) else value
        return Platform(self.name, tree, self.origin, self.noise)

    def truth(self, seed: int) -> Platform:
        """A seeded stand-in for the real machine, differing from the model as a machine does
        (the settings are the platform's ``twin`` section, PLATFORM.md):

        - every free parameter scaled by a log-normal factor (sigma ``perturbation``, default
          0.2), within its bounds: what calibration can find;
        - every fixed cost and bandwidth (a ``_s`` or ``_mbs`` value without bounds) scaled the
          same way with sigma ``unfitted_perturbation`` (default 0): what the model takes as
          known and never refits;
        - a fraction ``slow_targets`` of the OSTs (default 0) slower by a factor drawn
          uniformly from ``slowdown`` ([low, high]): stragglers, which the model, whose OSTs
          are all alike, cannot represent. They are listed in ``twin.stragglers`` of the
          truth as [target, factor] pairs; the twin executor applies them;
        - run-to-run noise: sigma ``noise`` (default 0.05) of a log-normal factor per run.
        """
        twin = self.data.get("twin", {})
        rng = random.Random(seed)
        values = _perturbed(self.free_parameters(), float(twin.get("perturbation", 0.2)), rng)
        unfitted = {path: (float(value), 0.0, math.inf) for path, value in self._fixed_costs()}
        values.update(_perturbed(unfitted, float(twin.get("unfitted_perturbation", 0.0)), rng))
        tree = self.with_values(values).tree
        slow = _slow_targets(int(self.data["filesystem"]["targets"]),
                             float(twin.get("slow_targets", 0.0)),
                             twin.get("slowdown", [1.0, 1.0]), rng)
        tree.setdefault("twin", {})["stragglers"] = {
            "value": slow, "assumption": f"truth seed {seed}: [OST, slowdown] drawn by the twin"}
        return Platform(f"{self.name}-truth-{seed}", tree, self.origin,
                        float(twin.get("noise", 0.05)))

    def _fixed_costs(self) -> list[tuple[str, float]]:
        """Costs and bandwidths of the machine that calibration never fits (no bounds)."""
        return [(path, float(leaf["value"])) for path, leaf in leaves(self.tree)
                if path.split(".")[0] in _MACHINE_SECTIONS and path.endswith(("_s", "_mbs"))
                and "bounds" not in leaf and isinstance(leaf["value"], int | float)
                and leaf["value"] > 0]


def _perturbed(parameters: Mapping[str, tuple[float, float, float]], sigma: float,
               rng: random.Random) -> dict[str, float]:
    """Each (value, lower, upper) scaled by exp(N(0, sigma)), clipped to its bounds (one draw
    per parameter, whatever sigma, so that a truth seed draws the same OSTs at any sigma)."""
    values = {}
    for path, (value, lower, upper) in parameters.items():
        factor = math.exp(rng.gauss(0.0, sigma))
        values[path] = min(upper, max(lower, value * factor))
    return values


def _slow_targets(targets: int, fraction: float, slowdown: Any, rng: random.Random
                  ) -> list[list[float]]:
    if not (isinstance(slowdown, list) and len(slowdown) == 2 and 1 <= slowdown[0] <= slowdown[1]):
        raise UserError(f"twin.slowdown: expected [low, high] with 1 <= low <= high, "
                        f"got {slowdown!r}")
    if not 0 <= fraction <= 1:
        raise UserError(f"twin.slow_targets: expected a fraction of the OSTs in [0, 1], "
                        f"got {fraction}")
    chosen = sorted(rng.sample(range(targets), round(fraction * targets)))
    return [[target, rng.uniform(*slowdown)] for target in chosen]


def list_platforms() -> list[str]:
    return sorted(p.stem for p in paths.platforms_dir().glob("*.yaml"))


def parse_platform(tree: Any, origin: str) -> Platform:
    if not isinstance(tree, dict) or "name" not in tree:
        raise InputError(origin, "name", "not a platform file (no `name`)")
    for section in ("compute", "network", "filesystem", "site_defaults"):
        if not isinstance(tree.get(section), dict):
            raise InputError(origin, section, "missing section")
    for path, leaf in leaves(tree):
        _check_leaf(origin, path, leaf)
    check_model_figures(origin, leaves(tree))
    return Platform(str(tree["name"]), tree, origin)


def load_platform(name_or_path: str | Path) -> Platform:
    """A platform by name (sim-models/platforms/NAME.yaml) or by path."""
    path = Path(name_or_path)
    if not path.suffix:
        path = paths.platforms_dir() / f"{name_or_path}.yaml"
    if not path.exists():
        known = ", ".join(list_platforms())
        raise UserError(f"unknown platform {name_or_path!r} (known: {known})")
    return read_input(path, "platform", parse_platform)
