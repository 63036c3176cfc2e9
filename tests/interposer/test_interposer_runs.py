"""Real MPI runs under libiotwin_h5.so: settings take effect, as read back from the written
files and the open MPI file; bad configs never break the application."""

from __future__ import annotations

import json
from pathlib import Path

import h5py
import numpy as np
import pytest
from iotwin.core import paths
from iotwin.executors import launch
from iotwin.executors.interposer_reports import setting_outcomes

pytestmark = pytest.mark.slow

MiB = 2**20
HINTS = """
mpiio:
  romio_cb_write: enable
  cb_nodes: 2
  cb_config_list: "*:*"
  cb_buffer_size: 4MiB
lustre: {stripe_count: 4}
hdf5:
  alignment: {threshold: 0, boundary: 1MiB}
"""


def run(ranks: int, argv: list, folder: Path, config: str | None = None,
        preload: bool = True, capture: Path | None = None) -> tuple[launch.Completed, list[dict]]:
    """Run argv on `ranks` ranks in `folder`, optionally under the interposer with `config`
    (and workload capture into `capture`)."""
    env = {}
    report = folder / "report.jsonl"
    report.unlink(missing_ok=True)
    if preload:
        env = {"LD_PRELOAD": str(paths.interposer_library()), "IOTWIN_REPORT": str(report)}
    if capture is not None:
        env["IOTWIN_CAPTURE"] = str(capture)
    if config is not None:
        (folder / "cfg.yaml").write_text(config)
        env["IOTWIN_CONFIG"] = str(folder / "cfg.yaml")
    done = launch.run_mpi(ranks, argv, env=env, cwd=folder, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in report.read_text().splitlines()] if preload else []
    return done, [line for line in lines if "iotwin_report" in line]


def vpic(folder: Path, name: str = "vpic.h5", particles: int = 5000) -> list:
    return [paths.kernel_binary("vpic-io"), "--file", str(folder / name), "--particles",
            str(particles)]


def dataset_offsets(path: Path) -> dict[str, int]:
    offsets = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: offsets.__setitem__(name, obj.id.get_offset())
                     if isinstance(obj, h5py.Dataset) else None)
    return offsets


def dataset_values(path: Path) -> dict[str, np.ndarray]:
    values = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: values.__setitem__(name, obj[()])
                     if isinstance(obj, h5py.Dataset) else None)
    return values


def test_more_datasets_than_the_reduction_holds_are_gathered_from_every_rank(scratch: Path):
    """Past the 32 datasets one reduction carries, rank 0 gathers each rank's per-dataset
    figures as text (core/reduction.c): every dataset's writes summed over the ranks."""
    program = [paths.kernel_binary("vorpal-io"), "--file", str(scratch / "v.h5"), "--steps", "20",
               "--block", "8x8x8", "--no-sync"]
    _, reports = run(2, program, scratch)
    [report] = [r for r in reports if "datasets" in r]
    datasets = report["datasets"]
    assert len(datasets) == 60 and len({d["name"] for d in datasets}) == 60
    assert {(d["writes"]["calls"], d["writes"]["bytes"]) for d in datasets} == {(2, 2 * 8**3 * 8)}
    assert report["bytes"] == sum(d["writes"]["bytes"] for d in datasets)
    assert all(d["writes"]["seconds"] > 0 for d in datasets)


def test_alignment_puts_every_dataset_on_a_1mib_boundary(scratch: Path):
    # 2 ranks: the datasets' places in the file, not the ranks, are the point
    run(2, vpic(scratch, "plain.h5"), scratch, preload=False)
    plain = dataset_offsets(scratch / "plain.h5")
    _, reports = run(2, vpic(scratch, "aligned.h5"), scratch, HINTS)
    aligned = dataset_offsets(scratch / "aligned.h5")
    assert len(aligned) == 8 and aligned.keys() == plain.keys()
    assert all(offset % MiB == 0 for offset in aligned.values()), aligned
    assert not all(offset % MiB == 0 for offset in plain.values()), plain
    reported = {d["name"].lstrip("/"): d["effective"]["offset"] for d in reports[0]["datasets"]}
    assert reported == aligned


