"""The paper-validation pipeline on a stand-in simulator: rows, configs, fit, leave-one-out.

The stand-in's rate grows with the parallelism a config asks for (stripe count, or cb_nodes on
GPFS) and pays a fixed open/close cost, with three free parameters: enough physics for a fit
to move and for tuned configs to differ from defaults, and instant, so the whole CSV runs.
The real simulator's run of a subset is in test_paper_validation_simulator.py.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from iotwin.core.errors import UserError
from iotwin.model import calibration as calibrate
from iotwin.validation.paper import report as paper_report
from iotwin.validation.paper.cases import build_cases, sample_configs
from iotwin.validation.paper.leave_out import leave_one_out
from iotwin.validation.paper.pipeline import run_paper_validation
from iotwin.validation.paper.prediction import MEMO
from iotwin.validation.paper.results import PaperValidation
from iotwin.validation.paper.rows import parse_tuned_parameters, read_published
from iotwin.validation.paper.settings import FitBudget, load_settings, paper_dir
from iotwin.workloads.replication.sessions import session_bytes

FREE = {"stream_mbs": (150.0, 10.0, 20000.0), "scaling": (0.2, 0.0, 1.0),
        "open_close_s": (5.0, 0.01, 100.0)}


@dataclass(frozen=True)
class StandInPlatform:
    name: str
    filesystem: str
    max_stripe_count: int
    values: Mapping[str, float] = field(default_factory=dict)

    @property
    def data(self) -> dict[str, Any]:
        return {"filesystem": {"type": self.filesystem, "max_stripe_count": self.max_stripe_count}}

    @property
    def tree(self) -> dict[str, Any]:
        return {}  # a platform model's tree: no site rules to bind a space to

    def free_parameters(self) -> dict[str, tuple[float, float, float]]:
        return {k: (self.values.get(k, v), lo, hi) for k, (v, lo, hi) in FREE.items()}

    def with_values(self, values: Mapping[str, float]) -> StandInPlatform:
        return StandInPlatform(self.name, self.filesystem, self.max_stripe_count,
                               {**self.values, **values})

    def with_priors(self) -> StandInPlatform:
        return StandInPlatform(self.name, self.filesystem, self.max_stripe_count)


@dataclass(frozen=True)
class StandInResult:
    rate_mbs: float
    ok: bool = True


def stand_in_platform(name: str) -> StandInPlatform:
    filesystem = "gpfs" if name == "intrepid" else "lustre"
    return StandInPlatform(name, filesystem, 160)


def stand_in_simulate(platform: StandInPlatform, workload: Mapping[str, Any],
                      configs: Sequence[Mapping[str, Any]], **_: Any) -> list[StandInResult]:
    values = {k: v[0] for k, v in platform.free_parameters().items()}
    written = sum(session_bytes(entry, workload["ranks"]) for entry in workload["files"])
    results = []
    for config in configs:
        stripes = config.get("lustre", {}).get("stripe_count") or 1
        stripes = platform.max_stripe_count if stripes == -1 else stripes
        parallel = stripes if platform.filesystem == "lustre" else \
            config.get("mpiio", {}).get("cb_nodes") or 1
        rate = values["stream_mbs"] * parallel ** values["scaling"]
        seconds = written / 1e6 / rate + values["open_close_s"]
        results.append(StandInResult(written / 1e6 / seconds))
    return results


def kernel_workload(kernel: str, ranks: int, args: Sequence[str]) -> dict[str, Any]:
    from iotwin.workloads.workload import kernel_workload as describe
    return describe(kernel, ranks, list(args))


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The stand-in simulator, and the suite's settings fitting the stand-in's parameters."""
    monkeypatch.setattr(calibrate, "simulate", stand_in_simulate)
    directory = paper_dir()
    settings = yaml.safe_load((directory / "cases.yaml").read_text())
    (tmp_path / "cases.yaml").write_text(yaml.safe_dump(settings))
    (tmp_path / settings["published"]).write_text(
        (directory / settings["published"]).read_text())
    return tmp_path / "cases.yaml"


def run(settings: Path, **options: Any) -> PaperValidation:
    return run_paper_validation(settings_path=settings, load_platform=stand_in_platform,
                                kernel_workload=kernel_workload, max_evaluations=15, **options)


def published_rows() -> list[dict[str, str]]:
    with (paper_dir() / "published-measurements.csv").open() as stream:
        return list(csv.DictReader(stream))


