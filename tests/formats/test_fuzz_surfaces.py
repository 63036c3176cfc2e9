"""Fuzzing every input surface beyond configs and workloads (issue 53): spec sheets, published
measurement tables, parameter spaces, experiment specs, benchmark and landscape specs, layout
lists, stored calibrations, site files and stores, generated from their schemas
(tests/support/surface_strategies.py), then made hostile (a value of another type
or beyond every bound, a key removed or unknown, the text mangled, a store's bytes damaged);
and every command whose work grows with its inputs run beyond a limit drawn at random
(--max-time, --max-memory): refused before any work, in one line naming the input, exit 2,
nothing written.

Each input must end in a verdict: accepted and processed within its bounds (a sheet's model
simulates, a table's cases are at most the calibration's bound, a space's configs are valid
configs, a site's sbatch options are text), or refused with one line naming the input; never
an exception of another kind (a traceback), a hang or unbounded memory.

`make test` runs a bounded, derandomized number of examples; a longer run, random each time
(tests/formats/README.md): nice -n 19 .venv/bin/python experiments/fuzz_inputs.py --examples 2000
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import darshan
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from iotwin.config.validation import validate_config
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.yaml_files import read_yaml
from iotwin.executors.slurm import Site
from iotwin.formats.bounds import load_bounds
from iotwin.model.calibration import SimModel
from iotwin.model.platform_sheet import load_sheet, platform_tree
from iotwin.model.platforms import load_platform, parse_platform
from iotwin.model.sim import simulate
from iotwin.model.site_rules import platform_space_context
from iotwin.observations.published import read_cases
from iotwin.space.parameters import load_space, read_layouts
from iotwin.store.database import Store
from iotwin.studies.experiment.spec import load_experiment
from iotwin.studies.strategy_benchmark import load_benchmark
from iotwin.tuning.recalibration import recalibrate
from iotwin.tuning.stored_runs import StoredRuns
from iotwin.validation.local import load_suite
from support.format_strategies import as_json, mangled_text, mutated
from support.surface_strategies import (
    LANDSCAPES,
    MACHINE,
    benchmark_specs,
    calibration_parameters,
    experiment_specs,
    landscape_specs,
    layout_lists,
    measurement_tables,
    sheets,
    site_files,
    spaces,
)

#: examples per property: IOTWIN_FUZZ_EXAMPLES for a long (random) run, else a few (fixed)
LONG_RUN = int(os.environ.get("IOTWIN_FUZZ_EXAMPLES", "0"))
SHEETS = sorted((paths.platforms_dir() / "sheets").glob("*.yaml"))
#: the experiment specs of experiments/ (beside them: strategy benchmark specs, no `study`)
EXPERIMENTS = [path for path in sorted((paths.repo_root() / "experiments").glob("*.yaml"))
               if "study" in read_yaml(path, "experiment")]
SPACES = sorted((paths.repo_root() / "tuner" / "iotwin" / "space" / "spaces").glob("*.yaml"))


def examples(n: int) -> Callable[[Any], Any]:
    return settings(max_examples=LONG_RUN or n, deadline=None, derandomize=not LONG_RUN,
                    database=None, suppress_health_check=[HealthCheck.too_slow,
                                                          HealthCheck.data_too_large,
                                                          HealthCheck.filter_too_much])


@contextmanager
def written(data: bytes | str, suffix: str = ".yaml") -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"fuzz{suffix}"
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        yield path


def verdict(path: Path, read: Callable[[Path], Any]) -> Any:
    """What ``read`` makes of the file, or None if it refused it in one line naming it."""
    try:
        return read(path)
    except UserError as error:
        message = str(error)
        assert "\n" not in message, message
        assert message.startswith(str(path)) or message.startswith(f"{path.name}"), message
        return None


def committed(files: list[Path]) -> st.SearchStrategy[Any]:
    return st.sampled_from(files).map(lambda path: read_yaml(path, "example"))


# -- spec sheets ---------------------------------------------------------------------------------

TINY = {"iotwin_workload": 1, "name": "tiny", "ranks": 4, "files": [
    {"name": "f.dat", "mode": "shared", "api": "mpiio", "datasets": [
        {"name": "/x", "element_bytes": 8, "transfer": "collective",
         "decomposition": {"grid": [4], "block": [2**17]}}]}]}


def _model_of(path: Path) -> None:
    tree = verdict(path, lambda p: platform_tree(load_sheet(p)))
    if tree is None:
        return
    platform = parse_platform(tree, str(path))
    [result] = simulate(platform, TINY, [{}], jobs=1)
    assert result.ok or (result.error and "\n" not in result.error), result.error
    if result.ok:
        assert 0 < result.rate_mbs <= result.ceiling_mbs * (1 + 1e-5)


@examples(12)
@given(st.one_of(sheets(), sheets().flatmap(mutated), committed(SHEETS).flatmap(mutated)))
def test_any_sheet_is_a_model_that_simulates_or_one_error(sheet: Any) -> None:
    with written(as_json(sheet)) as path:
        _model_of(path)


@examples(6)
@given(committed(SHEETS).flatmap(lambda s: mangled_text(as_json(s))))
def test_a_mangled_sheet_is_a_model_or_one_error(text: bytes) -> None:
    with written(text) as path:
        _model_of(path)


# -- published measurement tables ----------------------------------------------------------------

@examples(25)
@given(measurement_tables())
def test_any_measurement_table_is_bounded_cases_or_one_error(text: str) -> None:
    cores = 4920 * 24  # ARCHER's
    with written(text, ".csv") as path:
        cases = verdict(path, lambda p: read_cases(p, MACHINE, cores=cores))
    if cases is not None:
        assert len(cases) <= load_bounds()["calibration_cases"].max
        bound = load_bounds()["io_rate"]
        assert all(bound.contains(c.rate_mbs) and 1 <= c.processes <= cores for c in cases)


# -- parameter spaces ----------------------------------------------------------------------------

ARCHER = load_platform("archer")


def _space_configs(path: Path) -> None:
    space = verdict(path, load_space)
    if space is None:
        return
    bound = space.bind(platform_space_context(ARCHER, 64))
    for point in list(bound.points())[:4]:
        bound.config(point)  # validated against the config schema, or UserError


@examples(12)
@given(st.one_of(spaces(), spaces().flatmap(mutated), committed(SPACES).flatmap(mutated)))
def test_any_space_makes_valid_configs_or_is_one_error(space: Any) -> None:
    with written(as_json(space)) as path:
        try:
            _space_configs(path)
        except UserError as error:  # a point's config refused: named, one line
            assert "\n" not in str(error)


# -- experiment specs ----------------------------------------------------------------------------

@examples(15)
@given(st.one_of(experiment_specs(), committed(EXPERIMENTS).flatmap(mutated)))
def test_any_experiment_spec_is_read_or_one_error(spec: Any) -> None:
    with written(as_json(spec)) as path:
        verdict(path, load_experiment)


# -- benchmark and landscape specs ---------------------------------------------------------------

BENCHMARKS = [path for path in sorted((paths.repo_root() / "experiments").glob("*.yaml"))
              if path not in EXPERIMENTS]


def _in_bounds(value: Any, bound: str) -> bool:
    return load_bounds()[bound].contains(value)


@examples(15)
@given(st.one_of(benchmark_specs(), benchmark_specs().flatmap(mutated)))
def test_any_benchmark_spec_is_read_within_its_bounds_or_one_error(spec: Any) -> None:
    with written(as_json(spec)) as path:
        read = verdict(path, load_benchmark)
    if read is not None:
        cases, settings = read
        assert cases and _in_bounds(settings.seeds, "benchmark_seeds")
        assert all(_in_bounds(t, "target_fraction") for t in settings.targets)
        assert all(_in_bounds(cap, "evaluation_budget") for cap in settings.caps.values())


@examples(15)
@given(st.one_of(landscape_specs(), landscape_specs().flatmap(mutated),
                 committed(LANDSCAPES).flatmap(mutated)))
def test_any_landscape_spec_is_read_within_its_bounds_or_one_error(spec: Any) -> None:
    with written(as_json(spec)) as path:
        suite = verdict(path, load_suite)
    if suite is not None:
        assert _in_bounds(suite.ranks, "processes") and _in_bounds(suite.samples,
                                                                   "measured_configs")
        assert _in_bounds(suite.timeout_s, "run_timeout_s") and suite.warm_up >= 0
        assert all(isinstance(word, str) for word in suite.args)


# -- layout lists ---------------------------------------------------------------------------------

LAYOUTS = paths.data_dir() / "layouts.yaml"


@examples(15)
@given(st.one_of(layout_lists(), layout_lists().flatmap(mutated),
                 committed([LAYOUTS]).flatmap(mutated)))
def test_any_layout_list_is_valid_components_or_one_error(layouts: Any) -> None:
    with written(as_json(layouts)) as path:
        read = verdict(path, read_layouts)
    for name, components in (read or {}).items():
        if components is not None:
            validate_config({"lustre": {"components": components}}, name)


# -- calibrations in a store ---------------------------------------------------------------------

LOCAL = load_platform("local")


@examples(20)
@given(calibration_parameters(LOCAL.free_parameters()))
def test_a_stored_calibration_is_adopted_within_the_bounds_or_one_error(
        parameters: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.db"
        with Store(path) as store:
            campaign = store.create_campaign("c", kind="tune")
            store.add_calibration("local", parameters, fit_error=None, heldout_error=None,
                                  campaign_id=campaign, details={"measured": 1})
            model = SimModel(LOCAL, {})
            try:
                recalibrate(model, store, campaign, StoredRuns(store, campaign, "real"), 1, [],
                            None)
            except UserError as error:
                assert "\n" not in str(error) and str(error).startswith(str(path)), error
                return
    free = LOCAL.free_parameters()
    assert model.fitted == parameters
    assert all(free[name][1] <= value <= free[name][2] for name, value in parameters.items())


# -- site files ----------------------------------------------------------------------------------

@examples(15)
@given(st.one_of(site_files(), site_files().flatmap(mutated)))
def test_any_site_file_gives_sbatch_options_or_one_error(site: Any) -> None:
    with written(as_json(site)) as path:
        loaded = verdict(path, Site.load)
    if loaded is not None:
        options = loaded.sbatch_options(64, 600.0)
        assert all(isinstance(option, str) and "\n" not in option for option in options)


# -- stores --------------------------------------------------------------------------------------

def _store_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.db"
        with Store(path) as store:
            campaign = store.create_campaign("c", kind="tune", spec={"budget": 3})
            for i in range(20):
                store.add_evaluation(campaign, config={"mpiio": {"cb_nodes": i + 1}},
                                     workload="w", ranks=4, platform="archer", source="real",
                                     status="ok", measured_s=2.0, rate_mbs=50.0 + i,
                                     details={"generation": i})
            store.add_calibration("archer", {"filesystem.target_mbs": 450.0}, fit_error=0.1,
                                  heldout_error=None, campaign_id=campaign)
        with sqlite3.connect(path) as plain:  # one file, no WAL beside it
            plain.execute("PRAGMA journal_mode=DELETE")
        return path.read_bytes()


STORE = _store_bytes()


def _read_all(path: Path) -> int:
    with Store(path, read_only=True) as store:
        rows = len(store.evaluations())
        for campaign in store.campaigns():
            store.campaign(campaign.id)
        store.calibrations()
        return rows


@examples(20)
@given(st.integers(0, 2**32), st.sampled_from(("flip", "cut", "zero")))
def test_a_damaged_store_is_read_or_one_error(seed: int, how: str) -> None:
    data = bytearray(STORE)
    chance = random.Random(seed)
    if how == "cut":
        data = data[:chance.randrange(len(data))]
    for _ in range(0 if how == "cut" else chance.randint(1, 8)):
        at = chance.randrange(len(data))
        data[at] = 0 if how == "zero" else chance.randrange(256)
    with written(bytes(data), ".db") as path:
        try:
            rows = _read_all(path)
        except UserError as error:
            assert "\n" not in str(error) and str(path) in str(error), error
            return
    assert 0 <= rows <= 20


def test_the_fuzz_reads_the_committed_examples_it_mutates() -> None:
    """The seeds of the mutations are inputs the readers accept."""
    for path in SHEETS:
        load_sheet(path)
    for path in SPACES:
        load_space(path)
    for path in EXPERIMENTS:
        load_experiment(path)
    for path in BENCHMARKS:
        load_benchmark(path)
    for path in LANDSCAPES:
        load_suite(path)
    assert json.loads(as_json({"a": 1})) == {"a": 1}


def test_a_store_damaged_into_readable_but_wrong_pages_is_refused() -> None:
    """Byte flips that leave every page decodable but point one table's b-tree into other
    pages (found by the long fuzz run: these three read 134, 57 and 158 of 20 rows) are a
    damaged store, refused in one line, not rows it never held."""
    for seed in (650, 1533, 8040):
        data = bytearray(STORE)
        chance = random.Random(seed)
        for _ in range(chance.randint(1, 8)):
            data[chance.randrange(len(data))] = chance.randrange(256)
        with written(bytes(data), ".db") as path:
            try:
                rows = _read_all(path)
            except UserError as error:
                assert "\n" not in str(error) and str(path) in str(error), error
                continue
        assert rows <= 20, (seed, rows)


# -- cost surfaces: every command given an input beyond its limit --------------------------------

TRAIN = paths.repo_root() / "validation" / "data" / "io500-train.json"
WORKLOAD = paths.repo_root() / "experiments" / "landscape" / "h5py-field-2.workload.yaml"
BENCHMARK = paths.repo_root() / "experiments" / "strategy-benchmark-2-ranks.yaml"
TABLE = ("machine,source_folder,result_file,method,striping,local_block,processes,maxrate_mibs,"
         "avgrate_mibs\narcher,a,f1,MPI-IO,striped,16^3,24,500,400\n"
         "archer,a,f2,MPI-IO,unstriped,16^3,48,300,250\n")
EXPERIMENT = {"name": "cost", "study": ["default-vs-tuned"], "platforms": ["hopper"],
              "workloads": [{"kernel": "vpic-io", "ranks": 4}],
              "configs": [{"label": "default", "config": {}},
                          {"label": "tuned", "search": {"space": "table3", "budget": 4}}]}
DARSHAN_LOG = Path(darshan.__file__).parent / "examples" / "example_logs" / "example.darshan"
SHEET = paths.repo_root() / "sim-models" / "platforms" / "sheets" / "archer.yaml"
SUITE = paths.repo_root() / "experiments" / "landscape" / "vpic-io-2.yaml"
RUNS = SUITE.with_name("h5py-field-2.csv")
#: each command whose work grows with its inputs (tuner/README.md's cost table), its arguments
#: (INPUTS: the folder of the inputs written for it) and the input its refusal may name
COST_SURFACES = {
    "whatif": (["whatif", "--workload", str(WORKLOAD), "--platforms", "hopper"], ""),
    "simulate": (["simulate", "--platform", "hopper", "--workload", str(WORKLOAD)], ""),
    "calibrate --measurements": (["calibrate", "--platform", "archer", "--measurements",
                                  "INPUTS/table.csv"], "INPUTS/table.csv"),
    "calibrate --family": (["calibrate", "--family", "--io500", str(TRAIN), "-o", "f.yaml"],
                           f"--io500 {TRAIN}"),
    "experiment": (["experiment", "INPUTS/spec.yaml", "-o", "out"], "INPUTS/spec.yaml"),
    "landscape benchmark": (["landscape", "benchmark", str(BENCHMARK), "--model-analysis",
                             "off", "-o", "out"], ""),
    "tune": (["tune", "--kernel", "vpic-io", "--ranks", "4", "--platform", "hopper",
              "--executor", "twin", "--real-budget", "4"], ""),
    "validate traffic": (["validate", "traffic"], "logs.yaml"),
    "validate scale": (["validate", "scale", "--platforms", "hopper", "--write"],
                       "audit.yaml: "),
    "workload from-darshan": (["workload", "from-darshan", str(DARSHAN_LOG), "-o", "w.yaml"],
                              str(DARSHAN_LOG)),
    "platform new": (["platform", "new", str(SHEET), "-o", "p.yaml"], str(SHEET)),
    "landscape import": (["landscape", "import", str(RUNS), "INPUTS/spec.yaml"], str(RUNS)),
    "run": (["run", "vpic-io", "--ranks", "2"], ""),
    "landscape measure": (["landscape", "measure", str(SUITE), "-o", "t.csv"], str(SUITE)),
    "validate local": (["validate", "local", "--suite", str(SUITE)], str(SUITE)),
}


def _cli(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    """``iotwin ARGV`` in this process, in ``cwd``, its store there: status, stdout, stderr."""
    from contextlib import redirect_stderr, redirect_stdout
    from io import StringIO

    from iotwin.cli import main

    out, err, before = StringIO(), StringIO(), os.getcwd()
    saved = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("IOTWIN_")}
    os.environ["IOTWIN_STORE"] = str(cwd / "iotwin.db")
    try:
        os.chdir(cwd)
        with redirect_stdout(out), redirect_stderr(err):
            status = main(argv)
    finally:
        os.chdir(before)
        os.environ.pop("IOTWIN_STORE")
        os.environ.update(saved)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("command", sorted(COST_SURFACES))
@examples(2)
@given(st.one_of(st.integers(1, 1000).map(lambda us: ("--max-time", f"{us / 1e6:.6f}s")),
                 st.integers(1, 1024).map(lambda kib: ("--max-memory", f"{kib}KiB"))))
def test_any_command_beyond_its_limit_refuses_in_one_line_and_writes_nothing(
        command: str, limit: tuple[str, str]) -> None:
    with tempfile.TemporaryDirectory() as inputs, tempfile.TemporaryDirectory() as folder:
        (Path(inputs) / "table.csv").write_text(TABLE)
        (Path(inputs) / "spec.yaml").write_text(json.dumps(EXPERIMENT))
        argv, named = (part.replace("INPUTS", inputs) if isinstance(part, str) else
                       [a.replace("INPUTS", inputs) for a in part]
                       for part in COST_SURFACES[command])
        status, out, err = _cli([*argv, *limit], Path(folder))
        assert status == 2 and out == "", (command, limit, err)
        [line] = err.splitlines()
        assert line.startswith("iotwin: error: ") and f"raise {limit[0]}" in line, line
        assert named in line, line
        assert os.listdir(folder) == [], os.listdir(folder)
