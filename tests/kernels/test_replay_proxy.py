"""kernels/replay: replication accuracy against real Darshan logs, and the proxy's file modes."""

from __future__ import annotations

import json
from pathlib import Path

import darshan
import h5py
import numpy as np
import pytest
import yaml
from iotwin.core import paths
from iotwin.core.mpi_flavours import DEFAULT_MPI, select_flavour
from iotwin.executors import launch
from iotwin.workloads.replication.darshan_workload import log_bytes_per_role, workload_from_log
from iotwin.workloads.replication.sessions import dataset, session, workload

LOGS = Path(darshan.__file__).parent / "examples" / "example_logs"
REPLICATED = {"macsio": next(LOGS.glob("shane_macsio_*.darshan")),
              "ior-hdf5": LOGS / "ior_hdf5_example.darshan"}


def _replay(work: dict, directory: Path, flavour: str = DEFAULT_MPI) -> dict:
    spec = directory / "workload.yaml"
    spec.write_text(yaml.safe_dump(work, sort_keys=False))
    mpi = select_flavour(flavour)
    done = launch.run_mpi(work["ranks"], [mpi.kernel("replay"), "--dir", directory,
                                           "--compute-scale", "0", spec],
                          timeout=600, using=launch.launcher(mpi.launcher))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _relative_error(measured: int, logged: int) -> float:
    return abs(measured - logged) / logged


