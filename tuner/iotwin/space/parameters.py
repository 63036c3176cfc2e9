"""Parameter spaces: which tuning-config keys a search may set, to which values, under which rules.

A space is data (``tuner/iotwin/space/spaces/NAME.yaml``, format below). Binding it to a
:class:`SpaceContext` (the platform's file system and limits, the rank count) gives a
:class:`BoundSpace`: the searched parameters (genes), each a list of values, so a point of
the space is a tuple of value indices. Operators work on indices and so cannot leave the
space; :meth:`BoundSpace.repair` applies the constraints and :meth:`BoundSpace.config` turns a
point into the tuning-config dict of interposer/CONFIG.md (sizes as byte counts, so that
equal settings give equal configs and hashes; ``iotwin.config.dumping.dump_config`` writes units).

Space file::

    name: table3
    description: free text
    parameters:
      - name: stripe_count
        key: lustre.stripe_count          # config key path; a list sets several keys to one value
        values: [4, 8, 16, -1]            # null = leave the key absent (site / library default)
        filesystems: [lustre]             # only on these file systems (absent: everywhere)
        mpi: [openmpi]                    # only under these MPI flavours (absent: any)
        at_most: max_stripe_count         # context bound; -1 and null are exempt
        over_bound: repair                # repair (clamp to the largest allowed value) | reject
      - name: cb_buffer_size
        key: mpiio.cb_buffer_size
        same_as: stripe_size              # derived from that parameter whenever it is searched
        values: [1MiB, 4MiB]              # searched itself only when `same_as` is not
      - name: cb_config_list
        key: mpiio.cb_config_list
        template: "*:{cb_nodes}"          # derived: formatted from other parameters' values
      - name: romio_ds_write
        key: mpiio.romio_ds_write
        values: [automatic, enable, disable]
        active_when: {transfer_mode: [independent]}   # otherwise absent from the config
      - name: layout
        key: lustre.components            # a layout template: values name layouts
        values: [plain, dom-64k+wide]     # of data/layouts.yaml, each a list of components

A condition of ``active_when`` on a parameter that is not in the bound space (another file
system's, another MPI's) holds: ``io: romio321`` constrains a ROMIO hint under Open MPI only.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import random
import re
import string
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from iotwin.config.resolution import literal_glob, with_dataset_settings
from iotwin.config.schema import load_schema
from iotwin.config.settings import where_set
from iotwin.config.types import Config
from iotwin.config.validation import validate_config, validate_value
from iotwin.core import paths
from iotwin.core.dotted import dotted_set
from iotwin.core.errors import InputError, UserError
from iotwin.core.io_libraries import apis_through
from iotwin.core.mpi_flavours import DEFAULT_MPI
from iotwin.core.text import printable
from iotwin.core.units import format_size, parse_size
from iotwin.core.yaml_files import read_input, read_yaml

Point = tuple[int, ...]

_PARAMETER_KEYS = {"name", "key", "values", "filesystems", "mpi", "apis", "at_most", "over_bound",
                   "same_as", "template", "active_when", "note"}


@dataclass(frozen=True)
class SpaceContext:
    """What a space needs to know about where it is searched."""

    filesystem: str  # lustre | gpfs | ufs (a local file system)
    ranks: int
    max_stripe_count: int | None = None
    mpi: str = DEFAULT_MPI  # the MPI flavour the program runs under (mpi-flavours.yaml)
    # (file, dataset) patterns some ranks write alone, independently: a collective transfer
    # there would hang the program, so configs keep them independent (workloads/partial_writes)
    partial_writes: tuple[tuple[str, str], ...] = ()
    # the I/O layers the program's files are written through (a workload's `api`s): HDF5's
    # settings are no parameter of a program that writes no HDF5 file
    apis: tuple[str, ...] = ("hdf5", "mpiio", "posix")
    # the site's rules (iotwin.model.site_rules): the files a hand-set layout may go to (None:
    # every file), the OST pool it must name (None: any), and (config key, value) pairs the
    # site forbids
    layout_files: tuple[str, ...] | None = None
    layout_pool: str | None = None
    forbidden: tuple[tuple[str, Any], ...] = ()
    # the largest Data-on-MDT component the file system takes (None: it takes none)
    dom_max_bytes: int | None = None

    def bound(self, name: str) -> int | None:
        if name not in ("ranks", "max_stripe_count"):
            raise UserError(f"unknown bound {name!r}: expected ranks or max_stripe_count")
        return getattr(self, name)


@dataclass(frozen=True)
class Parameter:
    name: str
    keys: tuple[str, ...]
    values: tuple[Any, ...] = ()
    filesystems: tuple[str, ...] = ()
    mpi: tuple[str, ...] = ()
    # the workload APIs of the programs it is searched for, writing through these alone (none:
    # every program's): a file system without striping still searches the layout for a POSIX
    # program, whose one lever it is, and the interposer reports it not effective there
    apis: tuple[str, ...] = ()
    at_most: str | None = None
    over_bound: str = "repair"
    same_as: str | None = None
    template: str | None = None
    active_when: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)

    def applies_in(self, context: SpaceContext) -> bool:
        return ((not self.filesystems or context.filesystem in self.filesystems)
                and (not self.mpi or context.mpi in self.mpi)
                and (not self.apis or set(context.apis) <= set(self.apis))
                and (not self.hdf5_only or bool(apis_through("hdf5") & set(context.apis)))
                and (not self.mpiio_only or bool(apis_through("mpiio") & set(context.apis)))
                and not (self.layout_only and context.layout_files == ()))

    @property
    def layout_only(self) -> bool:
        """Its keys are the file layout's (lustre): a site may leave that to its default."""
        return all(key.split(".")[0] == "lustre" for key in self.keys)

    @property
    def hdf5_only(self) -> bool:
        """Its keys are HDF5's (hdf5, dataset): they act on HDF5 files alone, those of the
        APIs that go through HDF5 (netCDF-4 writes HDF5 files: data/io-libraries.yaml)."""
        return all(key.split(".")[0] in ("hdf5", "dataset") for key in self.keys)

    @property
    def mpiio_only(self) -> bool:
        """Its keys are MPI-IO's (hints, Open MPI's I/O): a POSIX program never reaches them
        (every parallel library of data/io-libraries.yaml goes through MPI-IO)."""
        return all(key.split(".")[0] in ("mpiio", "openmpi") for key in self.keys)

    @property
    def names_layouts(self) -> bool:
        """A layout template: its values name layouts of data/layouts.yaml."""
        return self.keys == (LAYOUT_KEY,)

    def offered_in(self, context: SpaceContext) -> Parameter:
        """The parameter with the values ``context``'s file system takes: a layout with
        Data-on-MDT only where the metadata targets take its first component."""
        if not self.names_layouts:
            return self
        return replace(self, values=tuple(
            name for name in self.values
            if all(not c.get("mdt") or (context.dom_max_bytes or 0) >= c["end"]
                   for c in named_layouts()[name] or [])))

    def config_value(self, value: Any, context: SpaceContext) -> Any:
        """What a value sets its keys to: a named layout's components, each stripe count
        within ``context``'s bound (as ``at_most: max_stripe_count`` repairs a count)."""
        components = named_layouts()[value] if self.names_layouts else None
        if components is None:
            return None if self.names_layouts else value
        bound = context.max_stripe_count
        return [{**c, "stripe_count": bound} if bound and _exceeds(c.get("stripe_count"), bound)
                else c for c in components]


