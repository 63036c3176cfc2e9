"""Real runs as a batch of scheduler jobs (a JobExecutor: Slurm outside an allocation).

    for each planned run:
        its job, if the store holds it queued (a process killed earlier submitted it)
        else submit it, and store the handle        (on disk before anything waits)
    for each planned run, in order:
        wait for its job, store the result, mark the job collected
    on an interrupt (Ctrl-C) or an error:
        cancel every job not collected, mark it cancelled (a resume submits it again)

A process killed outright (SIGKILL, a lost login node) runs none of this: its jobs stay queued
in Slurm and in the store, and the resumed campaign, which plans the same runs, collects them.
No run is lost, and none runs twice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from iotwin.config.types import Config
from iotwin.core.hashing import canonical_json, config_hash
from iotwin.core.run_records import RunResult, Target
from iotwin.executors.base import JobExecutor
from iotwin.store.database import Job, Store


@dataclass(frozen=True)
class PlannedRun:
    config: Config
    repetition: int
    seed: int
    details: Mapping[str, Any]

    @property
    def key(self) -> dict[str, Any]:
        """What the run is, as its job's ``run_key`` in the store."""
        return {"config": config_hash(self.config), "repetition": self.repetition,
                "details": dict(self.details)}


def run_as_jobs(executor: JobExecutor, store: Store, campaign_id: int, target: Target,
                runs: Sequence[PlannedRun],
                store_result: Callable[[PlannedRun, RunResult], int]
                ) -> list[tuple[RunResult, int]]:
    """The runs' results, in order, each stored as its job ends (``store_result``, which
    returns the run's id in the store), with that id."""
    queued = {canonical_json(job.run_key): job for job in store.queued_jobs(campaign_id)}
    jobs: list[Job] = []
    try:
        for run in runs:
            queued_job = queued.pop(canonical_json(run.key), None)
            jobs.append(queued_job or _submit(executor, store, campaign_id, target, run))
        return [_collect(executor, store, target, run, job, store_result)
                for run, job in zip(runs, jobs, strict=True)]
    except BaseException:
        for job in _still_queued(store, campaign_id, jobs):
            executor.cancel(job.handle)
            store.update_job(job.id, state="cancelled")
        raise


def _submit(executor: JobExecutor, store: Store, campaign_id: int, target: Target,
            run: PlannedRun) -> Job:
    handle = executor.submit(target, run.config, seed=run.seed)
    job_id = store.add_job(campaign_id, run.key, handle)
    return Job(job_id, campaign_id, run.key, handle, "queued", 0.0)


def _collect(executor: JobExecutor, store: Store, target: Target, run: PlannedRun, job: Job,
             store_result: Callable[[PlannedRun, RunResult], int]) -> tuple[RunResult, int]:
    result = executor.collect(target, job.handle,
                              on_resubmit=lambda handle: store.update_job(job.id, handle=handle))
    evaluation_id = store_result(run, result)
    store.update_job(job.id, state="collected")
    return result, evaluation_id


def _still_queued(store: Store, campaign_id: int, jobs: Sequence[Job]) -> list[Job]:
    """The current rows (a resubmission changed the handle) of ``jobs`` not yet collected."""
    mine = {job.id for job in jobs}
    return [job for job in store.queued_jobs(campaign_id) if job.id in mine]
