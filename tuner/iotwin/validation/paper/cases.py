"""A published row as something to simulate: its workload (checked against the row's data
size), and its config: the site default, the published tuned parameters, or, for a tuned row
without published parameters, the candidates the model's own optimum is chosen among."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from iotwin.config.types import Config
from iotwin.core.errors import UserError
from iotwin.model.platforms import Platform
from iotwin.model.site_rules import platform_space_context
from iotwin.space.parameters import load_space
from iotwin.validation.paper.rows import (
    FITTED_SETTINGS,
    CaseKey,
    PublishedRow,
    parse_tuned_parameters,
)
from iotwin.validation.paper.settings import Sampling, Settings
from iotwin.workloads.replication.sessions import session_bytes

#: a workload of identical steps simulated as its first one and two (prediction)
STEPS_KEY = "extrapolated_steps"

#: a platform model by name
LoadPlatform = Callable[[str], Platform]
#: (kernel, ranks, arguments) -> the workload the kernel writes
KernelWorkload = Callable[[str, int, Sequence[str]], Mapping[str, Any]]


@dataclass
class Case:
    """A default or tuned row with its workload and how its config is chosen."""

    row: PublishedRow
    model: str  # platform model name
    workload: dict[str, Any]
    origin: str  # site default | published | model optimum
    config: Config = field(default_factory=Config)  # fixed unless origin is model optimum
    candidates: list[Config] = field(default_factory=list)  # model optimum: searched configs

    @property
    def published_mbs(self) -> float:
        return self.row.rate_mbs


def build_cases(rows: Sequence[PublishedRow], settings: Settings, load_platform: LoadPlatform,
                kernel_workload: KernelWorkload) -> list[Case]:
    """The default and tuned rows as cases (min / max observed rows are for the spread)."""
    workloads: dict[CaseKey, dict[str, Any]] = {}
    cases = []
    for row in rows:
        if row.setting not in FITTED_SETTINGS:
            continue
        if row.case not in workloads:
            workloads[row.case] = row_workload(row, settings, kernel_workload)
        cases.append(_case(row, workloads[row.case], settings, load_platform))
    return cases


def _case(row: PublishedRow, workload: dict[str, Any], settings: Settings,
          load_platform: LoadPlatform) -> Case:
    if row.setting == "default":
        return Case(row, row.model, workload, "site default")
    if row.tuned_parameters:
        config = parse_tuned_parameters(row.tuned_parameters, settings.tuned_parameter_keys)
        return Case(row, row.model, workload, "published", config)
    candidates = sample_configs(settings.model_optimum, load_platform(row.model), row)
    return Case(row, row.model, workload, "model optimum", candidates=candidates)


def row_workload(row: PublishedRow, settings: Settings,
                 kernel_workload: KernelWorkload) -> dict[str, Any]:
    """The kernel's workload for a row, checked against the row's published data size."""
    command = settings.workload_command(row)
    kernel, args, per_node = command.kernel, command.args, command.ranks_per_node
    workload: dict[str, Any]
    if row.kernel in settings.extrapolate_steps:
        steps, describe = _steps_argument(args, row)
        workload = {STEPS_KEY: steps, "step_workloads": [
            with_ranks_per_node(kernel_workload(kernel, row.cores, describe(n)), per_node)
            for n in (1, 2)]}
    else:
        workload = with_ranks_per_node(kernel_workload(kernel, row.cores, args), per_node)
    written = workload_bytes(workload)
    if abs(written / row.data_bytes - 1) > settings.size_tolerance:
        raise UserError(f"cases.yaml: {row.platform} {row.kernel} {row.cores}: `{kernel} "
                        f"{' '.join(args)}` writes {written / 2**30:.1f} GiB where the row has "
                        f"{row.data_written} (tolerance {settings.size_tolerance:.0%})")
    return workload


def _steps_argument(args: Sequence[str], row: PublishedRow
                    ) -> tuple[int, Callable[[int], list[str]]]:
    """The ``--steps T`` of a command line, and the same line with another step count."""
    try:
        at = list(args).index("--steps") + 1
        steps = int(args[at])
    except (ValueError, IndexError) as error:
        raise UserError(f"cases.yaml: {row.platform} {row.kernel}: extrapolated steps need "
                        f"`--steps T` in `{' '.join(args)}`") from error
    return steps, lambda n: [*args[:at], str(n), *args[at + 1:]]


def workload_bytes(workload: Mapping[str, Any]) -> int:
    """Payload of a workload (of all its steps when they are extrapolated)."""
    if STEPS_KEY in workload:
        one, two = (workload_bytes(w) for w in workload["step_workloads"])
        return one + (workload[STEPS_KEY] - 1) * (two - one)
    return sum(session_bytes(entry, workload["ranks"]) for entry in workload["files"])


def with_ranks_per_node(workload: Mapping[str, Any], ranks_per_node: int) -> dict[str, Any]:
    """The workload run with ``ranks_per_node`` ranks on each node (packed order)."""
    return {**workload, "ranks_per_node": ranks_per_node}


def sample_configs(sampling: Sampling, platform: Platform, row: PublishedRow) -> list[Config]:
    """A seeded sample of distinct configs of a space on a platform, at a row's rank count."""
    bound = load_space(sampling.space).bind(platform_space_context(platform, row.cores),
                                            dict(sampling.pin.get(row.kernel, {})))
    rng = random.Random(f"{sampling.seed}:{row.platform}:{row.kernel}:{row.cores}")
    configs: dict[str, Config] = {}
    for _ in range(sampling.sample * 20):
        if len(configs) >= min(sampling.sample, bound.size):
            break
        config = bound.config(bound.random_point(rng))
        configs.setdefault(json.dumps(config, sort_keys=True), config)
    return list(configs.values())
