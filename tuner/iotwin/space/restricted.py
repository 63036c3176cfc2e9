"""A space restricted to a finite set of its configs (a measured table's).

Every strategy searches it unchanged: random points and the enumeration are drawn from the
allowed points only, and repair moves any other point (a crossover's child, a mutant) to the
nearest allowed one: the fewest genes changed, the first such in the table's order on a tie.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from iotwin.config.types import Config
from iotwin.core.dotted import dotted_get
from iotwin.core.errors import UserError
from iotwin.core.hashing import config_hash
from iotwin.space.parameters import BoundSpace, Parameter, Point


class RestrictedSpace(BoundSpace):
    def __init__(self, space: BoundSpace, configs: Sequence[Config]) -> None:
        super().__init__(space.space, space.context)
        self.allowed = _points_of(space, configs)
        self._nearest: dict[Point, Point] = {}

    @property
    def size(self) -> int:
        return len(self.allowed)

    def random_point(self, rng: random.Random) -> Point:
        return rng.choice(self.allowed)

    def points(self) -> Iterator[Point]:
        return iter(self.allowed)

    def repair(self, point: Point) -> tuple[Point, list[str]]:
        repaired, notes = super().repair(point)
        if repaired not in self._nearest:
            self._nearest[repaired] = min(self.allowed,
                                          key=lambda p: sum(map(int.__ne__, p, repaired)))
        return self._nearest[repaired], notes


def _points_of(space: BoundSpace, configs: Sequence[Config]) -> list[Point]:
    """The point of each config that is one (the default config, with no settings, is run
    only as the default and is not a point of most spaces), in the configs' order; of several
    points giving one config (inactive genes, a clamped bound), the first in the space's
    order."""
    found = [point for config in configs if (point := _point_of(space, config)) is not None]
    if not found:
        raise UserError(f"space {space.name}: none of the table's {len(configs)} configs is a "
                        f"point of it (a table of another space?)")
    return list(dict.fromkeys(found))


def _point_of(space: BoundSpace, config: Config) -> Point | None:
    """The first canonical point whose config is ``config`` (None: none is). Each gene's
    candidates are read off the config (what it sets at the gene's key), and every
    combination of them is checked by the config it gives: a space of hundreds of thousands
    of points is not enumerated for each table (26 s of a campaign's CPU on table3)."""
    wanted = config_hash(config)
    choices = [_gene_candidates(space, gene, config) for gene in space.genes]
    matches = {canonical for point in itertools.product(*choices)
               if config_hash(space.config(canonical := space.repair(point)[0])) == wanted}
    return min(matches, default=None)


def _gene_candidates(space: BoundSpace, gene: Parameter, config: Config) -> list[int]:
    """The value indices of ``gene`` that may have given ``config``: those that set what it
    holds at the gene's key, or, where it holds nothing there, those that set nothing (the
    first value too: an inactive gene is reset to it). Every index where no value sets what
    it holds: the site's rules may have changed it (-1 stripes become the site's most)."""
    held = [value for holder in _holders(config, gene.keys[0])
            if (value := dotted_get(holder, gene.keys[0])) is not None]
    given = [gene.config_value(value, space.context) for value in gene.values]
    if not held:
        forbidden = [value for key, value in space.context.forbidden if key == gene.keys[0]]
        return [i for i, (value, setting) in enumerate(zip(gene.values, given, strict=True))
                if i == 0 or setting is None or value in forbidden]
    matching = [i for i, setting in enumerate(given) if setting == held[0]]
    return matching or list(range(len(gene.values)))


def _holders(config: Config, key: str) -> list[Mapping[str, Any]]:
    """The config, and for a layout key each per-file block the site's rules may have moved
    the layout to."""
    if not key.startswith("lustre."):
        return [config]
    return [config, *({"lustre": rule["lustre"]} for rule in config.get("files", [])
                      if "lustre" in rule)]
