"""How pytest-xdist shares the suite between its workers in `make test` (``-n 3 --dist
loadgroup``): a test file goes to one worker whole, so that its module fixtures (a built
program, a captured run, a Slurm cluster) are set up once, and the tests marked
``xdist_group(NAME)`` go to one worker together, whatever their file. The Slurm cluster's
tests form one group (``slurm``): one cluster up at a time on this machine."""

from __future__ import annotations

from typing import Any

import pytest

SLURM_GROUP = "slurm"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "cluster" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group(SLURM_GROUP))
    # the files marked slow (real MPI jobs, long simulations) first, each file's tests in
    # their order: the longest work is handed out while the other worker still has the short
    # files to take, not left as one worker's tail at the end
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class FilesAndGroups(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            group = super()._split_scope(nodeid)
            return group if group != nodeid else nodeid.split("::", 1)[0]

    return FilesAndGroups(config, log)
