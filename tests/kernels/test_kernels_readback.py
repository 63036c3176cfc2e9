"""The kernels' files read back with h5py and checked against --describe and the value pattern.

Each kernel runs at 1, 2 and 4 ranks; the file must hold exactly the datasets its --describe lists,
with the dims and chunks it lists, every element following the documented pattern
(kernels/common/pattern.h), and the per-rank blocks of the description must tile each dataset.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest
from iotwin.core import paths
from iotwin.executors.launch import run_mpi

PATTERN_STRIDE = 1000003
PATTERN_MODULUS = 2**23
VPIC_VARIABLES = ["x", "y", "z", "px", "py", "pz", "id1", "id2"]


@dataclass(frozen=True)
class Case:
    kernel: str
    args: tuple[str, ...]
    names: tuple[str, ...]  # the datasets expected, in write order


def vorpal_names(steps: int, components: int) -> tuple[str, ...]:
    return tuple(f"/Step#{t}/Block/E/{c}" for t in range(steps) for c in range(components))


def gcrm_names(cell: int, edge: int, corner: int) -> tuple[str, ...]:
    chunked = [f"/Step#0/{kind}_{v}" for kind, n in (("cell", cell), ("edge", edge),
                                                      ("corner", corner)) for v in range(n)]
    return (*chunked, *(f"/Step#0/cell_{v}_poles" for v in range(cell)))


CASES = {
    "vpic": Case("vpic-io", ("--particles", "1000"),
                 tuple(f"/Step#0/{v}" for v in VPIC_VARIABLES)),
    "vpic-independent": Case("vpic-io", ("--particles", "777", "--independent"),
                             tuple(f"/Step#0/{v}" for v in VPIC_VARIABLES)),
    "vorpal": Case("vorpal-io", ("--block", "5x4x3", "--steps", "2"), vorpal_names(2, 3)),
    "vorpal-uneven": Case("vorpal-io", ("--block", "8x5x4", "--components", "2", "--uneven"),
                          vorpal_names(1, 2)),
    "gcrm": Case("gcrm-io", ("--resolution", "3", "--subdomain-resolution", "1", "--levels", "5"),
                 gcrm_names(2, 1, 1)),
    "gcrm-independent": Case("gcrm-io", ("--resolution", "2", "--subdomain-resolution", "1",
                                         "--levels", "3", "--cell-vars", "1", "--corner-vars",
                                         "0", "--independent"), gcrm_names(1, 1, 0)),
}


@dataclass
class Run:
    report: dict[str, Any]
    workload: dict[str, Any]
    path: Path


def last_json_line(text: str) -> dict[str, Any]:
    return json.loads(text.strip().splitlines()[-1])


def run_kernel(case: Case, ranks: int, directory: Path) -> Run:
    binary = paths.kernel_binary(case.kernel)
    path = directory / f"{case.kernel}.h5"
    args = [binary, *case.args, "--file", str(path)]
    done = run_mpi(ranks, args, timeout=300)
    assert done.returncode == 0, done.stderr
    described = run_mpi(1, [*args, "--describe", "--ranks", str(ranks)], timeout=60)
    assert described.returncode == 0, described.stderr
    return Run(last_json_line(done.stdout), json.loads(described.stdout), path)


def axis_extents(decomposition: dict[str, Any]) -> list[list[int]]:
    """Block extents along each axis, from any of the three forms of sim-models/WORKLOAD.md."""
    grid = decomposition["grid"]
    if "block" in decomposition:
        return [[b] * g for g, b in zip(grid, decomposition["block"], strict=True)]
    if "dims" in decomposition:
        return [[d // g + (1 if i < d % g else 0) for i in range(g)]
                for g, d in zip(grid, decomposition["dims"], strict=True)]
    return [list(e) for e in decomposition["extents"]]


def rank_blocks(decomposition: dict[str, Any]) -> list[tuple[slice, ...]]:
    """The block of each writer, writer w at row-major grid coordinates."""
    extents = axis_extents(decomposition)
    starts = [np.concatenate([[0], np.cumsum(e)[:-1]]).astype(int) for e in extents]
    blocks = []
    for coords in itertools.product(*(range(len(e)) for e in extents)):
        blocks.append(tuple(slice(starts[a][c], starts[a][c] + extents[a][c])
                            for a, c in enumerate(coords)))
    return blocks


def expected_values(k: int, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape))
    return ((k * PATTERN_STRIDE + np.arange(n, dtype=np.int64)) % PATTERN_MODULUS).reshape(shape)


@pytest.fixture(params=list(CASES), scope="module")
def case(request: pytest.FixtureRequest) -> Case:
    return CASES[request.param]


@pytest.fixture(params=[1, 2, 4], scope="module")
def ranks(request: pytest.FixtureRequest) -> int:
    return request.param


@pytest.fixture(scope="module")
def run(case: Case, ranks: int, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return run_kernel(case, ranks, tmp_path_factory.mktemp(f"{case.kernel}-{ranks}"))


def described_datasets(run: Run) -> list[dict[str, Any]]:
    (file_session,) = run.workload["files"]
    return file_session["datasets"]


def file_dataset_names(path: Path) -> list[str]:
    found: list[str] = []
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: found.append("/" + name)
                     if isinstance(obj, h5py.Dataset) else None)
    return found


@pytest.mark.slow
def test_file_holds_exactly_the_described_datasets(case: Case, run: Run) -> None:
    names = [d["name"] for d in described_datasets(run)]
    assert names == list(case.names)
    assert sorted(file_dataset_names(run.path)) == sorted(names)


@pytest.mark.slow
def test_dataset_shapes_types_and_chunks_match_the_description(run: Run) -> None:
    with h5py.File(run.path, "r") as f:
        for described in described_datasets(run):
            dataset = f[described["name"]]
            extents = axis_extents(described["decomposition"])
            assert dataset.shape == tuple(sum(e) for e in extents)
            assert dataset.dtype.itemsize == described["element_bytes"]
            chunks = described["chunk_dims"]
            assert dataset.chunks == (tuple(chunks) if chunks else None)


@pytest.mark.slow
def test_every_value_follows_the_pattern(run: Run) -> None:
    with h5py.File(run.path, "r") as f:
        for k, described in enumerate(described_datasets(run)):
            values = f[described["name"]][...]
            np.testing.assert_array_equal(values, expected_values(k, values.shape),
                                          err_msg=described["name"])


@pytest.mark.slow
def test_rank_blocks_tile_each_dataset_exactly(run: Run, ranks: int) -> None:
    for described in described_datasets(run):
        blocks = rank_blocks(described["decomposition"])
        assert len(blocks) == ranks
        covered = np.zeros(tuple(b.stop for b in blocks[-1]), dtype=int)
        for block in blocks:
            covered[block] += 1
        assert (covered == 1).all(), described["name"]


@pytest.mark.slow
def test_report_counts_the_bytes_of_the_file(case: Case, run: Run, ranks: int) -> None:
    with h5py.File(run.path, "r") as f:
        payload = sum(f[name].size * f[name].dtype.itemsize for name in case.names)
    report = run.report
    assert report["kernel"] == case.kernel
    assert report["ranks"] == ranks
    assert report["bytes"] == payload
    phases = sum(report[p] for p in ("open_s", "write_s", "sync_s", "close_s"))
    assert report["total_s"] == pytest.approx(phases, abs=1e-5)
    rate = payload / 1e6 / report["total_s"]
    assert report["rate_mbs"] == pytest.approx(rate, rel=1e-3, abs=2e-3)
    independent = "--independent" in case.args
    assert report["params"]["transfer"] == ("independent" if independent else "collective")
    assert report["params"]["sync"] is True
