"""Executors: where a configuration is measured (see iotwin.executors.base).

One record per executor in :data:`REGISTRY`, its capabilities as fields (as IOR's aiori
records carry theirs), and :func:`select` to find one by name. A new executor is a module
here with a class that has ``source`` and ``run_once`` (:class:`~iotwin.executors.base.Executor`)
and a record below.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from iotwin.config import rules
from iotwin.config.types import Config
from iotwin.core.errors import UserError
from iotwin.core.limits import RUN_TIMEOUT_S
from iotwin.core.run_records import Source
from iotwin.executors.base import Executor
from iotwin.executors.local import LocalExecutor
from iotwin.executors.slurm import Site, SlurmExecutor
from iotwin.executors.table import TableExecutor, read_table
from iotwin.executors.twin import TwinExecutor


@dataclass(frozen=True)
class ExecutorSettings:
    """What any executor may be given: the platform it stands for, a run's time limit, and
    the seed of a twin's noise."""

    platform: str
    timeout_s: float | None = RUN_TIMEOUT_S
    truth_seed: int = 0
    site: str | None = None  # a site file (sbatch options, launcher); None: the default site
    table: str | None = None  # a measured landscape (CSV) to replay
    workdir: str | None = None  # where programs run (None: the current directory)
    keep: str | None = None  # the local executor's keep folder (iotwin.executors.run_folder)

    @property
    def working_dir(self) -> Path:
        return Path(self.workdir) if self.workdir else Path.cwd()


@dataclass(frozen=True)
class ExecutorKind:
    name: str
    description: str
    #: what the store records its runs as
    source: Source
    #: whether its runs happen on this machine, given the campaign's platform: a space is
    #: bound to this machine's file system (else to the platform model's)
    on_this_machine: Callable[[str], bool]
    make: Callable[[ExecutorSettings], Executor]
    #: the only configs it can run (a table's), else None: a campaign's space is restricted
    #: to them
    configs: Callable[[ExecutorSettings], Sequence[Config]] | None = None
    #: it starts the program (under the launcher of its MPI flavour, mpi_flavour)
    launches_programs: bool = False


def _local(settings: ExecutorSettings) -> Executor:
    return LocalExecutor(timeout_s=settings.timeout_s, workdir=settings.working_dir,
                         keep=Path(settings.keep) if settings.keep else None)


def _twin(settings: ExecutorSettings) -> Executor:
    return TwinExecutor(settings.platform, truth_seed=settings.truth_seed)


def _slurm(settings: ExecutorSettings) -> Executor:
    site = Site.load(Path(settings.site) if settings.site else None)
    return SlurmExecutor(timeout_s=settings.timeout_s, site=site, workdir=settings.working_dir)


def _table(settings: ExecutorSettings) -> Executor:
    return TableExecutor(_table_path(settings), replay_seed=settings.truth_seed)


def _table_configs(settings: ExecutorSettings) -> Sequence[Config]:
    return read_table(_table_path(settings)).configs


def _table_path(settings: ExecutorSettings) -> Path:
    if not settings.table:
        raise UserError("the table executor replays a measured table: give --table CSV "
                        "(iotwin landscape measure)")
    return Path(settings.table)


def _always(platform: str) -> bool:
    return True


def _never(platform: str) -> bool:
    return False


REGISTRY: tuple[ExecutorKind, ...] = (
    ExecutorKind("local", "real runs under mpiexec on this machine", source="real",
                 on_this_machine=_always, make=_local, launches_programs=True),
    ExecutorKind("twin", "the platform's model with hidden true parameters and noise",
                 source="twin", on_this_machine=_never, make=_twin),
    # its jobs run in the working directory and keep their run folders in the scratch root
    # (both on a file system the nodes share)
    ExecutorKind("slurm", "real runs, one Slurm job each (a site file: sbatch options, launcher)",
                 source="real", on_this_machine=_always, make=_slurm,
                 launches_programs=True),
    # a table measured on this machine (platform local) or on a platform's twin; its seed is
    # the campaign's truth seed
    ExecutorKind("table", "real runs measured earlier (a landscape table), replayed",
                 source="real", on_this_machine=lambda platform: platform == "local",
                 make=_table, configs=_table_configs),
)

EXECUTORS: dict[str, ExecutorKind] = {kind.name: kind for kind in REGISTRY}


def executor_kind(name: str) -> ExecutorKind:
    """The executor called ``name``; UserError naming the choices if there is none."""
    if name not in EXECUTORS:
        raise UserError(f"unknown executor {name!r}: expected {' or '.join(EXECUTORS)}")
    return EXECUTORS[name]


def make_executor(name: str, platform: str, *, timeout_s: float | None = RUN_TIMEOUT_S,
                  truth_seed: int = 0, site: str | None = None, table: str | None = None,
                  workdir: str | None = None, keep: str | None = None) -> Executor:
    """The executor ``name`` standing for ``platform``."""
    return executor_kind(name).make(ExecutorSettings(platform, timeout_s, truth_seed, site, table,
                                                     workdir, keep))


def runnable_configs(name: str, table: str | None) -> Sequence[Config] | None:
    """The only configs executor ``name`` can run (a table's), else None."""
    configs = executor_kind(name).configs
    return configs(ExecutorSettings("", table=table)) if configs else None


def filesystem_of(path: Path) -> str:
    """lustre, gpfs, or ufs (ROMIO's name for any other local or network file system), as the
    interposer tells them (the shared rules: iotwin.config.rules.filesystem)."""
    return rules.filesystem(path.resolve())[0]
