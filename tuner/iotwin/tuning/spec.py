"""What a tuning is, as stored with its campaign: the search's spec and the pipeline's
options. A resumed campaign goes on exactly as it started; the defaults of ``iotwin tune``
are these fields' defaults, defined here once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from iotwin.core.errors import UserError
from iotwin.core.limits import RUN_TIMEOUT_S
from iotwin.core.run_records import OBJECTIVES, Objective, Target

_PIPELINE_KEY = "pipeline"  # the stored spec's key holding the PipelineOptions


@dataclass(frozen=True)
class CampaignSpec:
    """Everything needed to start, or resume, a search (stored as the campaign's spec)."""

    ranks: int
    platform: str = "local"
    space: str = ""  # empty: the space for the file system the runs write to
    strategy: str = "sim-screened"
    executor: str = "local"
    #: measurements during the search: a new config's first (``repetitions`` runs) or one
    #: more run of a measured config, each counts one
    real_budget: int = 20
    kernel: str | None = None
    args: tuple[str, ...] = ()
    command: tuple[str, ...] = ()
    seed: int = 0
    repetitions: int = 1  # runs per config during the search; the median counts
    timeout_s: float | None = RUN_TIMEOUT_S
    truth_seed: int = 0
    fixed: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    workload: Mapping[str, Any] | None = None  # a program's workload (captured), for the model
    site: str | None = None  # the slurm executor's site file (None: the default site)
    table: str | None = None  # the table executor's measured table (CSV)
    workdir: str | None = None  # where the program runs (absolute; None: the current directory)
    objective: Objective = "io"  # what is made faster: the I/O time or the wall time

    @property
    def target(self) -> Target:
        return Target(ranks=self.ranks, kernel=self.kernel, args=self.args,
                      command=self.command)

    @property
    def working_dir(self) -> Path:
        return Path(self.workdir) if self.workdir else Path.cwd()

    def check(self) -> None:
        if self.ranks < 1 or self.real_budget < 1 or self.repetitions < 1:
            raise UserError("ranks, the real-run budget and repetitions must be >= 1")
        if self.objective not in OBJECTIVES:
            raise UserError(f"objective {self.objective!r}: expected {' or '.join(OBJECTIVES)}")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CampaignSpec:
        tuples = {key: tuple(data.get(key, ())) for key in ("args", "command")}
        return cls(**{**data, **tuples})


@dataclass(frozen=True)
class PipelineOptions:
    """What follows the search."""

    confirm: int = 3  # the search's best configs re-measured (< 2: the best single run wins)
    confirm_runs: int = 3  # fresh runs of each
    # ... and at most this many of those the first runs cannot tell from the best (they race:
    # iotwin.tuning.confirmation; at most confirm_runs: no race)
    confirm_max_runs: int = 6
    summary_repeat: int = 6  # rounds of one default and one tuned run at the end (0: none)
    yours: dict[str, Any] | None = None  # a user's own config, measured beside them (--config)

    def check(self) -> None:
        if min(self.confirm, self.confirm_runs, self.confirm_max_runs, self.summary_repeat) < 0:
            raise UserError("--confirm, --confirm-runs, --confirm-max-runs and --summary-repeat "
                            "must be >= 0")


@dataclass(frozen=True)
class TuneSpec:
    search: CampaignSpec
    pipeline: PipelineOptions = field(default_factory=PipelineOptions)

    def check(self) -> None:
        self.search.check()
        self.pipeline.check()

    def to_json(self) -> dict[str, Any]:
        return {**self.search.to_json(), _PIPELINE_KEY: asdict(self.pipeline)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TuneSpec:
        """The spec as stored; a campaign stored before its pipeline options were gets the
        defaults (see :func:`stores_pipeline`)."""
        search = CampaignSpec.from_json({k: v for k, v in data.items() if k != _PIPELINE_KEY})
        return cls(search, PipelineOptions(**data.get(_PIPELINE_KEY) or {}))


def stores_pipeline(data: Mapping[str, Any]) -> bool:
    """Whether a stored campaign spec holds its pipeline options."""
    return _PIPELINE_KEY in data


def default_of(record: type[CampaignSpec] | type[PipelineOptions], name: str) -> Any:
    """A field's default (the one definition ``iotwin tune``'s help and options read)."""
    [found] = [f for f in fields(record) if f.name == name]
    if found.default is not MISSING:
        return found.default
    if found.default_factory is not MISSING:
        return found.default_factory()
    raise KeyError(f"{record.__name__}.{name} has no default")
