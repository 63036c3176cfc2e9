"""Benchmark specs and landscape (local validation suite) specs are read through their schemas
(data/benchmark-schema.yaml, data/suite-schema.yaml, in the spec sheet schema's format, bounds
from bounds.yaml): each hostile value below was an internal error (a ValueError, TypeError or
AttributeError) or silently accepted (truncated, infinite, negative) before; now it is one line
naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.studies.strategy_benchmark import load_benchmark
from iotwin.validation.local import load_suite

LANDSCAPE = paths.repo_root() / "experiments" / "landscape" / "vpic-io-2.yaml"
VALID_BENCHMARK = {"strategies": "{random: 3}", "tables": f"{{vpic-io-2: {LANDSCAPE}}}"}

BENCHMARK = {
    "seeds: abc": ("seeds", "seeds: expected a whole number, got 'abc'"),
    "seeds: 1.5": ("seeds", "seeds: expected a whole number, got 1.5"),
    "seeds: 1000000000000": ("seeds", "seeds: expected an integer from 1 to 10000, got "
                                      "1000000000000"),
    "confirm: 0": ("confirm", "confirm: expected an integer from 1 to 100, got 0"),
    "targets: [x]": ("targets", "targets[0]: expected a number, got 'x'"),
    "targets: [.nan]": ("targets", "targets[0]: expected a number from 0.001 to 0.5, got nan"),
    "strategies: [random]": ("strategies", "strategies: expected a non-empty mapping of names, "
                                           "got ['random']"),
    "strategies: {random: true}": ("strategies", "strategies.random: expected a whole number, "
                                                 "got True"),
    "tables: {a: 5}": ("tables", "tables.a: expected text, got 5"),
    "tables: {}": ("tables", "tables: expected a non-empty mapping of names, got {}"),
}


@pytest.mark.parametrize("line", BENCHMARK)
def test_a_hostile_benchmark_spec_is_one_line_naming_the_key(tmp_path: Path, line: str) -> None:
    key, message = BENCHMARK[line]
    path = tmp_path / "bench.yaml"
    rest = "".join(f"{k}: {v}\n" for k, v in VALID_BENCHMARK.items() if k != key)
    path.write_text(f"{line}\n{rest}")
    with pytest.raises(UserError) as raised:
        load_benchmark(path)
    assert str(raised.value) == f"{path}:1: {message}"


def test_a_benchmark_spec_within_its_schema_is_read(tmp_path: Path) -> None:
    path = tmp_path / "bench.yaml"
    path.write_text("seeds: 4\ntargets: [0.1, 0.05]\n" + "".join(
        f"{k}: {v}\n" for k, v in VALID_BENCHMARK.items()))
    cases, settings = load_benchmark(path)
    assert [case.name for case in cases] == ["vpic-io-2"]
    assert (settings.seeds, settings.targets, settings.caps) == (4, (0.1, 0.05), {"random": 3})


SUITE = {
    "ranks: 1.5": "ranks: expected a whole number, got 1.5",
    "ranks: 100000000": "ranks: expected an integer from 1 to 16777216, got 100000000",
    "seed: -1": "seed: expected an integer from 0 to 4294967295, got -1",
    "args: 5": "args: expected a list of words, got 5",
    "args: [--n, {a: b}]": "args[1]: expected a word, got {'a': 'b'}",
    "timeout_s: .inf": "timeout_s: expected seconds, got inf",
    "timeout_s: 0": "timeout_s: expected a number from 1 to 604800 s, got 0",
    "filesystem: ext9": "filesystem: expected one of ufs, lustre, gpfs, got 'ext9'",
    "samples: 10000000": "samples: expected an integer from 3 to 100000, got 10000000",
    "warm_up: lots": "warm_up: 'lots' is not a size (examples: 1048576, 64KiB, 4MiB, 1GiB)",
}


@pytest.mark.parametrize("line", SUITE)
def test_a_hostile_landscape_spec_is_one_line_naming_the_key(tmp_path: Path, line: str) -> None:
    path = tmp_path / "landscape.yaml"
    path.write_text(f"{line}\n")
    with pytest.raises(UserError) as raised:
        load_suite(path)
    assert str(raised.value) == f"{path}:1: {SUITE[line]}"


def test_every_landscape_spec_of_the_repository_is_read() -> None:
    found = sorted(p for p in LANDSCAPE.parent.glob("*.yaml") if ".workload" not in p.suffixes)
    assert found
    for path in found:
        assert load_suite(path).samples >= 3


def test_a_table_whose_landscape_spec_is_missing_names_the_benchmark_key(tmp_path: Path
                                                                         ) -> None:
    """Found by the fuzz suite: the error named only the landscape file, not where the
    benchmark spec gave it."""
    path = tmp_path / "bench.yaml"
    path.write_text("strategies: {random: 3}\ntables: {a: '0'}\n")
    with pytest.raises(UserError) as raised:
        load_benchmark(path)
    assert str(raised.value) == (f"{path}:2: tables.a: {tmp_path / '0'}: cannot read the suite: "
                                 f"No such file or directory")
