"""Every command whose work grows with its inputs estimates its time and memory before any of
it starts (iotwin.core.cost, iosim's own estimate for each simulation), and refuses beyond its
limits (--max-time, --max-memory) with one line naming the input that drives the estimate:
nothing written, nothing simulated. Within the limits, the estimate is printed and the work
runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from iotwin.core import paths
from iotwin.core.cost import constants
from support.command_tree import leaf_commands, options

WORKLOAD = paths.repo_root() / "experiments/landscape/h5py-field-2.workload.yaml"
SMALL_BENCHMARK = paths.repo_root() / "experiments/strategy-benchmark-2-ranks.yaml"
PUBLISHED = ("machine,source_folder,result_file,method,striping,local_block,processes,"
             "maxrate_mibs,avgrate_mibs\n"
             "archer,a,f1,MPI-IO,striped,16^3,24,500,400\n"
             "archer,a,f2,MPI-IO,unstriped,16^3,48,300,250\n"
             "archer,a,f3,HDF5,striped,16^3,96,800,700\n")


def iotwin(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("IOTWIN_MAX_")}
    env["IOTWIN_STORE"] = str(cwd / "store.db")
    return subprocess.run([sys.executable, "-m", "iotwin", *argv], cwd=cwd, text=True,
                          capture_output=True, check=False, timeout=300, env=env)


def refusal(done: subprocess.CompletedProcess[str]) -> str:
    """The one line of a refused command: exit 2, nothing on stdout, no traceback."""
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr, done.stderr
    return done.stderr.strip().splitlines()[-1]


def contents(path: Path) -> bytes | None:
    """A file's bytes, None while it does not exist: what a refused command must leave as it was."""
    return path.read_bytes() if path.exists() else None


