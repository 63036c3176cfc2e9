"""The tuning pipeline, as one library call: search, confirm, default vs tuned.

    tune(spec, store):
        campaign <- the stored campaign of spec (created when new; a resume reuses every
                    stored run, so nothing measured is run again)
        capture:  a program to tune in simulation: its workload captured from its first run
                  (of the default config, stored as a measurement)
        search:   the strategy asks for points until it is done or the real budget is spent
        confirm:  the search's `confirm` best configs each run `confirm_runs` more times,
                  interleaved; the best median of these fresh runs is the tuned config
        summary:  default and tuned each measured `summary_repeat` times in the same session

``iotwin tune`` and ``iotwin demo`` are this call with a command line around it. The whole
:class:`TuneSpec` (search and pipeline options) is the campaign's stored spec, so that a
resumed campaign goes on exactly as it started.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any, TextIO

from iotwin.core.errors import UserError
from iotwin.core.hashing import config_hash
from iotwin.core.progress import say
from iotwin.store.database import Store
from iotwin.tuning.campaign import (
    CampaignEvaluator,
    CampaignSpec,
    Progress,
    capture_workload_of,
    check_spec,
    open_campaign,
    run_campaign,
)
from iotwin.tuning.confirmation import Confirmed, confirm_best
from iotwin.tuning.repetitions import Measurement, RunAndStore, measure

_PIPELINE_KEY = "pipeline"  # the campaign spec's key holding the PipelineOptions


@dataclass(frozen=True)
class PipelineOptions:
    """What follows the search."""

    confirm: int = 3  # the search's best configs re-measured (< 2: the best single run wins)
    confirm_runs: int = 3  # fresh runs of each
    summary_repeat: int = 5  # runs of default and of tuned at the end (0: none)

    def check(self) -> None:
        if min(self.confirm, self.confirm_runs, self.summary_repeat) < 0:
            raise UserError("--confirm, --confirm-runs and --summary-repeat must be >= 0")


@dataclass(frozen=True)
class TuneSpec:
    search: CampaignSpec
    pipeline: PipelineOptions = field(default_factory=PipelineOptions)

    def to_json(self) -> dict[str, Any]:
        return {**self.search.to_json(), _PIPELINE_KEY: asdict(self.pipeline)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TuneSpec:
        """The spec as stored; a campaign stored before its pipeline options were gets the
        defaults (see :func:`stored_pipeline`)."""
        search = CampaignSpec.from_json({k: v for k, v in data.items() if k != _PIPELINE_KEY})
        return cls(search, PipelineOptions(**data.get(_PIPELINE_KEY) or {}))


def stored_pipeline(data: Mapping[str, Any]) -> bool:
    """Whether a stored campaign spec holds its pipeline options."""
    return _PIPELINE_KEY in data


@dataclass
class TuneResult:
    campaign: CampaignEvaluator
    confirmed: list[Confirmed]  # best first; [0] is the tuned config
    summary: dict[str, Measurement]  # "default" and "tuned" (empty with summary_repeat 0)

    @property
    def campaign_id(self) -> int:
        return self.campaign.id

    @property
    def tuned(self) -> dict[str, Any]:
        if not self.confirmed:
            raise UserError(f"campaign {self.campaign_id}: no run succeeded; see `iotwin show "
                            f"{self.campaign_id}` for the errors")
        return self.confirmed[0].config


def start(store: Store, spec: TuneSpec, name: str | None = None) -> int:
    """A new tuning campaign of ``spec``, checked and stored; its id."""
    check_spec(spec.search)
    spec.pipeline.check()
    name = name or f"tune {spec.search.target.label} on {spec.search.platform}"
    return store.create_campaign(name, kind="tune", spec=spec.to_json())


def stored_spec(store: Store, campaign_id: int) -> TuneSpec:
    """The spec a tuning campaign started with."""
    campaign = store.campaign(campaign_id)
    if campaign.kind != "tune":
        raise UserError(f"campaign {campaign_id} is a {campaign.kind} campaign, not a tuning")
    return TuneSpec.from_json(campaign.spec)


def tune(spec: TuneSpec, store: Store, campaign_id: int | None = None, *,
         name: str | None = None, on_progress: Callable[[Progress], None] | None = None,
         progress: TextIO | None = sys.stderr) -> TuneResult:
    """Run (or, with ``campaign_id``, resume) the tuning of ``spec``: search, confirmation,
    default vs tuned. ``name``: a new campaign's; ``on_progress``: each search generation;
    ``progress``: a line per confirmation and summary run. No confirmed config (and no
    summary) when no run succeeded."""
    if campaign_id is None:
        campaign_id = start(store, spec, name)
    if spec.search.needs_capture:  # a program to simulate: its workload from its first run
        spec = replace(spec, search=capture_workload_of(store, campaign_id, spec.search,
                                                        _printer(progress)))
    campaign = open_campaign(store, campaign_id, spec.search, on_progress)
    run_campaign(campaign)
    options = spec.pipeline
    confirmed = confirm_best(campaign, options.confirm, options.confirm_runs, progress)
    summary = (default_vs_tuned(store, campaign, confirmed[0].config, options.summary_repeat,
                                progress) if confirmed else {})
    return TuneResult(campaign, confirmed, summary)


def _printer(progress: TextIO | None) -> Callable[[str], None]:
    return functools.partial(say, progress)


def default_vs_tuned(store: Store, campaign: CampaignEvaluator, tuned: dict[str, Any],
                     repeat: int, progress: TextIO | None = sys.stderr
                     ) -> dict[str, Measurement]:
    """The default and the tuned config, ``repeat`` runs each, stored in the campaign (a
    resumed campaign runs only the ones missing)."""
    if repeat < 1:
        return {}
    rows = store.evaluations(campaign.id, source=campaign.executor.source)

    def runs(config: dict[str, Any], label: str) -> RunAndStore:
        return lambda repetition: campaign.run_and_store(config, repetition, {"label": label})

    return {label: measure(campaign.spec.target, config, runs(config, label), repeat=repeat,
                           label=label, progress=progress,
                           stored=[row for row in rows if row.details.get("label") == label
                                   and row.config_hash == config_hash(config)])
            for label, config in (("default", {}), ("tuned", tuned))}