def test_collective_buffering_hints_are_read_back_from_the_open_file(scratch: Path):
    _, reports = run(4, vpic(scratch), scratch, HINTS)
    assert len(reports) == 1
    report = reports[0]
    assert report["ranks"] == 4 and report["driver"] == "mpio"
    hints = report["effective"]["hints"]
    assert hints["romio_cb_write"] == "enable"
    assert hints["cb_nodes"] == "2"
    assert hints["cb_config_list"] == "*:*"
    assert hints["cb_buffer_size"] == str(4 * MiB)
    assert len(hints["romio_aggregator_list"].split()) == 2
    dropped = {entry["key"]: entry for entry in report["not_effective"]}
    assert report["fs"] != "lustre"
    assert dropped["lustre.stripe_count"]["requested"] == "4"
    assert "not Lustre" in dropped["lustre.stripe_count"]["reason"]
    assert "mpiio.cb_nodes" not in dropped


def test_report_counts_bytes_and_writes_over_all_ranks(scratch: Path):
    particles = 3000
    _, reports = run(2, vpic(scratch, particles=particles), scratch, "")
    report = reports[0]
    assert report["bytes"] == 2 * particles * 8 * 4    # 8 variables of 4 bytes, 2 ranks
    assert report["writes"] == 2 * 8
    assert all(d["writes"]["calls"] == 2 for d in report["datasets"])
    assert "absent" in report["async_api"]
    assert report["timings"]["close_s"] >= 0 and report["timings"]["write_s"] > 0


@pytest.mark.parametrize(("config", "named"), [
    ("mpiio: {cb_nodes: 2\nhdf5: [", "cfg.yaml:2: malformed YAML"),
    ("mpiio:\n  cb_nodes: 2\n  cb_nodez: 2\n", "cfg.yaml:3: mpiio.cb_nodez: unknown key"),
])
def test_a_bad_config_is_reported_once_and_changes_nothing(scratch: Path, config, named):
    """At the program's start, on stderr and in the report, naming the file and the line."""
    run(2, vpic(scratch, "plain.h5"), scratch, preload=False)
    done, reports = run(2, vpic(scratch, "bad.h5"), scratch, config)
    messages = [line for line in done.stderr.splitlines() if line.startswith("iotwin:")]
    assert len(messages) == 1, done.stderr
    assert named in messages[0]
    assert named in reports[0]["config_error"] and reports[0]["applied"]["hints"] == {}
    expected = dataset_values(scratch / "plain.h5")
    got = dataset_values(scratch / "bad.h5")
    assert got.keys() == expected.keys()
    assert all(np.array_equal(got[name], expected[name]) for name in expected)


def test_dataset_scoped_settings_reach_creation_and_transfer(scratch: Path):
    config = """
files:
  - match: "vpic.h5"
    datasets:
      - {match: "x", chunk_dims: [1000], fill_time: never}
      - {match: "y", transfer_mode: independent}
"""
    _, reports = run(2, vpic(scratch, particles=4000), scratch, config)
    datasets = {d["name"]: d for d in reports[0]["datasets"]}
    x, y, z = datasets["/Step#0/x"], datasets["/Step#0/y"], datasets["/Step#0/z"]
    assert x["effective"]["layout"] == "chunked" and x["effective"]["chunk_dims"] == [1000]
    assert x["effective"]["fill_time"] == "never"
    assert x["matched"] == ["top", "files[0]", "files[0].datasets[0]"]
    assert y["effective"]["io_mode"] == "independent"
    assert z["effective"]["io_mode"] == "contiguous_collective"
    # the transfer mode is set on the writes' transfer lists: applied, and read back
    assert y["applied"] == {"transfer_mode": "independent"}
    assert y["effective"]["transfer_mode"] == "independent"
    assert x["applied"] == {"chunk_dims": [1000], "fill_time": "never"}
    assert z["applied"] == {} and z["effective"]["transfer_mode"] == "collective"
    # creation settings are read back where the settings set one (there is something to verify)
    creation = {"layout", "chunk_dims", "fill_time", "alloc_time", "fill_value"}
    assert creation <= x["effective"].keys()
    assert not creation & (y["effective"].keys() | z["effective"].keys())
    assert y["effective"]["offset"] > 0 and z["effective"]["storage_size"] == 2 * 4000 * 4
    with h5py.File(scratch / "vpic.h5", "r") as f:
        assert f["Step#0/x"].chunks == (1000,)
        assert f["Step#0/y"].chunks is None


# tests/programs/dcpl_writer's own creation list, in the config's terms
OWN_CREATION = {"chunk_dims": [8], "fill_time": "never", "alloc_time": "early"}