def written(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# -- whatif ----------------------------------------------------------------------------------

def test_whatif_over_the_time_limit_names_the_budget_and_writes_nothing(tmp_path: Path) -> None:
    done = iotwin("whatif", "--workload", str(WORKLOAD), "--platforms", "hopper,archer",
                  "--tune", "--budget", "1000000", "--plot", "p.png", "--max-time", "10min",
                  cwd=tmp_path)
    line = refusal(done)
    assert line.startswith("iotwin: error: --budget = 1000000: estimated "), line
    assert "over the 10 min limit; lower --budget or raise --max-time" in line
    assert written(tmp_path) == []


def test_whatif_over_the_memory_limit_names_the_workload(tmp_path: Path) -> None:
    done = iotwin("whatif", "--workload", str(WORKLOAD), "--platforms", "hopper",
                  "--max-memory", "1MiB", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith(f"iotwin: error: {WORKLOAD}"), line
    assert "of memory" in line and "over the 1.0 MiB limit" in line and "--max-memory" in line
    assert written(tmp_path) == []


def test_whatif_within_its_limits_says_its_estimate_and_runs(tmp_path: Path) -> None:
    done = iotwin("whatif", "--workload", str(WORKLOAD), "--platforms", "hopper",
                  "--max-time", "10min", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "iotwin: whatif: estimated " in done.stderr
    assert "hopper" in done.stdout


# -- calibrate --measurements ----------------------------------------------------------------

def test_calibrate_to_a_table_over_the_limit_names_the_table_and_stores_nothing(
        tmp_path: Path) -> None:
    csv = tmp_path / "rows.csv"
    csv.write_text(PUBLISHED)
    done = iotwin("calibrate", "--platform", "archer", "--measurements", str(csv),
                  "--max-time", "5s", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith(f"iotwin: error: {csv} = 3 distinct cases: estimated "), line
    assert line.endswith(f"over the 5 s limit; lower {csv} or raise --max-time")
    assert written(tmp_path) == ["rows.csv"]


def test_calibrate_with_a_design_over_the_limit_names_it_and_leaves_no_store(
        tmp_path: Path) -> None:
    done = iotwin("calibrate", "--platform", "archer", "--design", "lustre", "--max-time", "5s",
                  cwd=tmp_path)
    line = refusal(done)
    assert line.startswith("iotwin: error: --design lustre = 7 probes x 9 runs: estimated "), line
    assert line.endswith("over the 5 s limit; lower --design lustre or raise --max-time")
    assert written(tmp_path) == []


# -- experiment ------------------------------------------------------------------------------

def experiment(tmp_path: Path, budget: int, ranks: int = 4) -> Path:
    spec = {"name": "cost", "study": ["default-vs-tuned"], "platforms": ["hopper"],
            "workloads": [{"kernel": "vpic-io", "ranks": ranks}],
            "configs": [{"label": "default", "config": {}},
                        {"label": "tuned", "search": {"space": "table3", "budget": budget}}]}
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def test_an_experiment_over_the_limit_names_the_spec_field_and_stores_nothing(
        tmp_path: Path) -> None:
    spec = experiment(tmp_path, 1000000)
    done = iotwin("experiment", str(spec), "-o", "out", "--max-time", "1h", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith(f"iotwin: error: {spec}: configs[1].search.budget = 1000000: "
                           "estimated "), line
    assert line.endswith("over the 60 min limit; lower configs[1].search.budget or raise "
                         "--max-time")
    assert written(tmp_path) == ["spec.yaml"]


def test_an_experiment_over_the_memory_limit_names_its_workload(tmp_path: Path) -> None:
    """Before: 10^12 ranks were "out of memory" (now beyond the bounds table), and a million
    a simulation the machine could not hold."""
    spec = experiment(tmp_path, 4, ranks=1000000)
    done = iotwin("experiment", str(spec), "--max-memory", "100MiB", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith(f"iotwin: error: {spec}: workloads[0]."), line
    assert "of memory (most for 1e+06 " in line and "over the 100 MiB limit" in line
    assert written(tmp_path) == ["spec.yaml"]


def test_an_experiment_within_its_limits_says_its_estimate_and_runs(tmp_path: Path) -> None:
    spec = experiment(tmp_path, 4)
    done = iotwin("experiment", str(spec), "--max-time", "1h", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "iotwin: experiment: estimated " in done.stderr
    assert "tuned" in done.stdout


# -- landscape benchmark ---------------------------------------------------------------------

def test_a_benchmark_over_the_limit_names_the_seeds_and_writes_nothing(tmp_path: Path) -> None:
    done = iotwin("landscape", "benchmark", str(SMALL_BENCHMARK), "--seeds", "10000",
                  "--model-analysis", "off", "-o", "out", "--max-time", "1min", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith("iotwin: error: --seeds = 10000: estimated "), line
    assert line.endswith("over the 60 s limit; lower --seeds or raise --max-time")
    assert written(tmp_path) == []


def test_a_guided_benchmark_is_priced_at_its_strategies_own_cpu(tmp_path: Path) -> None:
    """Before: only the replayed runs were counted (100 seeds of optuna-tpe at 150 runs:
    "32 s"), where each of its runs costs a third of a second of its own."""
    spec = tmp_path / "guided.yaml"
    spec.write_text(yaml.safe_dump({
        "seeds": 100, "strategies": {"optuna-tpe": 150},
        "tables": {"vpic-io-4": str(paths.repo_root() / "experiments/landscape/vpic-io-4.yaml")}}))
    done = iotwin("landscape", "benchmark", str(spec), "--model-analysis", "off", "-o", "out",
                  "--max-time", "10min", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith(f"iotwin: error: {spec}: seeds = 100: estimated "), line
    assert "guided strategies' own CPU on table vpic-io-4" in line, line
    assert written(tmp_path) == ["guided.yaml"]


# -- tune ------------------------------------------------------------------------------------

TWIN = ("tune", "--kernel", "vpic-io", "--ranks", "4", "--platform", "hopper", "--executor",
        "twin")


def test_a_campaign_over_the_limit_names_the_budget_and_leaves_no_store(tmp_path: Path) -> None:
    done = iotwin(*TWIN, "--real-budget", "100000", "--max-time", "1h", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith("iotwin: error: --real-budget = 100000: estimated "), line
    assert line.endswith("over the 60 min limit; lower --real-budget or raise --max-time")
    assert written(tmp_path) == []


def test_a_campaign_within_its_limits_says_its_estimate_and_runs(tmp_path: Path) -> None:
    done = iotwin(*TWIN, "--real-budget", "4", "--strategy", "random", "--max-time", "1h",
                  cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("iotwin: tune: estimated "), done.stderr
    assert "store.db" in written(tmp_path)


# -- simulate, validate scale, validate traffic --------------------------------------------------

def test_simulate_over_the_time_limit_names_the_workload_field_and_simulates_nothing(
        tmp_path: Path) -> None:
    done = iotwin("simulate", "--platform", "hopper", "--workload", str(WORKLOAD), "--max-time",
                  "0.001s", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith(f"iotwin: error: {WORKLOAD}: "), line
    assert "over the 0.001 s limit; lower " in line and line.endswith("or raise --max-time")
    assert written(tmp_path) == []


def test_simulate_over_the_memory_limit_names_the_kernels_options(tmp_path: Path) -> None:
    done = iotwin("simulate", "--platform", "hopper", "--kernel", "vpic-io", "--ranks", "64",
                  "--max-memory", "1MiB", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith("iotwin: error: --kernel vpic-io --ranks 64"), line
    assert "of memory" in line and line.endswith("raise --max-memory")


def test_simulate_within_its_limits_simulates(tmp_path: Path) -> None:
    done = iotwin("simulate", "--platform", "hopper", "--workload", str(WORKLOAD), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("hopper: ")


def test_validate_scale_over_the_limit_names_the_audit_and_writes_nothing(
        tmp_path: Path) -> None:
    results = paths.repo_root() / "validation/scale/results.json"
    before = contents(results)
    done = iotwin("validate", "scale", "--platforms", "hopper", "--write", "--max-time", "1s",
                  cwd=tmp_path)
    line = refusal(done)
    assert line.startswith("iotwin: error: ") and "/audit.yaml: platforms = " in line, line
    assert line.endswith("over the 1 s limit; lower platforms or raise --max-time")
    assert contents(results) == before


def test_validate_traffic_over_the_memory_limit_names_a_log(tmp_path: Path) -> None:
    done = iotwin("validate", "traffic", "--max-memory", "1MiB", cwd=tmp_path)
    line = refusal(done)
    assert "logs.yaml: " in line and ".darshan" in line and "of memory" in line, line
    assert line.endswith("raise --max-memory")


#: the commands that do work: every one but those data/costs.yaml says estimate nothing
ESTIMATED = sorted(set(leaf_commands()) - set(constants()["not_estimated"]))


def test_every_command_estimates_its_cost_or_is_declared_cheap_with_why() -> None:
    """Walks the parser: a command added without --max-time and --max-memory fails here until
    it estimates its cost, or data/costs.yaml's not_estimated says why it need not."""
    declared = constants()["not_estimated"]
    unlimited = {words for words, parser in leaf_commands().items()
                 if not {"--max-time", "--max-memory"} <= options(parser)}
    assert unlimited == set(declared), "estimate these, or declare them cheap and why"
    assert all(isinstance(why, str) and len(why.split()) > 3 for why in declared.values())
    print("estimated:", ", ".join(ESTIMATED))
    print("declared cheap:", ", ".join(declared))


@pytest.mark.parametrize("command", ESTIMATED)
def test_the_limits_are_named_in_help(command: str, tmp_path: Path) -> None:
    done = iotwin(*command.split(), "--help", cwd=tmp_path)
    assert done.returncode == 0
    for option in ("--max-time", "--max-memory", "IOTWIN_MAX_TIME", "IOTWIN_MAX_MEMORY"):
        assert option in done.stdout


# -- workload -------------------------------------------------------------------------------

def test_scaling_a_huge_workload_is_refused_naming_it_before_it_is_read(tmp_path: Path) -> None:
    huge = tmp_path / "huge.yaml"
    huge.write_text(WORKLOAD.read_text() + "#" * 2_000_000 + "\n")
    done = iotwin("workload", "scale", str(huge), "--ranks", "4", "-o", "out.yaml",
                  "--max-time", "5s", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith(f"iotwin: error: {huge} = "), line
    assert line.endswith(f"over the 5 s limit; lower {huge} or raise --max-time")
    assert written(tmp_path) == ["huge.yaml"]


def test_a_workload_from_many_ior_segments_is_refused_naming_them(tmp_path: Path) -> None:
    done = iotwin("workload", "from-ior", "--ranks", "4", "--nodes", "1", "-o", "out.yaml",
                  "--max-time", "2s", "--", "-a", "MPIIO", "-t", "1k", "-b", "4k", "-s",
                  "10000", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith("iotwin: error: IOR -s = 10000: estimated "), line
    assert line.endswith("over the 2 s limit; lower IOR -s or raise --max-time")
    assert written(tmp_path) == []


def test_a_capture_on_more_ranks_than_the_machine_holds_is_refused_before_it_runs(
        tmp_path: Path) -> None:
    """Before: 100,000 ranks were launched on this machine."""
    done = iotwin("workload", "capture", "--ranks", "100000", "-o", "out.yaml", "--",
                  "/bin/true", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith("iotwin: error: --ranks = 100000: estimated "), line
    assert "of memory (100000 processes on this machine)" in line, line
    assert line.endswith("raise --max-memory")
    assert written(tmp_path) == []


def test_a_huge_macsio_description_is_refused_naming_it(tmp_path: Path) -> None:
    description = paths.repo_root() / "experiments/macsio/simulations.yaml"
    huge = tmp_path / "sims.yaml"
    huge.write_text(description.read_text() + "#" * 2_000_000 + "\n")
    done = iotwin("workload", "macsio", str(huge), "sim-a", "-o", "out.yaml", "--max-memory",
                  "256MiB", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith(f"iotwin: error: {huge} = "), line
    assert "of memory" in line and line.endswith("raise --max-memory")
    assert written(tmp_path) == ["sims.yaml"]


# -- validate paper, demo ---------------------------------------------------------------------

def test_validate_paper_over_the_limit_names_the_platforms_and_writes_nothing(
        tmp_path: Path) -> None:
    results = paths.repo_root() / "validation/paper/results.json"
    before = contents(results)
    done = iotwin("validate", "paper", "--platforms", "hopper", "--write", "--max-time", "1min",
                  cwd=tmp_path)
    line = refusal(done)
    assert line.startswith("iotwin: error: --platforms = hopper: estimated "), line
    assert line.endswith("over the 60 s limit; lower --platforms or raise --max-time")
    assert contents(results) == before
    assert written(tmp_path) == []


def test_a_demo_over_the_limit_names_its_budget_and_leaves_no_store(tmp_path: Path) -> None:
    demo = paths.data_dir() / "demo.yaml"
    spec = tmp_path / "demo.yaml"
    spec.write_text(demo.read_text().replace("real_budget: 8 ", "real_budget: 100000 "))
    done = iotwin("demo", "--spec", str(spec), "--output", "tuned.yaml", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith(f"iotwin: error: {spec}: real_budget = 100000: estimated "), line
    assert line.endswith("lower real_budget or raise --max-time")
    assert written(tmp_path) == ["demo.yaml"]


# -- the commands given an estimate by the parser walk above ----------------------------------

LANDSCAPE_SPEC = paths.repo_root() / "experiments/landscape/vpic-io-2.yaml"


def padded(source: Path, into: Path, nbytes: int = 2_000_000) -> Path:
    """``source``'s text with ``nbytes`` of comment after it, at ``into``."""
    into.write_text(source.read_text() + "#" * nbytes + "\n")
    return into


def test_a_darshan_log_of_a_terabyte_is_refused_naming_it_before_it_is_read(
        tmp_path: Path) -> None:
    """Before: darshan-util's child was started on it, capped at 2 GiB and 300 s."""
    log = tmp_path / "huge.darshan"
    with log.open("wb") as sparse:
        sparse.truncate(2**40)
    done = iotwin("workload", "from-darshan", str(log), "-o", "out.yaml", cwd=tmp_path)
    line = refusal(done)
    assert line.startswith(f"iotwin: error: {log} = {2**40} bytes: estimated "), line
    assert line.endswith(f"lower {log} or raise --max-memory")
    assert written(tmp_path) == ["huge.darshan"]


def test_a_huge_spec_sheet_is_refused_naming_it(tmp_path: Path) -> None:
    sheet = padded(paths.repo_root() / "sim-models/platforms/sheets/archer.yaml",
                   tmp_path / "sheet.yaml")
    done = iotwin("platform", "new", str(sheet), "-o", "model.yaml", "--max-time", "5s",
                  cwd=tmp_path)
    line = refusal(done)
    assert line.startswith(f"iotwin: error: {sheet} = "), line
    assert line.endswith(f"over the 5 s limit; lower {sheet} or raise --max-time")
    assert written(tmp_path) == ["sheet.yaml"]


def test_a_huge_table_of_runs_to_import_is_refused_naming_it(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(LANDSCAPE_SPEC.read_text())
    runs = tmp_path / "runs.csv"
    runs.write_text("rate_mbs\n" + "1.0\n" * 1_000_000)
    done = iotwin("landscape", "import", str(runs), str(spec), "--max-memory", "256MiB",
                  cwd=tmp_path)
    line = refusal(done)
    assert line.startswith(f"iotwin: error: {runs} = "), line
    assert line.endswith(f"lower {runs} or raise --max-memory")
    assert written(tmp_path) == ["runs.csv", "spec.yaml"]


def test_a_run_of_a_million_repetitions_is_refused_naming_them(tmp_path: Path) -> None:
    """Before: the first of a million runs started (each bounded by --timeout only)."""
    done = iotwin("run", "--ranks", "2", "--repeat", "1000000", "--", "/bin/true",
                  cwd=tmp_path)
    line = refusal(done)
    assert line.startswith("iotwin: error: --repeat = 1000000: estimated "), line
    assert "(1000000 runs of 2 processes)" in line
    assert line.endswith("lower --repeat or raise --max-time")
    assert written(tmp_path) == []


@pytest.mark.parametrize("command", [["landscape", "measure"], ["validate", "local", "--suite"]],
                         ids=" ".join)
def test_a_suite_of_a_million_runs_is_refused_naming_its_samples(command: list[str],
                                                                 tmp_path: Path) -> None:
    spec = tmp_path / "suite.yaml"
    spec.write_text(LANDSCAPE_SPEC.read_text().replace("samples: 100", "samples: 100000"))
    done = iotwin(*command, str(spec), cwd=tmp_path)
    line = refusal(done)
    assert line.startswith(f"iotwin: error: {spec}: samples = 100000: estimated "), line
    assert "(900000 runs of 2 processes)" in line
    assert line.endswith("lower samples or raise --max-time")
    assert written(tmp_path) == ["suite.yaml"]


def test_a_suite_on_more_ranks_than_the_machine_holds_names_the_suites_ranks(
        tmp_path: Path) -> None:
    """Found by the long fuzz run: the refusal named --ranks, an option these commands lack."""
    spec = tmp_path / "suite.yaml"
    spec.write_text(LANDSCAPE_SPEC.read_text().replace("ranks: 2", "ranks: 100000"))
    done = iotwin("validate", "local", "--suite", str(spec), cwd=tmp_path)
    line = refusal(done)
    assert line.startswith(f"iotwin: error: {spec}: ranks = 100000: estimated "), line
    assert line.endswith("of memory (100000 processes on this machine), over the 8.0 GiB "
                         "limit; lower ranks or raise --max-memory")
    assert written(tmp_path) == ["suite.yaml"]