class Rejected(UserError):
    """A point that violates a constraint which is not repaired; the message says which."""


@dataclass(frozen=True)
class Space:
    name: str
    description: str
    parameters: tuple[Parameter, ...]

    def bind(self, context: SpaceContext, fixed: Mapping[str, Any] | None = None) -> BoundSpace:
        """The space on one platform; ``fixed`` pins parameters to one value each."""
        return BoundSpace(self._pinned(fixed or {}), context)

    def _pinned(self, fixed: Mapping[str, Any]) -> Space:
        by_name = {p.name: p for p in self.parameters}
        unknown = set(fixed) - set(by_name)
        if unknown:
            raise UserError(f"space {self.name}: no parameter {sorted(unknown)[0]!r} to fix")
        pinned = []
        for parameter in self.parameters:
            if parameter.name in fixed:
                leaf = parameter.keys[0].split(".")[-1]
                value = _parse_value(leaf, fixed[parameter.name], f"space {self.name}",
                                     f"fixed {parameter.name}")
                if value not in parameter.values:
                    raise UserError(f"space {self.name}: {parameter.name}: {value!r} is not "
                                    f"one of {list(parameter.values)}")
                parameter = replace(parameter, values=(value,))
            pinned.append(parameter)
        return replace(self, parameters=tuple(pinned))


