"""Simulations A-E of the MACSio replication paper (V-B) as workloads."""

from __future__ import annotations

import pytest
import yaml
from iotwin.core import paths
from iotwin.workloads.replication.macsio import (
    initial_state_bytes,
    part_bytes_from_file_size,
    simulation_workload,
)
from iotwin.workloads.replication.sessions import bytes_per_role

EXPERIMENTS = paths.repo_root() / "experiments" / "macsio"
DESCRIPTION = EXPERIMENTS / "simulations.yaml"
MB = 1e6

# the paper's volumes (V-B): checkpoints (count, first MB, last MB), visualisation (states, MB)
PAPER = {
    "sim-a": ((49, 213, 213), (50, 1750)),
    "sim-b": ((27, 259, 1900), (28, 285)),
    "sim-c": ((27, 259, 1900), (28, 20200)),
    "sim-d": ((3, 7300, 7300), (116, 1800)),
    "sim-e": ((3, 7700, 7700), (88, 1400)),
}


def _sessions(work: dict, role: str) -> list[dict]:
    return [f for f in work["files"] if f["role"] == role]


@pytest.mark.parametrize("name", sorted(PAPER))
def test_committed_workload_matches_the_papers_volumes(name: str) -> None:
    work = yaml.safe_load((EXPERIMENTS / f"{name}.yaml").read_text())
    (count, first, last), (states, vis_total) = PAPER[name]
    ckpts = _sessions(work, "checkpoint")
    sizes = [bytes_per_role({"ranks": work["ranks"], "files": [c]})["checkpoint"] for c in ckpts]
    assert len(ckpts) == count and len(_sessions(work, "visualisation")) == states
    assert sizes[0] == pytest.approx(first * MB, rel=0.05)
    assert sizes[-1] == pytest.approx(last * MB, rel=0.05)
    if first == last:
        assert sum(sizes) == pytest.approx(count * first * MB, rel=0.05)
    assert bytes_per_role(work)["visualisation"] == pytest.approx(vis_total * MB, rel=0.05)


@pytest.mark.parametrize("name", sorted(PAPER))
def test_committed_workload_is_what_the_description_gives(name: str) -> None:
    committed = yaml.safe_load((EXPERIMENTS / f"{name}.yaml").read_text())
    rebuilt = simulation_workload(DESCRIPTION, name)
    assert committed["files"] == yaml.safe_load(yaml.safe_dump(rebuilt["files"]))


def test_visualisation_file_is_created_once_kept_open_and_flushed_per_state() -> None:
    vis = _sessions(simulation_workload(DESCRIPTION, "sim-b"), "visualisation")
    assert [v["create"] for v in vis] == [True] + [False] * (len(vis) - 1)
    assert [v.get("keep_open", False) for v in vis] == [True] * (len(vis) - 1) + [False]
    assert all(v["flushes"] == 1 for v in vis)


def test_growth_shows_in_successive_checkpoints_and_states() -> None:
    work = simulation_workload(DESCRIPTION, "sim-b")
    ckpt = [bytes_per_role({"ranks": 64, "files": [c]})["checkpoint"]
            for c in _sessions(work, "checkpoint")]
    vis = [bytes_per_role({"ranks": 64, "files": [v]})["visualisation"]
           for v in _sessions(work, "visualisation")]
    assert ckpt == sorted(ckpt) and ckpt[-1] > 5 * ckpt[0]
    assert vis == sorted(vis) and vis[-1] > 5 * vis[0]


def test_equation_4_gives_the_first_state_of_a_growing_sum() -> None:
    factors = [1.5, 2.0, 1.0]
    first = initial_state_bytes(100.0, factors)
    states = [first, first * 1.5, first * 3.0, first * 3.0]
    assert sum(states) == pytest.approx(100.0)


def test_equation_1_inverts_the_file_size_formula() -> None:
    eq = {"alpha": 1.1, "beta": 3.0, "gamma": 50.0, "delta": 700.0, "psi": 9.0, "eta": 4096.0}
    ranks, variables, part = 32, 6, 12345.0
    size = ranks * (part * (eq["alpha"] * variables + eq["beta"]) + eq["gamma"] * variables
                    + eq["delta"]) + eq["psi"] * variables + eq["eta"]
    assert part_bytes_from_file_size(size, ranks, variables, eq) == pytest.approx(part)


def test_unknown_simulation_names_the_known_ones() -> None:
    from iotwin.core.errors import UserError

    with pytest.raises(UserError, match=r"no simulation 'sim-z'.*sim-a"):
        simulation_workload(DESCRIPTION, "sim-z")