def dcpl_writer(folder: Path, config: str, own_list: str = "set",
                driver: str = "mpio") -> tuple[dict, list[dict]]:
    """Its three datasets under `config`: what it printed (the lists copied in the process,
    whether its own list is after the creates as it built it) and the dataset reports."""
    program = [paths.built("tests/programs/dcpl_writer"), str(folder / "d.h5"), "3", own_list,
               driver]
    done, reports = run(1, program, folder, config)
    assert len(reports[0]["datasets"]) == 3
    return json.loads(done.stdout.splitlines()[-1]), reports


def test_settings_the_program_has_set_leave_its_creation_list_uncopied(scratch: Path):
    printed, reports = dcpl_writer(scratch, f"dataset: {json.dumps(OWN_CREATION)}\n")
    assert printed == {"copies": 0, "own_list_unchanged": True}
    for dataset in reports[0]["datasets"]:
        assert dataset["applied"] == OWN_CREATION and dataset["not_effective"] == []
        assert {key: dataset["effective"][key] for key in OWN_CREATION} == OWN_CREATION
    outcomes = setting_outcomes(reports)
    assert len(outcomes) == 9 and all(outcome.took_effect for outcome in outcomes)


@pytest.mark.parametrize("own_list", ["set", "layout"])
def test_fill_and_alloc_time_go_on_the_program_list_and_come_off_after(scratch: Path,
                                                                       own_list: str):
    """Not copied: set on the program's own list for each create and put back, to the last
    property HDF5 keeps (an alloc time left to follow the layout is not one set to the same
    value: H5Pequal against the list built again tells them apart). A file of HDF5's default
    driver, where the alloc time is the list's."""
    config = "dataset: {fill_time: alloc, alloc_time: late}\n"
    printed, reports = dcpl_writer(scratch, config, own_list, driver="sec2")
    assert printed == {"copies": 0, "own_list_unchanged": True}
    assert reports[0]["driver"] == "sec2"
    for dataset in reports[0]["datasets"]:
        assert dataset["applied"] == {"fill_time": "alloc", "alloc_time": "late"}
        assert dataset["effective"]["fill_time"] == "alloc"
        assert dataset["effective"]["alloc_time"] == "late" and dataset["not_effective"] == []
    with h5py.File(scratch / "d.h5", "r") as f:
        for name in ("d0", "d1", "d2"):
            plist = f[name].id.get_create_plist()
            assert plist.get_fill_time() == h5py.h5d.FILL_TIME_ALLOC
            assert plist.get_alloc_time() == h5py.h5d.ALLOC_TIME_LATE


@pytest.mark.parametrize("asked", ["early", "late", "default"])
def test_an_mpi_io_file_allocates_early_whatever_alloc_time_is_asked(scratch: Path, asked: str):
    """The MPI-IO driver allocates a dataset's space at create whatever its list says (its list
    still holds the alloc time given): the setting goes on no list, the read-back says early,
    and anything else asked for but HDF5's own choice ("default") is not effective, with the
    reason."""
    printed, reports = dcpl_writer(scratch, f"dataset: {{alloc_time: {asked}}}\n", "layout")
    assert printed == {"copies": 0, "own_list_unchanged": True}
    for dataset in reports[0]["datasets"]:
        assert dataset["applied"] == {"alloc_time": asked}
        assert dataset["effective"]["alloc_time"] == "early"
        reasons = {entry["key"]: entry["reason"] for entry in dataset["not_effective"]}
        assert reasons == ({} if asked in ("early", "default") else
                           {"dataset.alloc_time": "parallel HDF5 allocates dataset space early "
                                                  "whatever the property says"})
    took_effect = [outcome.took_effect for outcome in setting_outcomes(reports)]
    assert took_effect == [asked != "late"] * 3
    with h5py.File(scratch / "d.h5", "r") as f:   # what HDF5 wrote in the datasets' headers
        for name in ("d0", "d1", "d2"):
            assert f[name].id.get_create_plist().get_alloc_time() == h5py.h5d.ALLOC_TIME_EARLY


def test_chunking_the_program_has_not_set_is_applied_on_a_copy_of_its_list(scratch: Path):
    """H5Pset_chunk replaces a list's whole layout, which the public calls cannot set back as it
    was: chunking goes on a copy."""
    printed, reports = dcpl_writer(scratch, "dataset: {chunk_dims: [16], fill_time: alloc}\n")
    assert printed == {"copies": 3, "own_list_unchanged": True}
    for dataset in reports[0]["datasets"]:
        assert dataset["applied"] == {"chunk_dims": [16], "fill_time": "alloc"}
        assert dataset["effective"]["chunk_dims"] == [16] and dataset["not_effective"] == []
    assert all(outcome.took_effect for outcome in setting_outcomes(reports))
    with h5py.File(scratch / "d.h5", "r") as f:
        assert f["d0"].chunks == (16,)
        assert f["d0"].id.get_create_plist().get_fill_time() == h5py.h5d.FILL_TIME_ALLOC


