"""A space restricted to a finite set of its configs (a measured table's).

Every strategy searches it unchanged: random points and the enumeration are drawn from the
allowed points only, and repair moves any other point (a crossover's child, a mutant) to the
nearest allowed one: the fewest genes changed, the first such in the table's order on a tie.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from iotwin.config.types import Config
from iotwin.core.errors import UserError
from iotwin.core.hashing import config_hash
from iotwin.space.parameters import BoundSpace, Point


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
    only as the default and is not a point of most spaces), in the configs' order."""
    wanted = {config_hash(c): i for i, c in enumerate(configs)}
    found: dict[int, Point] = {}
    seen: set[Point] = set()  # many points repair to one (inactive genes reset): one config
    for point in space.points():
        canonical, _ = space.repair(point)
        if canonical in seen:
            continue
        seen.add(canonical)
        index = wanted.get(config_hash(space.config(canonical)))
        if index is not None:
            found.setdefault(index, canonical)
    if not found:
        raise UserError(f"space {space.name}: none of the table's {len(configs)} configs is a "
                        f"point of it (a table of another space?)")
    return [found[i] for i in sorted(found)]