class BoundSpace:
    """A space on one platform and rank count: genes, repair, configs."""

    def __init__(self, space: Space, context: SpaceContext) -> None:
        self.space = space
        self.context = context
        present = [p.offered_in(context) for p in space.parameters if p.applies_in(context)]
        self._absent = {p.name for p in space.parameters} - {p.name for p in present}
        searched_names = {p.name for p in present if p.values and not p.template}
        self.genes: tuple[Parameter, ...] = tuple(
            p for p in present
            if p.values and not p.template and not (p.same_as and p.same_as in searched_names))
        self.derived: tuple[Parameter, ...] = tuple(p for p in present if p not in self.genes)
        self._index = {p.name: i for i, p in enumerate(self.genes)}

    @property
    def name(self) -> str:
        return self.space.name

    @property
    def upper(self) -> list[int]:
        """The largest index of each gene (for integer mutation operators)."""
        return [len(p.values) - 1 for p in self.genes]

    @property
    def size(self) -> int:
        return math.prod(len(p.values) for p in self.genes)

    def random_point(self, rng: random.Random) -> Point:
        return tuple(rng.randrange(len(p.values)) for p in self.genes)

    def points(self) -> Iterator[Point]:
        """Every point, in lexicographic order (repair them to drop equivalent ones)."""
        return itertools.product(*(range(len(p.values)) for p in self.genes))

    def values(self, point: Point) -> dict[str, Any]:
        """Gene name -> value of a point (inactive genes included)."""
        self._check_shape(point)
        return {p.name: p.values[i] for p, i in zip(self.genes, point, strict=True)}

    def point_of(self, values: Mapping[str, Any]) -> Point:
        """The point with these gene values (missing genes take their first value)."""
        unknown = set(values) - set(self._index)
        if unknown:
            raise UserError(f"space {self.name}: no parameter {sorted(unknown)[0]!r}")
        point = []
        for gene in self.genes:
            value = values.get(gene.name, gene.values[0])
            if value not in gene.values:
                raise UserError(f"space {self.name}: {gene.name}: {value!r} is not one of "
                                f"{list(gene.values)}")
            point.append(gene.values.index(value))
        return tuple(point)

    def is_active(self, parameter: Parameter, values: Mapping[str, Any]) -> bool:
        return all(name in self._absent or values.get(name) in allowed
                   for name, allowed in parameter.active_when.items())

    def repair(self, point: Point) -> tuple[Point, list[str]]:
        """The equivalent point that satisfies every repairable constraint, and what changed.

        Inactive genes are reset to their first value so that points which give the same
        config are the same point. Raises :class:`Rejected` for a bound with ``over_bound:
        reject``.
        """
        values = self.values(point)
        repaired = list(point)
        notes: list[str] = []
        for i, gene in enumerate(self.genes):
            if not self.is_active(gene, values):
                repaired[i] = 0
                continue
            allowed = self._largest_within_bound(gene, repaired[i])
            if allowed != repaired[i]:
                if gene.over_bound == "reject":
                    raise Rejected(self._bound_message(gene, gene.values[repaired[i]]))
                notes.append(f"{self._bound_message(gene, gene.values[repaired[i]])}: "
                             f"using {gene.values[allowed]}")
                repaired[i] = allowed
        return tuple(repaired), notes

    def config(self, point: Point) -> Config:
        """The tuning config (interposer/CONFIG.md) of a point, after repair."""
        point, _ = self.repair(point)
        values = self.values(point)
        config: dict[str, Any] = {}
        for gene in self.genes:
            if self.is_active(gene, values):
                _set_keys(config, gene.keys, gene.config_value(values[gene.name], self.context))
        for derived in self.derived:
            if not self.is_active(derived, values):
                continue
            value = self._derived_value(derived, values)
            if value is not None:
                _set_keys(config, derived.keys, value)
        config = self._within_site_rules(config)
        return self._without_hanging_writes(validate_config(config, f"space {self.space.name}"))

    def _within_site_rules(self, config: dict[str, Any]) -> dict[str, Any]:
        """The config a site allows: a forbidden value left to the default (a stripe count of
        -1, every target, is the most stripes the site allows), a hand-set layout on the pool
        the site asks for, and the layout only on the files the site lets a layout be set
        for."""
        for key, value in self.context.forbidden:
            block, _, name = key.partition(".")
            for _, holder in where_set(config.get(block, {}), block, name):
                if holder[name] != value:
                    continue
                if key == "lustre.stripe_count" and value == -1 and \
                        self.context.max_stripe_count:
                    holder[name] = self.context.max_stripe_count
                else:
                    del holder[name]
        if config.get("lustre") and self.context.layout_pool:
            config["lustre"].setdefault("pool", self.context.layout_pool)
        files = self.context.layout_files
        if files is None or "lustre" not in config:
            return config
        lustre = config.pop("lustre")
        if files:
            config["files"] = [{"match": literal_glob(name), "lustre": dict(lustre)}
                               for name in files]
        return config

    def _without_hanging_writes(self, config: Config) -> Config:
        forced = config.get("dataset", {}).get("transfer_mode")
        if forced != "collective" or not self.context.partial_writes:
            return config
        return with_dataset_settings(config, self.context.partial_writes,
                                     {"transfer_mode": "independent"})

    def describe(self, point: Point) -> str:
        point, _ = self.repair(point)
        values = self.values(point)
        return " ".join(f"{g.name}={_show(g.keys[0].split('.')[-1], values[g.name])}"
                        for g in self.genes if self.is_active(g, values) and len(g.values) > 1)

    def _derived_value(self, parameter: Parameter, values: Mapping[str, Any]) -> Any:
        if parameter.template is not None:
            inputs = {name: value for name, value in values.items() if value is not None}
            try:
                return parameter.template.format(**inputs)
            except KeyError:
                return None  # a template input is inactive: leave the key to its default
        if parameter.same_as is not None:
            return values.get(parameter.same_as)
        return None

    def _largest_within_bound(self, gene: Parameter, index: int) -> int:
        bound = self.context.bound(gene.at_most) if gene.at_most else None
        if bound is None or not _exceeds(gene.values[index], bound):
            return index
        within = [i for i, v in enumerate(gene.values) if not _exceeds(v, bound)]
        if not within:
            raise Rejected(f"space {self.name}: {gene.name}: no value within "
                           f"{gene.at_most}={bound}")
        # the largest number within the bound; null (the default) ranks below every number
        return max(within, key=lambda i: (gene.values[i] is not None, gene.values[i] or 0))

    def _bound_message(self, gene: Parameter, value: Any) -> str:
        bound = self.context.bound(gene.at_most) if gene.at_most else None
        return f"{gene.name}={value} exceeds {gene.at_most}={bound}"

    def _check_shape(self, point: Sequence[int]) -> None:
        if len(point) != len(self.genes):
            raise ValueError(f"space {self.name}: a point has {len(self.genes)} genes, "
                             f"got {len(point)}")
        for gene, index in zip(self.genes, point, strict=True):
            if not 0 <= index < len(gene.values):
                raise ValueError(f"space {self.name}: {gene.name}: index {index} outside "
                                 f"0..{len(gene.values) - 1}")


