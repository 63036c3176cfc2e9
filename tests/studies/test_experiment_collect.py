"""experiments/results/collect.py: a report's CSV and inline figures become the committed files."""

from __future__ import annotations

import base64
import importlib.util
from pathlib import Path

import pytest
from support.programs import REPO_ROOT

REPO = REPO_ROOT


def load_collect():
    spec = importlib.util.spec_from_file_location(
        "collect", REPO / "experiments" / "results" / "collect.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def page(images: list[bytes]) -> str:
    tags = "".join(f'<img src="data:image/png;base64,{base64.b64encode(i).decode()}">'
                   for i in images)
    return f"<html><body>{tags}</body></html>"


def test_the_newest_report_is_copied_with_its_figures_in_page_order(tmp_path: Path) -> None:
    collect = load_collect()
    reports, results = tmp_path / "reports", tmp_path / "results"
    reports.mkdir()
    (reports / "report-9.html").write_text(page([b"old"]))
    (reports / "report-9.csv").write_text("old\n")
    (reports / "report-10.html").write_text(page([b"first", b"second"]))
    (reports / "report-10.csv").write_text("platform,rate_mbs\nhopper,1.0\n")
    stale = results / "study" / "figure-3.png"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"stale")
    written = collect.collect("study", reports, results)
    out = results / "study"
    assert [p.name for p in written] == ["cells.csv", "figure-1.png", "figure-2.png"]
    assert (out / "cells.csv").read_text() == "platform,rate_mbs\nhopper,1.0\n"
    assert (out / "figure-1.png").read_bytes() == b"first"
    assert (out / "figure-2.png").read_bytes() == b"second"
    assert not stale.exists()


def test_a_directory_without_a_report_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=f"{tmp_path}: no report-ID.html"):
        load_collect().collect("study", tmp_path, tmp_path / "results")
