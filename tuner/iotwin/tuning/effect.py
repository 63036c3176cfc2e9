"""Whether the tuned config's settings took effect where it was measured, from the interposer's
reports of its summary runs: a difference is credited to settings only where they acted. A
POSIX program's layout keys on a file system without striping (this machine's ext4) take no
effect; the summary says so and keeps the default instead of offering a speedup that is noise."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from iotwin.executors.interposer_reports import Report, setting_outcomes


@dataclass(frozen=True)
class NotEffective:
    """A requested setting that took no effect, in how many of the run's files."""

    key: str
    requested: Any
    reason: str | None
    files: int

    def text(self) -> str:
        why = f": {self.reason}" if self.reason else ""
        return f"{self.key}={self.requested} in {self.files} file(s){why}"


@dataclass(frozen=True)
class SettingsEffect:
    not_effective: tuple[NotEffective, ...]
    any_effective: bool

    @property
    def none_took_effect(self) -> bool:
        """Settings were asked for and not one of them acted on any file."""
        return bool(self.not_effective) and not self.any_effective


def settings_effect(reports: list[Report]) -> SettingsEffect:
    """What the reports of one run say of its config's settings, per setting and reason."""
    outcomes = setting_outcomes(reports)
    files: dict[tuple[str, str, str | None], set[str]] = {}
    for outcome in outcomes:
        if not outcome.took_effect:
            key = (outcome.key, str(outcome.requested), outcome.reason)
            files.setdefault(key, set()).add(outcome.file)
    return SettingsEffect(
        tuple(NotEffective(key, requested, reason, len(names))
              for (key, requested, reason), names in files.items()),
        any(outcome.took_effect for outcome in outcomes))


def as_json(effect: SettingsEffect) -> Mapping[str, Any]:
    return {"none_took_effect": effect.none_took_effect,
            "not_effective": [{"key": n.key, "requested": n.requested, "reason": n.reason,
                               "files": n.files} for n in effect.not_effective]}