def _exceeds(value: Any, bound: int) -> bool:
    """Special values (-1 = "all", null = default) never exceed a bound."""
    return isinstance(value, int) and value > 0 and value > bound


def _set_keys(config: dict[str, Any], keys: Sequence[str], value: Any) -> None:
    if value is None:
        return
    for key in keys:
        dotted_set(config, key, value)


def _show(leaf: str, value: Any) -> str:
    if isinstance(value, dict):
        return "(" + ",".join(_show(k, v) for k, v in value.items()) + ")"
    if value is None:
        return "default"
    if leaf in _size_keys() and isinstance(value, int) and value > 0:
        return format_size(value)
    return str(value)


# --- loading -------------------------------------------------------------------------------

#: the key of a layout template parameter
LAYOUT_KEY = "lustre.components"


#: a layout's name: what a space's values and an error line can quote
_LAYOUT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")


@functools.cache
def named_layouts() -> dict[str, list[dict[str, Any]] | None]:
    """data/layouts.yaml: each named layout's components (sizes in bytes), or None."""
    return read_layouts(paths.data_dir() / "layouts.yaml")


def read_layouts(path: Path) -> dict[str, list[dict[str, Any]] | None]:
    """A list of named layouts: a mapping of names to a config's ``lustre.components`` (its
    schema, config-schema.yaml, gives each field's type and bounds) or null; one error naming
    the file and the layout else."""
    return read_input(path, "layout list", _parse_layouts)


