"""`iotwin workload from-ior`: IOR's own command line read as IOR reads it, its write phase
placed byte for byte where IOR writes it, IO500's phases as its rules give them, and an option
IOR does not have (or the model cannot say) refused naming it."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from iotwin.core.errors import UserError
from iotwin.workloads.ior import io500_arguments, ior_size, ior_workload, parse_ior
from iotwin.workloads.scaling import scale_workload


def workload(command: str, ranks: int = 4, nodes: int = 2) -> dict:
    return dict(ior_workload(parse_ior(shlex.split(command)), ranks, nodes, "ior " + command))


def offsets(work: dict) -> list[tuple[int, int, int]]:
    """(repetition, writer, byte offset) of every transfer, in call order: each selection's
    block at its writer's grid coordinates in the dataset's row-major bytes."""
    [session] = work["files"]
    [dataset] = session["datasets"]
    dims, size = dataset["dims"], dataset["element_bytes"]
    strides = [size * (dims[1] if len(dims) == 2 else 1), size][-len(dims):]
    out = []
    for call in session["calls"]:
        if call.get("flush"):
            continue
        [selection] = call["selections"]
        repeat = call.get("repeat", {"times": 1, "origin_step": [0] * len(dims)})
        for k in range(repeat["times"]):
            for writer in range(selection["grid"][0]):
                corner = [o + k * step for o, step in
                          zip(selection["origin"], repeat["origin_step"], strict=True)]
                corner[0] += writer * selection["block"][0]
                out.append((k, writer, sum(c * st for c, st in zip(corner, strides,
                                                                    strict=True))))
    return out


def ior_offsets(ranks: int, transfer: int, block: int, segments: int, per_file: bool
                ) -> set[tuple[int, int]]:
    """(rank, offset) of every transfer as IOR's documentation places them."""
    return {(r, (s * block if per_file else s * ranks * block + r * block) + i * transfer)
            for r in range(ranks) for s in range(segments)
            for i in range(block // transfer)}


@pytest.mark.parametrize("command,per_file", [
    ("-a POSIX -t 47008 -b 47008 -s 5 -w", False),
    ("-a MPIIO -t 1k -b 4k -s 3 -w", False),
    ("-a POSIX -F -t 2m -b 8m -w", True),
    ("-a POSIX -F -t 1k -b 3k -s 2 -w", True),
])
def test_every_transfer_lands_where_ior_writes_it(command: str, per_file: bool) -> None:
    run = parse_ior(shlex.split(command))
    work = workload(command, ranks=4)
    writers = 1 if per_file else 4
    got = {(w if not per_file else 0, off) for _, w, off in offsets(work)}
    want = ior_offsets(writers, run.transfer, run.block, run.segments, per_file)
    assert got == want
    assert work["files"][0]["mode"] == ("per-rank" if per_file else "shared")


def test_options_take_iors_forms_and_suffixes() -> None:
    assert ior_size("47008", "-t") == 47008
    assert ior_size("2048k", "-t") == ior_size("2m", "-t") == 2 * 2**20
    run = parse_ior(["-aMPIIO", "-t=1m", "-b", "4m", "-Cew", "-c", "-o", "dir/f"])
    assert (run.api, run.transfer, run.block, run.collective, run.fsync, run.test_file) == (
        "MPIIO", 2**20, 4 * 2**20, True, True, "dir/f")
    assert run.writes and not run.reads
    assert parse_ior([]).reads and parse_ior([]).writes  # IOR's default: both phases


def test_collective_fsync_api_and_existing_file_reach_the_workload() -> None:
    [session] = workload("-a MPIIO -c -e -E -t 1m -b 1m")["files"]
    assert session["api"] == "mpiio" and session["create"] is False
    assert session["calls"][0]["transfer"] == "collective"
    assert session["calls"][-1] == {"flush": True}
    [hdf5] = workload("-a HDF5 -t 8k -b 16k")["files"]
    assert hdf5["api"] == "hdf5" and hdf5["datasets"][0]["element_bytes"] == 8


@pytest.mark.parametrize("command,says", [
    ("-a NCMPI", "-a: expected one of"),
    ("-t 3m -b 4m", "whole number of transfers"),
    ("-z", "-z (random offsets): not modelled"),
    ("-Q", "-Q: missing its value"),
    ("-y", "-y: not an IOR option"),
    ("-t 0", "-t: expected a size"),
    ("-s 1.5", "-s: expected a whole number"),
    ("-r", "only -r"),
    ("stray", "unexpected 'stray'"),
])
def test_a_bad_option_is_one_error_naming_it(command: str, says: str) -> None:
    with pytest.raises(UserError, match=".*" + says.replace("(", r"\(").replace(")", r"\)")):
        parse_ior(shlex.split(command))


@pytest.mark.parametrize(("path", "name"), [
    ("/lustre/scratch/ior-hard/file", "ior-hard/file"),  # the directory a site's layout goes by
    ("/scratch/ior.h5", "scratch/ior.h5"),
    ("../up/file", "up/file"),
])
def test_a_tenders_absolute_test_file_lands_in_the_runs_directory(path: str, name: str) -> None:
    run = parse_ior(["-w", "-o", path])
    assert run.test_file == name
    assert run.notes == (f"IOR option -o {path}: simulated as {name} in the run's directory",)
    assert ior_workload(run, 4, 1, "ior")["files"][0]["name"] == name


def test_a_relative_test_file_is_kept_as_it_is() -> None:
    run = parse_ior(["-w", "-o", "ior-easy/file"])
    assert (run.test_file, run.notes) == ("ior-easy/file", ())


def test_io500_phases_follow_its_rules() -> None:
    hard = parse_ior(io500_arguments("hard-write", 10, segments=7))
    assert (hard.api, hard.transfer, hard.block, hard.segments, hard.file_per_process) == (
        "POSIX", 47008, 47008, 7, False)
    easy = parse_ior(io500_arguments("easy-write", 10, volume_bytes=10 * 64 * 2**20))
    assert (easy.transfer, easy.file_per_process, easy.fsync) == (2 * 2**20, True, True)
    assert easy.block == 64 * 2**20  # the volume over the ranks, in whole transfers
    with pytest.raises(UserError, match="needs the volume"):
        io500_arguments("easy-write", 10)


def test_from_ior_command_writes_a_workload_iosim_reads(tmp_path: Path) -> None:
    out = tmp_path / "w.yaml"
    done = subprocess.run([sys.executable, "-m", "iotwin", "workload", "from-ior", "--ranks",
                           "8", "--nodes", "2", "--io500", "hard-write", "--segments", "3",
                           "-o", str(out)], text=True, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    work = yaml.safe_load(out.read_text())
    assert work["files"][0]["name"] == "ior-hard/IOR_file" and work["ranks_per_node"] == 4
    simulated = subprocess.run([sys.executable, "-m", "iotwin", "simulate", "--platform",
                                "archer", "--workload", str(out), "--json"], text=True,
                               capture_output=True, timeout=120)
    assert simulated.returncode == 0, simulated.stderr
    refused = subprocess.run([sys.executable, "-m", "iotwin", "workload", "from-ior",
                              "--ranks", "8", "--nodes", "3", "--", "-t", "1m"], text=True,
                             capture_output=True, timeout=120)
    assert refused.returncode == 2 and "whole nodes" in refused.stderr


def test_hard_phase_at_two_ranks_scaled_to_1024_is_its_direct_description() -> None:
    small = ior_workload(parse_ior(io500_arguments("hard-write", 2, segments=50)), 2, 1, "ior")
    big = ior_workload(parse_ior(io500_arguments("hard-write", 1024, segments=50)), 1024, 512,
                       "ior")
    scaled, _ = scale_workload(small, 1024)
    assert scaled["files"] == big["files"]  # every step and stride grown with the writers
    [call, _] = scaled["files"][0]["calls"]
    assert call["repeat"]["origin_step"] == [1024 * 47008]  # no overlapping repetitions


def test_the_commands_scale_the_hard_phase_from_two_ranks_to_its_own_at_1024(
        tmp_path: Path) -> None:
    """`workload from-ior --ranks 2`, then `workload scale --ranks 1024`: the description
    `from-ior --ranks 1024` gives, every origin and repeat step of the interleaved records."""
    def iotwin(*args: str) -> None:
        done = subprocess.run([sys.executable, "-m", "iotwin", "workload", *args], text=True,
                              capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr

    hard = ["--io500", "hard-write", "--segments", "50"]
    iotwin("from-ior", "--ranks", "2", "--nodes", "1", *hard, "-o", str(tmp_path / "2.yaml"))
    iotwin("scale", "--ranks", "1024", str(tmp_path / "2.yaml"), "-o", str(tmp_path / "s.yaml"))
    iotwin("from-ior", "--ranks", "1024", "--nodes", "512", *hard, "-o",
           str(tmp_path / "1024.yaml"))
    scaled, direct = (yaml.safe_load((tmp_path / name).read_text())
                      for name in ("s.yaml", "1024.yaml"))
    assert scaled["files"] == direct["files"] and scaled["ranks"] == direct["ranks"] == 1024