def test_the_table_has_every_published_row(stand_in: Path) -> None:
    result = run(stand_in, loo=False)
    table = {(r.model, r.kernel, r.cores, r.setting) for r in result.rows}
    spread = {s.label for s in result.spreads}
    for row in published_rows():
        key = (row["platform"].lower(), row["kernel"], int(row["cores"]), row["setting"])
        if row["setting"] in ("default", "tuned"):
            assert key in table, key
        else:
            assert f"{key[0]} {key[1]} {key[2]}" in spread, key
    assert len(result.rows) == sum(r["setting"] in ("default", "tuned") for r in published_rows())
    markdown = paper_report.markdown(result)
    assert all(r.label in markdown for r in result.rows)


def test_published_tuned_parameters_become_the_rows_config(stand_in: Path) -> None:
    result = run(stand_in, platforms=["ranger"], kernels=["VPIC-IO"], loo=False)
    tuned = next(r for r in result.rows if r.setting == "tuned")
    assert tuned.origin == "published"
    assert tuned.config == {"lustre": {"stripe_count": 96, "stripe_size": 128 << 20},
                            "mpiio": {"cb_nodes": 48, "cb_buffer_size": 128 << 20},
                            "hdf5": {"alignment": {"threshold": 4 << 10,
                                                   "boundary": 16 << 10}}}
    default = next(r for r in result.rows if r.setting == "default")
    assert default.origin == "site default" and default.config == {}


def test_unpublished_tuned_config_is_the_models_best_candidate(stand_in: Path) -> None:
    result = run(stand_in, platforms=["stampede"], kernels=["VPIC-IO"], loo=False)
    tuned = next(r for r in result.rows if r.setting == "tuned")
    assert tuned.origin == "model optimum"
    # the stand-in is fastest with the most stripes: the best sampled candidate has them
    settings = load_settings()
    row = next(r for r in read_published(settings.published) if r.label == tuned.label)
    candidates = sample_configs(settings.model_optimum, stand_in_platform("stampede"), row)
    counts = [c["lustre"]["stripe_count"] for c in candidates]
    best = max(counts, key=lambda n: 160 if n == -1 else n)
    assert tuned.config["lustre"]["stripe_count"] == best


def test_each_platform_model_is_read_once(stand_in: Path) -> None:
    read: list[str] = []

    def reading(name: str) -> StandInPlatform:
        read.append(name)
        return stand_in_platform(name)

    # stampede's tuned VPIC-IO row is a model optimum: its candidates are sampled on the
    # platform too
    result = run_paper_validation(settings_path=stand_in, load_platform=reading,
                                  kernel_workload=kernel_workload, max_evaluations=15,
                                  platforms=["stampede", "hopper"], kernels=["VPIC-IO"],
                                  loo=False)
    assert any(row.origin == "model optimum" for row in result.rows)
    assert sorted(read) == ["hopper", "stampede"]


def test_fit_lowers_the_loss_and_the_error(stand_in: Path) -> None:
    result = run(stand_in, platforms=["hopper"], loo=False)
    (fit,) = result.fits
    assert fit.loss_after < fit.loss_before
    assert fit.parameters != fit.before
    fitted, prior = (result.metrics["overall"][w] for w in ("fitted", "prior"))
    assert fitted["median_abs_error"] < prior["median_abs_error"]