@pytest.fixture(scope="module")
def replications(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Each log replayed once at its own rank count: per role, what the log and the replay say.
    Under Open MPI, whose ranks yield once they outnumber the cores: macsio's 16 ranks, each
    spinning in MPICH's waits on this 2-core machine, cost 12 CPU s there, under 1 s here."""
    rows = {}
    for name, log in REPLICATED.items():
        directory = tmp_path_factory.mktemp(name)
        work = workload_from_log(log)
        report = _replay(work, directory, "openmpi")
        on_disk = sum(p.stat().st_size for p in directory.glob("*.h5"))
        rows[name] = {"log": log_bytes_per_role(log)["checkpoint"],
                      "report": report, "on_disk": on_disk, "ranks": work["ranks"]}
    return rows


def test_replayed_files_have_the_size_the_log_records(replications: dict[str, dict]) -> None:
    errors = [_relative_error(r["on_disk"], r["log"]["extent"]) for r in replications.values()]
    assert max(errors) <= 0.10 and sum(errors) / len(errors) <= 0.03


def test_replayed_payload_matches_the_logs_mpiio_bytes(replications: dict[str, dict]) -> None:
    errors = [_relative_error(r["report"]["roles"]["checkpoint"]["bytes"], r["log"]["mpiio"])
              for r in replications.values()]
    assert max(errors) <= 0.10 and sum(errors) / len(errors) <= 0.03


def test_replay_reports_the_kernels_json_line(replications: dict[str, dict]) -> None:
    for r in replications.values():
        report = r["report"]
        assert report["kernel"] == "replay" and report["ranks"] == r["ranks"]
        phases = sum(report[k] for k in ("open_s", "write_s", "sync_s", "close_s"))
        assert report["total_s"] == pytest.approx(phases, rel=1e-3)
        assert report["bytes"] == report["roles"]["checkpoint"]["bytes"]


def _modes_workload() -> dict:
    def var(name: str, per_writer: list[int], access: int | None = None) -> dict:
        return dataset(name, 8, per_writer, transfer="collective", access_elements=access)

    files = [
        session("vis.h5", "visualisation", [var("/state_0/t", [100, 50])], flushes=1,
                keep_open=True),
        session("ckpt.%r.h5", "checkpoint", [var("/x", [1000], access=300)], mode="per-rank"),
        session("vis.h5", "visualisation", [var("/state_1/t", [200, 100])], create=False,
                flushes=1, keep_open=True),
        session("group.%g.h5", "checkpoint", [var("/y", [64])], mode="groups", groups=2),
        session("vis.h5", "visualisation", [var("/state_2/t", [400, 200], access=64)],
                create=False, flushes=1),
    ]
    return workload("modes", "test", 2, files)


def test_file_modes_keep_open_appends_and_access_sizes(scratch: Path) -> None:
    report = _replay(_modes_workload(), scratch)
    with h5py.File(scratch / "vis.h5") as vis:
        assert [vis[f"/state_{i}/t"].shape for i in range(3)] == [(150,), (300,), (600,)]
    for rank in range(2):
        with h5py.File(scratch / f"ckpt.{rank}.h5") as ckpt:
            assert ckpt["/x"].shape == (1000,)
        with h5py.File(scratch / f"group.{rank}.h5") as group:
            assert group["/y"].shape == (64,)
    assert report["roles"]["visualisation"] == {**report["roles"]["visualisation"],
                                                "sessions": 3, "bytes": 1050 * 8}
    assert report["roles"]["checkpoint"]["bytes"] == (2 * 1000 + 2 * 64) * 8


def test_wrong_rank_count_is_refused_with_the_count_to_use(scratch: Path) -> None:
    spec = scratch / "w.yaml"
    spec.write_text(yaml.safe_dump(_modes_workload()))
    done = launch.run_mpi(1, [paths.kernel_binary("replay"), spec], timeout=60)
    assert done.returncode == 2 and "mpiexec -n 2" in done.stderr


def test_bad_key_is_named(scratch: Path) -> None:
    work = _modes_workload()
    work["files"][1]["datasets"][0]["element_bytes"] = 3
    spec = scratch / "w.yaml"
    spec.write_text(yaml.safe_dump(work))
    done = launch.run_mpi(2, [paths.kernel_binary("replay"), spec], timeout=60)
    assert done.returncode == 2
    assert ("files[1].datasets[0].element_bytes: the replay proxy cannot run it: it writes "
            "elements of 1, 2, 4 or 8 bytes") in done.stderr


@pytest.mark.parametrize("name", ["../outside.h5", "/tmp/outside.h5", "in/../../outside.h5"])
def test_a_file_name_outside_the_replays_directory_is_refused(scratch: Path, name: str) -> None:
    work = _modes_workload()
    work["files"][0]["name"] = name
    (scratch / "run").mkdir()
    spec = scratch / "w.yaml"
    spec.write_text(yaml.safe_dump(work))
    done = launch.run_mpi(2, [paths.kernel_binary("replay"), "--dir", scratch / "run", spec],
                          timeout=60)
    assert done.returncode == 2
    assert f'files[0].name: "{name}" lies outside the directory the run writes in' in \
        done.stderr
    assert sorted(p.name for p in scratch.iterdir()) == ["run", "w.yaml"]
    assert list((scratch / "run").iterdir()) == []


def _expected_values(k: int, elements: int, element_bytes: int) -> np.ndarray:
    """kernels/common/pattern.h: dataset k's element g holds (k * 1000003 + g) mod 2^23,
    modulo 2^8 and 2^16 for 1- and 2-byte elements."""
    values = (k * 1000003 + np.arange(elements)) % 2**23
    return values % 2 ** (8 * element_bytes) if element_bytes < 4 else values


def test_replayed_datasets_hold_the_kernels_value_pattern(scratch: Path) -> None:
    sizes = (1, 2, 4, 8)
    datasets = [dataset(f"/v{size}", size, [700, 300], transfer="collective", access_elements=256)
                for size in sizes]
    _replay(workload("values", "test", 2, [session("values.h5", "checkpoint", datasets)]),
            scratch)
    with h5py.File(scratch / "values.h5") as written:
        for k, size in enumerate(sizes):
            values = written[f"/v{size}"]
            assert values.dtype.itemsize == size
            np.testing.assert_array_equal(values[:], _expected_values(k, 1000, size))


def test_replay_reports_its_options_and_hdf5_version(replications: dict[str, dict]) -> None:
    params = replications["macsio"]["report"]["params"]
    assert params["compute_scale"] == 0 and params["sync"] is True
    assert params["workload"].endswith("workload.yaml") and params["hdf5"].count(".") == 2


@pytest.mark.parametrize(("argv", "message"), [
    ([], "no workload file given"),
    (["--compute-scale", "-1", "w.yaml"], "--compute-scale: '-1' is not a number >= 0"),
    (["a.yaml", "b.yaml"], "unexpected argument 'b.yaml'"),
    (["--speed", "2", "w.yaml"], "unknown option '--speed'"),
])
def test_bad_command_line_is_one_error_line_and_status_2(argv: list[str], message: str) -> None:
    done = launch.run_mpi(2, [paths.kernel_binary("replay"), *argv], timeout=60)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1  # said once, not once per rank
    assert lines[0].startswith("replay: error: ") and message in lines[0]


def test_help_names_the_workload_operand_and_the_options() -> None:
    done = launch.run_mpi(1, [paths.kernel_binary("replay"), "--help"], timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("usage: replay [options] WORKLOAD")
    for option in ("--dir", "--compute-scale", "--sync", "--no-sync"):
        assert f"  {option}" in done.stdout