def _parse_layouts(data: Any, source: str) -> dict[str, list[dict[str, Any]] | None]:
    if not isinstance(data, dict) or not data:
        raise InputError(source, "", "expected a mapping of layout names to components")
    for name in data:
        if not isinstance(name, str) or not _LAYOUT_NAME.fullmatch(name):
            raise InputError(source, printable(repr(name))[:40], "expected a layout name "
                             "(letters, digits, _.+-, at most 64)")
    return {name: None if components is None else
            validate_value("lustre", "components", components, source, name)
            for name, components in data.items()}


def list_spaces() -> list[str]:
    return sorted(p.stem for p in paths.spaces_dir().glob("*.yaml"))


def default_space_for(filesystem: str) -> str:
    """The space that declares itself the default for ``filesystem`` (its `default_for` list):
    the one that holds that file system's knobs."""
    for name in list_spaces():
        data = read_yaml(paths.spaces_dir() / f"{name}.yaml", "space")
        if filesystem in (data.get("default_for") or ()):
            return name
    raise UserError(f"no space declares itself the default for {filesystem} file systems "
                    f"(default_for in {paths.spaces_dir()}/*.yaml): name one with --space")


def load_space(name_or_path: str | Path) -> Space:
    """A space by name (``tuner/iotwin/space/spaces/NAME.yaml``) or from a YAML file."""
    path = Path(name_or_path)
    if not path.suffix:
        path = paths.spaces_dir() / f"{name_or_path}.yaml"
        if not path.exists():
            raise UserError(f"no space {name_or_path!r}: known spaces are "
                            f"{', '.join(list_spaces())}")
    return read_input(path, "space", parse_space)


def parse_space(data: Any, source: str) -> Space:
    if not isinstance(data, dict) or not isinstance(data.get("parameters"), list):
        raise InputError(source, "parameters", "a space is a mapping with a `parameters` list")
    parameters = tuple(_parse_parameter(p, source, f"parameters[{i}]")
                       for i, p in enumerate(data["parameters"]))
    at = {p.name: f"parameters[{i}]" for i, p in enumerate(parameters)}
    names = [p.name for p in parameters]
    for parameter in parameters:
        try:
            fields = [field for _, field, _, _ in
                      string.Formatter().parse(parameter.template or "") if field is not None]
        except ValueError as error:
            raise InputError(source, f"{at[parameter.name]}.template", str(error)) from None
        for other in (parameter.same_as, *parameter.active_when, *fields):
            if other is not None and other not in names:
                raise InputError(source, at[parameter.name],
                                 f"refers to unknown parameter {other!r}")
    if len(set(names)) != len(names):
        raise InputError(source, "parameters", "parameter names must be unique")
    return Space(str(data.get("name", Path(source).stem)), str(data.get("description", "")),
                 parameters)


