"""The space a kernel's campaign searches: the parameters of the I/O layers its run writes
through, as the kernel describes it (block3d-io's --method), on a Lustre platform's twin."""

from __future__ import annotations

import pytest
from iotwin.space.parameters import load_space
from iotwin.tuning.parts import space_context
from iotwin.tuning.spec import CampaignSpec


@pytest.mark.parametrize(("method", "searched", "absent"), [
    ("hdf5", {"lustre", "mpiio", "hdf5", "dataset"}, {"pnetcdf"}),
    ("mpiio", {"lustre", "mpiio"}, {"hdf5", "dataset", "pnetcdf"}),
    ("pnetcdf", {"lustre", "mpiio", "pnetcdf"}, {"hdf5", "dataset"}),
])
def test_a_kernel_campaign_searches_the_layers_its_method_writes_through(
        method: str, searched: set[str], absent: set[str]) -> None:
    spec = CampaignSpec(ranks=64, platform="hopper", executor="twin", kernel="block3d-io",
                        args=("--method", method, "--block", "16"))
    space = load_space("table3").bind(space_context(spec))
    blocks = {key.split(".")[0] for gene in space.genes for key in gene.keys}
    assert searched <= blocks and not blocks & absent
