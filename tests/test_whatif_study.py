"""iotwin whatif: the study logic with a stand-in simulator whose best config is known."""

from __future__ import annotations

from pathlib import Path

import pytest
from iotwin import paths
from iotwin.cli import main
from iotwin.commands.whatif import plot, table
from iotwin.errors import UserError
from iotwin.whatif import load_grid, parse_variation, study

GRID = paths.repo_root() / "experiments" / "macsio" / "whatif-grid.yaml"
WORK = {"name": "w", "ranks": 4, "files": []}


def _platform(name: str) -> dict:
    return {"name": name, "filesystem": {"ost_count": {"hopper": 156, "archer": 48}[name]}}


def _simulate(platform: dict, work: dict, configs: list[dict]) -> list[float]:
    """Rate grows with stripe count up to the platform's OSTs / 4, and with its OST count."""
    osts = platform["filesystem"]["ost_count"]
    rates = []
    for config in configs:
        stripes = config.get("lustre", {}).get("stripe_count", 1)
        rates.append(osts * (1 + min(stripes, osts // 4)) - abs(stripes - osts // 4))
    return rates


def test_tuning_finds_the_best_grid_point_per_platform() -> None:
    results = study(WORK, ["hopper", "archer"], _platform, _simulate, grid=load_grid(GRID))
    by_platform = {r.platform: r for r in results}
    assert by_platform["hopper"].tuned_config["lustre"]["stripe_count"] == 64  # caps at 39
    assert by_platform["archer"].tuned_config["lustre"]["stripe_count"] == 16  # caps at 12
    for r in results:
        assert r.tuned_mbs == max(_simulate(_platform(r.platform), WORK, load_grid(GRID)))
        assert r.default_mbs == _simulate(_platform(r.platform), WORK, [{}])[0]


def test_variants_set_the_platform_key() -> None:
    results = study(WORK, ["archer"], _platform, _simulate,
                    variation=parse_variation("filesystem.ost_count=24,96"))
    assert [r.variant for r in results] == ["filesystem.ost_count=24", "filesystem.ost_count=96"]
    assert results[1].default_mbs > results[0].default_mbs
    assert all(r.tuned_mbs is None for r in results)


def test_unknown_platform_key_is_named() -> None:
    with pytest.raises(UserError, match="no key 'osts'"):
        study(WORK, ["archer"], _platform, _simulate,
              variation=parse_variation("filesystem.osts=4"))


def test_bad_variation_syntax_is_refused() -> None:
    with pytest.raises(UserError, match="KEY=V1,V2"):
        parse_variation("ost_count")


def test_table_and_plot(tmp_path: Path) -> None:
    results = study(WORK, ["hopper", "archer"], _platform, _simulate, grid=load_grid(GRID))
    text = table(results)
    assert text.count("\n") == 2 and '"stripe_count":16' in text
    plot(results, "test", tmp_path / "w.png")
    assert (tmp_path / "w.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_rejects_a_missing_workload(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.yaml"
    assert main(["whatif", "--workload", str(missing), "--platforms", "hopper"]) == 2
    assert str(missing) in capsys.readouterr().err
