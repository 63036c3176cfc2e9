"""Capturing the workload of a program tuned in simulation, from the campaign's first real
run (the default config), which is stored (a capture run that fails too, as a failed run,
before the campaign stops) but is no measurement of the default's rate: capture's own work
slows it (tuning.stored_runs); the spec with its workload becomes the campaign's stored spec,
so a resume does not capture again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from iotwin.core.limits import RUN_TIMEOUT_S
from iotwin.core.run_records import RunResult
from iotwin.core.stats import format_mbs
from iotwin.executors.capture_run import FailedCapture, capture_program
from iotwin.store.database import Store
from iotwin.tuning.spec import CampaignSpec

CAPTURE_LABEL = "capture"  # details label of the capture run


def capture_workload_of(store: Store, campaign_id: int, spec: CampaignSpec,
                        progress: Callable[[str], None] = lambda line: None) -> CampaignSpec:
    """The spec with the program's workload, captured from one run of the default config on
    this machine; that run is stored (labelled, not a search run), and the spec with its
    workload as the campaign's spec (a resume does not capture again)."""
    def stored(result: RunResult) -> None:
        store.add_run(campaign_id, spec.target, result, config={}, platform=spec.platform,
                      source="real", details={"label": CAPTURE_LABEL})

    try:
        program = capture_program(spec.target, timeout_s=spec.timeout_s or RUN_TIMEOUT_S,
                                  workdir=spec.working_dir)
    except FailedCapture as failed:
        stored(failed.run)
        raise
    result, workload = program.run, program.workload
    stored(result)
    for what in program.not_modelled:
        progress(f"capture: not modelled: {what}")
    captured = replace(spec, workload=workload)
    # the stored spec's other keys (the tune pipeline's options) stay
    store.update_campaign_spec(campaign_id, {**store.campaign(campaign_id).spec,
                                             **captured.to_json()})
    progress(f"captured the workload of {spec.target.label}: {program.summary()}; default "
             f"config {format_mbs(result.rate_mbs or 0)} MB/s (I/O rate) with capture on, "
             f"measured again without it")
    return captured