def test_an_hdf5_program_not_written_for_iotwin(scratch: Path):
    program = paths.built("tests/programs/ph5example")
    done, reports = run(4, [program, "-c", "-f", str(scratch)], scratch, HINTS)
    assert "PHDF5 tests finished with no errors" in done.stdout
    created = [r for r in reports if r["how"] == "create"]
    assert {Path(r["file"]).name for r in created} >= {"ParaEg0.h5", "ParaEg1.h5"}
    split = [r for r in created if r["ranks"] == 2]       # the even ranks' own communicator
    assert split, [r["ranks"] for r in created]
    for report in created:
        assert report["effective"]["hints"]["cb_nodes"] == "2"
        assert report["effective"]["hints"]["cb_buffer_size"] == str(4 * MiB)
    offsets = dataset_offsets(scratch / "ParaEg1.h5")
    assert offsets and all(offset % MiB == 0 for offset in offsets.values())
    # ParaEg1's datasets share one transfer list, closed before the datasets are: the mode of
    # each dataset's own last write is still what is reported
    modes = {(Path(r["file"]).name, d["name"]): d["effective"]["io_mode"]
             for r in created if r["ranks"] == 4 for d in r["datasets"]}
    assert modes == {("ParaEg0.h5", "/Data1"): "independent",
                     ("ParaEg0.h5", "/Data2"): "independent",
                     ("ParaEg1.h5", "/Data1"): "contiguous_collective",
                     ("ParaEg1.h5", "/Data2"): "contiguous_collective"}


def test_the_program_transfer_list_is_its_own_between_writes(scratch: Path):
    """The config's transfer mode goes on the program's transfer list for each write and comes
    off before it returns; the mode the library remembers of the list follows the program's own
    changes (the capture records each write as the program asked, without a config)."""
    program = [paths.built("tests/programs/dxpl_switch"), str(scratch / "x.h5")]
    done, reports = run(2, program, scratch, "dataset: {transfer_mode: collective}\n")
    assert done.stdout.split() == ["mode", "independent", "mode", "collective",
                                   "mode", "independent"]
    (dataset,) = reports[0]["datasets"]
    assert dataset["effective"]["transfer_mode"] == "collective"
    assert dataset["writes"]["calls"] == 3 * 2   # over the ranks
    capture = scratch / "capture.jsonl"
    run(2, program, scratch, capture=capture)
    (record,) = [json.loads(line) for line in capture.read_text().splitlines()
                 if "iotwin_capture" in line]
    assert [call["transfer"] for call in record["calls"]] == ["independent", "collective",
                                                              "independent"]


def test_the_program_access_list_is_its_own_again_and_a_shared_open_says_so(scratch: Path):
    """The config's alignment goes on the program's own access list for each open and comes off
    right after; a file opened again while open keeps its first open's values (HDF5 shares it),
    and under another name the interposer says it cannot tell."""
    (scratch / "link.h5").symlink_to(scratch / "f.h5")
    config = "hdf5:\n  alignment: {threshold: 1, boundary: 64KiB}\n"
    done, reports = run(1, [paths.built("tests/programs/fapl_reuse"), str(scratch / "f.h5"),
                            str(scratch / "link.h5")], scratch, config)
    assert done.stdout.split("\n")[:3] == ["alignment 1 4096"] * 3
    by_file = {}
    for report in reports:
        by_file.setdefault(Path(report["file"]).name, []).append(report)
    assert len(by_file["f.h5"]) == 2 and len(by_file["link.h5"]) == 1
    for report in by_file["f.h5"]:
        assert report["effective"]["hdf5"]["alignment"] == {"threshold": 1, "boundary": 65536}
        assert report["not_effective"] == []
    link = by_file["link.h5"][0]
    assert link["effective"]["hdf5"] is None
    reasons = {entry["key"]: entry["reason"] for entry in link["not_effective"]}
    assert set(reasons) == {"hdf5.alignment.threshold", "hdf5.alignment.boundary"}
    assert all("open already under another name" in reason for reason in reasons.values())
