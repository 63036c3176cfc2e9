"""A campaign's parts, built once from its spec and checked as they are built: where its runs
happen (the executor), the space it searches, and the model that predicts (for a strategy
that needs one).

A program tuned in simulation needs its workload before its space and model can be built
(the space knows which datasets the program writes from some ranks only; the model simulates
the workload), and the workload is captured from the campaign's first real run: its parts
are assembled in two steps, the executor first (:func:`assemble` with the workload still
unknown), the rest after the capture (:func:`assemble` again, given that executor).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from iotwin import executors
from iotwin.core.errors import UserError
from iotwin.core.mpi_flavours import DEFAULT_MPI
from iotwin.executors.base import Executor
from iotwin.executors.launch import require_program
from iotwin.executors.mpi_flavour import flavour_of
from iotwin.model.calibration import SimModel
from iotwin.model.platforms import Platform, load_platform
from iotwin.model.protocol import Model
from iotwin.model.site_rules import needs_file_sizes, platform_space_context
from iotwin.search import strategy_kind, strategy_settings
from iotwin.space.parameters import BoundSpace, SpaceContext, default_space_for, load_space
from iotwin.space.restricted import RestrictedSpace
from iotwin.tuning.spec import CampaignSpec
from iotwin.workloads.partial_writes import program_context, workload_apis
from iotwin.workloads.workload import kernel_workload, workload_mpi


@dataclass(frozen=True)
class CampaignParts:
    spec: CampaignSpec
    executor: Executor
    space: BoundSpace | None  # None until the program's workload is captured
    model: Model | None  # None for a strategy without a model, or until the capture

    @property
    def complete(self) -> bool:
        return self.space is not None


def assemble(spec: CampaignSpec, executor: Executor | None = None,
             keep: Path | None = None) -> CampaignParts:
    """The parts of ``spec`` (``executor``: one built already for it; ``keep``: where a new one
    keeps the program's output, ``--keep``); UserError for a spec that cannot run, before
    anything is stored or run."""
    spec.check()
    settings = strategy_settings(spec.strategy, spec.settings)
    if spec.command and executors.executor_kind(spec.executor).launches_programs:
        require_program(spec.command[0])
    if spec.objective == "wall" and not executors.executor_kind(spec.executor).launches_programs:
        raise UserError(f"--objective wall: the {spec.executor} executor runs no program, so "
                        f"its runs have no wall time; tune the I/O time (--objective io)")
    if needs_capture(spec) and spec.executor != "local":
        raise UserError(f"{spec.strategy} simulates the program's workload, captured from a run "
                        f"on this machine: use --executor local, or give --workload W.yaml "
                        f"(iotwin workload capture)")
    if not spec.space:
        spec = replace(spec, space=default_space(spec))
    space = campaign_space(spec)  # a bad space or fixed parameter fails before any run
    executor = executor or build_executor(spec, keep)
    if needs_capture(spec):  # the space binds again once the workload is known
        return CampaignParts(spec, executor, None, None)
    model = (SimModel.for_target(spec.platform, spec.target, settings, spec.workload,
                                 program_mpi(spec))
             if strategy_kind(spec.strategy).needs_model else None)
    return CampaignParts(spec, executor, space, model)


def needs_capture(spec: CampaignSpec) -> bool:
    """A program to tune in simulation whose workload is not known yet."""
    return (strategy_kind(spec.strategy).needs_model and spec.kernel is None
            and spec.workload is None)


def build_executor(spec: CampaignSpec, keep: Path | None = None) -> Executor:
    if keep is not None and not executors.executor_kind(spec.executor).launches_programs:
        raise UserError(f"--keep {keep}: the {spec.executor} executor runs no program, so "
                        f"there is no output to keep")
    return executors.make_executor(spec.executor, spec.platform, timeout_s=spec.timeout_s,
                                   truth_seed=spec.truth_seed, site=spec.site, table=spec.table,
                                   workdir=str(spec.working_dir),
                                   keep=str(keep) if keep is not None else None)


def campaign_space(spec: CampaignSpec) -> BoundSpace:
    """The space the campaign searches: its space where the runs happen, pinned by ``fixed``,
    and restricted to the configs its executor can run (a table's)."""
    space = load_space(spec.space).bind(space_context(spec), spec.fixed)
    configs = executors.runnable_configs(spec.executor, spec.table)
    return space if configs is None else RestrictedSpace(space, configs)


def default_space(spec: CampaignSpec) -> str:
    """The space for the file system the campaign's runs write to."""
    return default_space_for(space_context(spec).filesystem)


def space_context(spec: CampaignSpec) -> SpaceContext:
    """Where the campaign's real runs happen (this machine's file system, or the platform
    model's), and what its program can take, as its space needs them."""
    if executors.executor_kind(spec.executor).on_this_machine(spec.platform):
        context = SpaceContext(filesystem=executors.filesystem_of(spec.working_dir),
                               ranks=spec.ranks)
    else:
        platform = load_platform(spec.platform)
        context = platform_space_context(platform, spec.ranks, _sized_workload(spec, platform))
    if spec.workload is None:
        return replace(context, mpi=program_mpi(spec), apis=_kernel_apis(spec, context))
    return program_context(context, spec.workload)


def _kernel_apis(spec: CampaignSpec, context: SpaceContext) -> tuple[str, ...]:
    """The I/O layers a kernel writes through, as it describes its run (block3d-io's --method:
    no HDF5 setting for its MPI-IO or PnetCDF file, PnetCDF's for its PnetCDF file); the
    context's for a program not described yet."""
    if spec.kernel is None:
        return context.apis
    return workload_apis(kernel_workload(spec.kernel, spec.ranks, spec.args, program_mpi(spec)))


def _sized_workload(spec: CampaignSpec, platform: Platform) -> Mapping[str, Any] | None:
    """The program's workload where the platform's site rules need its file sizes (a kernel
    describes itself), else the spec's own (None for a kernel)."""
    if spec.workload is not None or spec.kernel is None or not needs_file_sizes(platform):
        return spec.workload
    return kernel_workload(spec.kernel, spec.ranks, spec.args, program_mpi(spec))


def program_mpi(spec: CampaignSpec) -> str:
    """The MPI flavour the campaign's program runs under: its workload's, else the one of the
    HDF5 it loads where the executor launches it; MPICH for measured tables and twins."""
    if spec.workload is not None:
        return workload_mpi(spec.workload)
    if executors.executor_kind(spec.executor).launches_programs:
        return flavour_of(spec.target).name
    return DEFAULT_MPI