def test_leave_one_out_never_uses_the_held_out_row(stand_in: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings()
    rows = [r for r in read_published(settings.published) if r.platform == "Intrepid"]
    cases = build_cases(rows, settings, stand_in_platform, kernel_workload)
    seen: list[list[float]] = []
    real_fit = calibrate.fit

    def spying_fit(platform: Any, observations: Sequence[calibrate.Observation],
                   **options: Any) -> calibrate.Fit:
        seen.append([o.rate_mbs for o in observations])
        return real_fit(platform, observations, **options)

    monkeypatch.setattr(calibrate, "fit", spying_fit)
    platform = stand_in_platform("intrepid")
    budget = FitBudget(10, 2, 0.01)
    before = leave_one_out(platform, cases, list(FREE), budget, lambda _: None)
    published = [c.published_mbs for c in cases]
    missing = [sorted(set(published) - set(rates)) for rates in seen]
    assert all(len(rates) == len(cases) - 1 and len(m) == 1 for rates, m in zip(seen, missing,
                                                                                 strict=True))
    assert {m[0] for m in missing} == set(published)

    # changing a row's published value changes every prediction but its own held-out one
    changed = cases[0].row.__class__(**{**cases[0].row.__dict__,
                                        "value": cases[0].row.value * 10})
    cases[0].row = changed
    after = leave_one_out(platform, cases, list(FREE), budget, lambda _: None)
    assert after[0].rate_mbs == pytest.approx(before[0].rate_mbs, rel=1e-9)
    assert any(not math.isclose(a.rate_mbs or 0, b.rate_mbs or 0, rel_tol=1e-6)
               for a, b in zip(after[1:], before[1:], strict=True))


def test_metrics_count_rankings_and_agree_with_rows(stand_in: Path) -> None:
    result = run(stand_in, platforms=["hopper"], kernels=["VPIC-IO", "GCRM-IO"])
    errors = sorted(abs(r.fitted_mbs / r.published_mbs - 1) for r in result.rows)
    middle = len(errors) // 2
    expected = errors[middle] if len(errors) % 2 else (errors[middle - 1] + errors[middle]) / 2
    fitted = result.metrics["overall"]["fitted"]
    assert fitted["median_abs_error"] == pytest.approx(expected)
    assert fitted["cases"] == 4
    assert fitted["tuned_above_default"] == sum((c.fitted_speedup or 0) > 1
                                                for c in result.cases)
    assert result.metrics["per_platform"]["hopper"]["loo"]["rows"] == len(result.rows) == 8
    assert all(r.loo_mbs for r in result.rows)


def test_tuned_parameters_are_parsed_with_units_and_unknown_names_refused() -> None:
    keys = load_settings().tuned_parameter_keys
    config = parse_tuned_parameters("strp_fac=48 strp_unt=32MB (text, 5.1.2)", keys)
    assert config == {"lustre": {"stripe_count": 48, "stripe_size": 32 << 20},
                      "mpiio": {"cb_buffer_size": 32 << 20}}
    with pytest.raises(UserError, match="stripes"):
        parse_tuned_parameters("stripes=4", keys)
    with pytest.raises(UserError, match="align"):
        parse_tuned_parameters("align=(4KB)", keys)


def test_a_bad_published_row_names_its_line(tmp_path: Path) -> None:
    source = paper_dir() / "published-measurements.csv"
    lines = source.read_text().splitlines()
    lines[1] = lines[1].replace(",400,", ",fast,")
    bad = tmp_path / "rows.csv"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(UserError, match=r"rows.csv:2"):
        read_published(bad)


def test_a_workload_of_the_wrong_size_is_refused(tmp_path: Path) -> None:
    directory = paper_dir()
    text = (directory / "cases.yaml").read_text().replace(
        "VPIC-IO: vpic-io --particles 8388608", "VPIC-IO: vpic-io --particles 4194304", 1)
    (tmp_path / "cases.yaml").write_text(text)
    (tmp_path / "published-measurements.csv").write_text(
        (directory / "published-measurements.csv").read_text())
    settings = load_settings(tmp_path / "cases.yaml")
    rows = [r for r in read_published(settings.published)
            if r.platform == "Hopper" and r.kernel == "VPIC-IO" and r.cores == 128]
    with pytest.raises(UserError, match=r"Hopper VPIC-IO 128.*16.0 GiB"):
        build_cases(rows, settings, stand_in_platform, kernel_workload)


def test_fitted_values_are_recorded_in_a_platform_yaml_in_place(tmp_path: Path) -> None:
    from iotwin.core import paths
    from iotwin.model.platforms import load_platform

    original = (paths.platforms_dir() / "hopper.yaml").read_text()
    priors = load_platform(paths.platforms_dir() / "hopper.yaml").with_priors().free_parameters()
    copy = tmp_path / "hopper.yaml"
    copy.write_text(original)
    paper_report.record_fitted(copy, "paper-hopper-1", {"filesystem.target_mbs": 312.5,
                                                            "compute.nic_mbs": 4500.0})
    assert load_platform(copy).free_parameters()["compute.nic_mbs"][0] == 4500.0
    paper_report.record_fitted(copy, "paper-hopper-2", {"filesystem.target_mbs": 300.0})
    recorded = load_platform(copy)
    free = recorded.free_parameters()
    assert free["filesystem.target_mbs"][0] == 300.0
    # the second fit replaces the first as a whole: what it did not fit is back at its prior
    assert free["compute.nic_mbs"][0] == priors["compute.nic_mbs"][0]
    assert {name: value[0] for name, value in free.items()} == {
        **{name: value[0] for name, value in priors.items()}, "filesystem.target_mbs": 300.0}
    # the value before any fit stays the prior, whatever was recorded since
    assert recorded.with_priors().free_parameters() == priors
    text = copy.read_text()
    assert text.count("fitted: paper-hopper-") == 1 and "fitted: paper-hopper-2" in text
    unchanged = [a for a, b in zip(original.splitlines(), text.splitlines(), strict=True)
                 if a == b]
    assert len(unchanged) >= len(original.splitlines()) - 6  # only fitted leaves' lines
    with pytest.raises(UserError, match=r"filesystem\.no_such_leaf"):
        paper_report.record_fitted(copy, "x", {"filesystem.no_such_leaf": 1.0})


@dataclass(frozen=True)
class LinesTo:
    """Progress appended to a file: picklable, so worker processes can be sent it."""

    path: Path

    def __call__(self, text: str) -> None:
        with self.path.open("a") as stream:
            stream.write(text + "\n")


def test_leave_one_out_in_worker_processes_matches_one_process(stand_in: Path,
                                                               tmp_path: Path) -> None:
    settings = load_settings(stand_in)
    rows = [r for r in read_published(settings.published)
            if r.platform == "Ranger" and r.kernel != "VORPAL-IO"]
    cases = build_cases(rows, settings, stand_in_platform, kernel_workload)
    platform = stand_in_platform("ranger")
    budget = FitBudget(10, 2, 0.01)
    alone = leave_one_out(platform, cases, list(FREE), budget, lambda _: None)
    told = tmp_path / "told.txt"
    in_workers = leave_one_out(platform, cases, list(FREE), budget, LinesTo(told), 2)
    assert [p.rate_mbs for p in in_workers] == pytest.approx([p.rate_mbs for p in alone])
    assert [p.config for p in in_workers] == [p.config for p in alone]
    # each refit, run in a worker, told what it started
    assert sorted(told.read_text().splitlines()) == sorted(
        f"ranger: leave-one-out {i + 1}/{len(cases)}: {case.row.label}"
        for i, case in enumerate(cases))


def test_platform_parts_saved_in_a_partial_directory_are_reused(stand_in: Path,
                                                                tmp_path: Path) -> None:
    parts = tmp_path / "parts"
    first = run(stand_in, platforms=["ranger", "stampede"], kernels=["VPIC-IO"], partial=parts)
    assert sorted(p.name for p in parts.glob("*.json")) == ["ranger.json", "stampede.json"]
    told: list[str] = []
    again = run(stand_in, platforms=["ranger", "stampede"], kernels=["VPIC-IO"], partial=parts,
                progress=told.append)
    assert told == [f"{m}: from {parts / m}.json" for m in ("ranger", "stampede")]
    assert again.to_json() == first.to_json()
    assert first.metrics["overall"]["loo"]["rows"] == 4


def test_an_interrupted_run_resumes_from_its_logged_simulations(
        stand_in: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parts = tmp_path / "parts"
    first = run(stand_in, platforms=["intrepid"], kernels=["VPIC-IO"], partial=parts)
    (parts / "intrepid.json").unlink()  # as if stopped before the platform was done
    MEMO.rates.clear()

    def no_simulator(*_: Any, **__: Any) -> None:
        raise AssertionError("simulated again")

    monkeypatch.setattr(calibrate, "simulate", no_simulator)
    again = run(stand_in, platforms=["intrepid"], kernels=["VPIC-IO"], partial=parts)
    assert again.to_json() == first.to_json()


def test_simulations_logged_by_another_build_of_the_simulator_run_again(
        stand_in: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from iotwin.validation.paper import prediction

    parts = tmp_path / "parts"
    run(stand_in, platforms=["intrepid"], kernels=["VPIC-IO"], partial=parts)
    (parts / "intrepid.json").unlink()
    MEMO.rates.clear()
    calls: list[int] = []

    def counted(*args: Any, **options: Any) -> list[StandInResult]:
        calls.append(len(args[2]))
        return stand_in_simulate(*args, **options)

    monkeypatch.setattr(calibrate, "simulate", counted)
    monkeypatch.setattr(prediction, "simulator_identity", lambda: "iosim, rebuilt")
    run(stand_in, platforms=["intrepid"], kernels=["VPIC-IO"], partial=parts)
    assert calls, "the old build's simulations were reused"
