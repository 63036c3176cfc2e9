"""The tuning pipeline, as one library call: search, confirm, default vs tuned.

    tune(spec, store):
        campaign <- the stored campaign of spec (created when new; a resume reuses every
                    stored run, so nothing measured is run again)
        capture:  a program to tune in simulation: its workload captured from its first run
                  (of the default config, stored as a measurement)
        search:   the strategy asks for points until it is done or the real budget is spent
        confirm:  the search's `confirm` best configs each run `confirm_runs` more times,
                  interleaved, and those the runs cannot tell from the best race on up to
                  `confirm_max_runs` (tuning.confirmation); the best median of these fresh
                  runs is the tuned config
        summary:  default and tuned (and the user's own config, given one) measured in
                  `summary_repeat` rounds of one run each, the order alternating (ABBA...):
                  each round is a pair, on which the speedup and its interval are taken
                  (core.stats.paired_speedup), so drift cancels
        explain:  default and tuned (and the user's own) simulated on the platform model,
                  each with its ceiling and the mechanism that binds it (tuning.explanation)

A user who stops the tune (Ctrl-C) gets what was measured so far (``stop_on_interrupt``): the
step under way ends, the steps after it are not run, and the result says which step was
stopped; the tuned config is then the best the finished steps measured.

``iotwin tune`` and ``iotwin demo`` are this call with a command line around it. The whole
:class:`TuneSpec` (search and pipeline options) is the campaign's stored spec, so that a
resumed campaign goes on exactly as it started.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, TextIO

from iotwin.config.types import Config
from iotwin.config.validation import validate_config
from iotwin.core.errors import UserError
from iotwin.core.hashing import config_hash
from iotwin.core.progress import say
from iotwin.core.stats import Speedup
from iotwin.store.database import Store
from iotwin.tuning.campaign import (
    CampaignEvaluator,
    Progress,
    Screening,
    open_campaign,
    run_campaign,
)
from iotwin.tuning.captured_workload import capture_workload_of
from iotwin.tuning.confirmation import Confirmed, confirm_best
from iotwin.tuning.explanation import Explanation, explain, last_fit, summary_configs
from iotwin.tuning.parts import CampaignParts, assemble
from iotwin.tuning.repetitions import (
    Measurement,
    RunAndStore,
    measure_pairs,
    measured_io_rates,
    pair_speedup,
)
from iotwin.tuning.spec import TuneSpec

#: the step of a tune a user stopped
Step = Literal["search", "confirmation", "summary"]


@dataclass
class TuneResult:
    campaign: CampaignEvaluator
    confirmed: list[Confirmed]  # best first; [0] is the tuned config
    summary: dict[str, Measurement]  # "default" and "tuned" (empty with summary_repeat 0)
    explanation: Explanation | None = None  # None: no workload to simulate
    stopped: Step | None = None  # the step the user stopped (None: every step ran)

    @property
    def campaign_id(self) -> int:
        return self.campaign.id

    @property
    def tuned(self) -> Config:
        if not self.confirmed:
            raise UserError(f"campaign {self.campaign_id}: no run succeeded; see `iotwin show "
                            f"{self.campaign_id}` for the errors")
        return self.confirmed[0].config


def prepare(spec: TuneSpec, keep: Path | None = None) -> tuple[TuneSpec, CampaignParts]:
    """``spec`` checked, with its defaults resolved (the space for where the runs happen),
    and the campaign's parts built from it, once (``keep``: where its runs keep the program's
    output, ``--keep``): UserError for a spec that cannot run."""
    spec.check()
    parts = assemble(spec.search, keep=keep)
    return replace(spec, search=parts.spec), parts


def start(store: Store, spec: TuneSpec, name: str | None = None, keep: Path | None = None
          ) -> tuple[int, TuneSpec, CampaignParts]:
    """A new tuning campaign of ``spec``, checked and stored: its id, its spec as stored and
    its parts (for :func:`tune`; ``keep`` as :func:`prepare`)."""
    spec, parts = prepare(spec, keep)
    name = name or f"tune {spec.search.target.label} on {spec.search.platform}"
    return store.create_campaign(name, kind="tune", spec=spec.to_json()), spec, parts


def stored_spec(store: Store, campaign_id: int) -> TuneSpec:
    """The spec a tuning campaign started with."""
    campaign = store.campaign(campaign_id)
    if campaign.kind != "tune":
        raise UserError(f"campaign {campaign_id} is a {campaign.kind} campaign, not a tuning")
    return TuneSpec.from_json(campaign.spec)


def tune(spec: TuneSpec, store: Store, campaign_id: int | None = None, *,
         parts: CampaignParts | None = None, name: str | None = None,
         on_progress: Callable[[Progress | Screening], None] | None = None,
         progress: TextIO | None = sys.stderr, keep: Path | None = None,
         stop_on_interrupt: bool = False) -> TuneResult:
    """Run (or, with ``campaign_id``, resume) the tuning of ``spec``: search, confirmation,
    default vs tuned. ``parts``: the campaign's, as :func:`start` built them (else built
    here); ``name``: a new campaign's; ``on_progress``: each search generation and each
    step of its screening in simulation;
    ``progress``: a line per confirmation and summary run; ``keep``: where the runs keep the
    program's output (``--keep``; for parts built here); ``stop_on_interrupt``: a
    KeyboardInterrupt after the capture ends the tune with what was measured (the result's
    ``stopped``) instead of passing through. No confirmed config (and no summary) when no
    run succeeded."""
    if campaign_id is None:
        campaign_id, spec, parts = start(store, spec, name, keep)
    elif parts is None:
        spec, parts = prepare(spec, keep)
    if not parts.complete:  # a program to simulate: its workload from its first run
        search = capture_workload_of(store, campaign_id, parts.spec, _printer(progress))
        spec, parts = replace(spec, search=search), assemble(search, parts.executor)
    campaign = open_campaign(store, campaign_id, parts, on_progress)
    options = spec.pipeline
    step: Step = "search"
    confirmed: list[Confirmed] = []
    try:
        run_campaign(campaign)
        step = "confirmation"
        confirmed = confirm_best(campaign, options.confirm, options.confirm_runs, progress,
                                 options.confirm_max_runs)
        step = "summary"
        yours = (validate_config(options.yours, "--config") if options.yours is not None
                 else None)
        summary = (default_vs_tuned(store, campaign, confirmed[0].config,
                                    options.summary_repeat, progress, yours)
                   if confirmed else {})
    except KeyboardInterrupt:
        if not stop_on_interrupt:
            raise
        # the best the finished steps measured: the search's best single run, unless the
        # confirmation had finished
        return TuneResult(campaign, confirmed or confirm_best(campaign, options.confirm, 0),
                          {}, stopped=step)
    explanation = explain(campaign.spec, confirmed[0].config, campaign.space, yours,
                          last_fit(store, campaign.id), measured_io_rates(summary)) \
        if confirmed else None
    return TuneResult(campaign, confirmed, summary, explanation)


def _printer(progress: TextIO | None) -> Callable[[str], None]:
    return functools.partial(say, progress)


def default_vs_tuned(store: Store, campaign: CampaignEvaluator, tuned: Config,
                     repeat: int, progress: TextIO | None = sys.stderr,
                     yours: Config | None = None) -> dict[str, Measurement]:
    """The default and the tuned config (and ``yours``, a user's own) in ``repeat`` rounds of
    one run each, the order alternating from round to round, stored in the campaign (a
    resumed campaign runs only the ones missing); run i of each is round i's pair."""
    if repeat < 1:
        return {}
    configs = summary_configs(tuned, yours)
    rows = store.evaluations(campaign.id, source=campaign.executor.source)

    def runs(label: str) -> RunAndStore:
        return lambda round_index: campaign.run_and_store(
            configs[label], round_index, {"label": label, "round": round_index})

    return measure_pairs(campaign.spec.target, configs, {label: runs(label) for label in configs},
                         rounds=repeat, progress=progress,
                         stored={label: [row for row in rows if row.details.get("label") == label
                                         and row.config_hash == config_hash(configs[label])]
                                 for label in configs},
                         objective=campaign.spec.objective)


def summary_speedup(summary: dict[str, Measurement], first: str = "default",
                    second: str = "tuned") -> Speedup | None:
    """``second`` / ``first`` (tuned / default unless named) on the summary's pairs, with its
    paired interval."""
    if first not in summary or second not in summary:
        return None
    return pair_speedup(summary[first], summary[second])