def _parse_parameter(data: Any, source: str, where: str) -> Parameter:
    if not isinstance(data, dict) or "name" not in data or "key" not in data:
        raise InputError(source, where, "a parameter needs `name` and `key`")
    name = _text(data["name"], source, f"{where}.name")
    unknown = set(data) - _PARAMETER_KEYS
    if unknown:
        raise InputError(source, f"{where}.{sorted(unknown)[0]}", f"unknown key of parameter "
                         f"{name}")
    keys = data["key"] if isinstance(data["key"], list) else [data["key"]]
    if not keys:
        raise InputError(source, f"{where}.key", "expected a config key or a list of them")
    for i, key in enumerate(keys):
        _config_key(key, source, f"{where}.key[{i}]" if isinstance(data["key"], list) else
                    f"{where}.key")
    given = data.get("values", [])
    if not isinstance(given, list):
        raise InputError(source, f"{where}.values", f"expected a list, got {_shown(given)}")
    for i, value in enumerate(given):  # each a value its keys take (a layout: a name, below)
        if value is not None and keys != [LAYOUT_KEY]:
            for key in keys:
                validate_config(_nested(key, value), source, f"{where}.values[{i}]")
    for field_name in ("template", "same_as", "at_most"):
        if data.get(field_name) is not None:
            _text(data[field_name], source, f"{where}.{field_name}")
    for field_name in ("filesystems", "mpi", "apis"):
        if not isinstance(data.get(field_name, []), list) or not all(
                isinstance(item, str) for item in data.get(field_name, [])):
            raise InputError(source, f"{where}.{field_name}", "expected a list of names")
    conditions = data.get("active_when") or {}
    if not isinstance(conditions, dict):
        raise InputError(source, f"{where}.active_when", f"expected a mapping parameter -> "
                         f"values, got {_shown(conditions)}")
    values = tuple(_parse_value(k.split(".")[-1], v, source, f"{where}.values")
                   for k in keys[:1] for v in given)
    unknown_layouts = [v for v in values if keys == [LAYOUT_KEY] and v not in named_layouts()]
    if unknown_layouts:
        raise InputError(source, f"{where}.values", f"{unknown_layouts[0]!r} is not a layout "
                         f"of {paths.data_dir() / 'layouts.yaml'} "
                         f"({', '.join(named_layouts())})")
    if not values and not data.get("template"):
        raise InputError(source, where, "needs `values` or `template`")
    if len({json.dumps(v, sort_keys=True) for v in values}) != len(values):
        raise InputError(source, f"{where}.values", "values must be distinct")
    if data.get("over_bound", "repair") not in ("repair", "reject"):
        raise InputError(source, f"{where}.over_bound", "expected repair or reject")
    active_when = {str(k): tuple(v if isinstance(v, list) else [v])
                   for k, v in conditions.items()}
    return Parameter(name=name, keys=tuple(keys), values=values,
                     filesystems=tuple(data.get("filesystems", ())),
                     mpi=tuple(data.get("mpi", ())), apis=tuple(data.get("apis", ())),
                     at_most=data.get("at_most"),
                     over_bound=data.get("over_bound", "repair"), same_as=data.get("same_as"),
                     template=data.get("template"), active_when=active_when)


def _text(value: Any, source: str, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise InputError(source, where, f"expected a non-empty string, got {_shown(value)}")
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:40]}..."


def _config_key(key: Any, source: str, where: str) -> None:
    """A key path of the config schema (``block.key``, a hint map's ``block.key.name``);
    InputError naming the field else (a misspelt key would 'tune' to the site default)."""
    blocks = load_schema().blocks
    parts = _text(key, source, where).split(".")
    if len(parts) < 2 or parts[0] not in blocks or parts[1] not in blocks[parts[0]]:
        raise InputError(source, where, f"{key!r} is not a key of the tuning config "
                         f"(interposer/CONFIG.md)")


def _nested(key: str, value: Any) -> dict[str, Any]:
    """The config that sets the dotted ``key`` to ``value``."""
    config: Any = value
    for part in reversed(key.split(".")):
        config = {part: config}
    return dict(config)


@functools.cache
def _size_keys() -> frozenset[str]:
    """The config keys (and record fields) whose values are sizes."""
    def sizes(keys: Mapping[str, Any]) -> set[str]:
        return {name for name, key in keys.items() if key.type == "size"}.union(
            *(sizes(key.fields) for key in keys.values()))
    return frozenset().union(*(sizes(keys) for keys in load_schema().blocks.values()))


def _parse_value(leaf: str, value: Any, source: str, where: str) -> Any:
    """Sizes become byte counts, so that equal sizes compare equal however they are written."""
    try:
        if isinstance(value, dict):
            return {k: _parse_value(k, v, source, where) for k, v in value.items()}
        if leaf in _size_keys() and isinstance(value, str):
            return parse_size(value)
    except ValueError as error:
        raise InputError(source, where, str(error)) from error
    return value

