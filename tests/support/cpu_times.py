"""``--cpu-times=N``: the CPU seconds each test and each file cost, the test process's own and
its finished child processes' (MPI jobs, iosim, compilers), printed at the end as the N
costliest tests and the N costliest files. On a loaded machine CPU seconds say what the suite
costs where wall times do not. A module or session fixture's cost is its first test's.

Works under pytest-xdist: each worker measures its tests and the figures travel to the
controller in the reports' ``user_properties``."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Generator
from typing import Any

import pytest
from iotwin.model import iosim_process

CPU_PROPERTY = "cpu_s"
_PHASE_START = pytest.StashKey[float]()


def process_cpu_seconds() -> float:
    """User and system time of this process and of its children that have been waited for
    (its iosim servers ended first, so that theirs counts)."""
    iosim_process.close_servers()
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cpu-times", type=int, default=0, metavar="N",
                     help="print the N tests and the N files that cost the most CPU seconds")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--cpu-times") > 0:
        config.pluginmanager.register(CpuTimes(config.getoption("--cpu-times")), "cpu-times")


class CpuTimes:
    def __init__(self, shown: int) -> None:
        self.shown = shown
        self.per_test: dict[str, float] = defaultdict(float)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, Any, None]:
        item.stash[_PHASE_START] = process_cpu_seconds()
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item) -> Generator[None, Any, None]:
        spent = process_cpu_seconds() - item.stash[_PHASE_START]
        outcome = yield
        outcome.get_result().user_properties.append((CPU_PROPERTY, spent))
        item.stash[_PHASE_START] = process_cpu_seconds()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == CPU_PROPERTY:
                self.per_test[report.nodeid] += float(value)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        per_file: dict[str, float] = defaultdict(float)
        for nodeid, seconds in self.per_test.items():
            per_file[nodeid.split("::", 1)[0]] += seconds
        write = terminalreporter.write_line
        terminalreporter.section("CPU seconds (the test process and its children)")
        write(f"total {sum(self.per_test.values()):.1f} s over {len(self.per_test)} tests")
        for title, table in (("tests", self.per_test), ("files", per_file)):
            write(f"-- the {self.shown} costliest {title}")
            for name, seconds in sorted(table.items(), key=lambda row: -row[1])[:self.shown]:
                write(f"{seconds:8.1f}  {name}")
