"""Reports: one self-contained page per campaign kind, every image an inline valid PNG."""

from __future__ import annotations

import base64
import csv
import html
import struct
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from iotwin.core.errors import UserError
from iotwin.core.run_records import RunResult
from iotwin.report.writing import write_report
from iotwin.store.database import Store
from iotwin.studies.experiment.runner import run_experiment
from iotwin.studies.experiment.spec import parse_experiment
from support.stored_campaigns import tune_campaign


class PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.links: list[str] = []
        self.headings: list[str] = []
        self._in_h2 = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "img":
            self.images.append(values.get("src") or "")
        for name in ("href", "src"):
            if name in values and tag != "img":
                self.links.append(values[name] or "")
        self._in_h2 = tag == "h2"

    def handle_data(self, data: str) -> None:
        if self._in_h2:
            self.headings.append(data)
            self._in_h2 = False


def valid_png(data: bytes) -> bool:
    """The PNG signature, then chunks whose CRCs match, ending with IEND."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return False
    offset = 8
    while offset + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        crc = struct.unpack(">I", data[offset + 8 + length:offset + 12 + length])[0]
        if zlib.crc32(kind + body) != crc:
            return False
        if kind == b"IEND":
            return True
        offset += 12 + length
    return False


def check_page(path: Path) -> PageParser:
    parser = PageParser()
    parser.feed(path.read_text())
    assert parser.images, "a report without figures"
    for src in parser.images:
        assert src.startswith("data:image/png;base64,"), src[:60]
        assert valid_png(base64.b64decode(src.split(",", 1)[1], validate=True))
    assert parser.links == []  # nothing outside the page
    return parser


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open() as handle:
        return list(csv.DictReader(handle))


def test_a_tune_campaign_report_has_convergence_and_predicted_vs_measured(
        tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        cid = tune_campaign(store)
        html_path, csv_path = write_report(store, cid, tmp_path / "out")
    parser = check_page(html_path)
    assert {"Convergence", "Predicted vs measured", "Confirmation of the best candidates",
            "Default vs tuned (re-measured after the search, same session)",
            "Why the tuned config is faster (simulated)"} <= set(parser.headings)
    page = html_path.read_text()
    assert "simulated on the local model: default: " in page
    assert "tuned (mpiio.cb_nodes=6): " in page and "lock revocations" in page
    assert len(parser.images) == 3  # convergence, predicted vs measured, default vs tuned
    # 6 pairs: the widest interval, from the lowest ratio (95 / 35) to the highest (90 / 30)
    assert ("pseudo-median of the 6 pairs' tuned/default ratios), 95% interval 2.71-3.00x "
            "(paired:") in html.unescape(html_path.read_text())
    rows = read_csv(csv_path)
    assert [int(r["index"]) for r in rows] == list(range(1, 7))  # summary runs left out
    assert [float(r["rate_mbs"]) for r in rows] == [40.5 + 12 * i for i in range(6)]
    assert [float(r["predicted_mbs"]) for r in rows] == [50.0 + 10 * i for i in range(6)]


def test_an_experiment_report_draws_each_study(tmp_path: Path) -> None:
    def measurer(platform, workload, configs):
        return [[RunResult("ok", total_s=1.0, rate_mbs=10.0 * workload.ranks + len(str(c)))]
                for c in configs]

    spec = parse_experiment({
        "name": "e", "study": ["default-vs-tuned", "partial-tuning", "sensitivity", "scaling"],
        "platforms": ["hopper", "stampede"],
        "workloads": [{"kernel": "vpic-io", "ranks": 8}, {"kernel": "vpic-io", "ranks": 64}],
        "configs": [{"label": "default", "config": {}},
                    {"label": "tuned", "search": {"space": "table3", "budget": 5}},
                    {"label": "lustre-only", "from": "tuned", "keep": ["lustre"]},
                    {"label": "cb", "sweep": {"key": "mpiio.cb_buffer_size",
                                              "values": ["1MiB", "4MiB"]}}]}, "e.yaml")
    with Store(tmp_path / "s.db") as store:
        experiment = run_experiment(spec, store, measurer=measurer, predictor=measurer,
                                    progress=None)
        html_path, csv_path = write_report(store, experiment.campaign_id, tmp_path)
    parser = check_page(html_path)
    assert {"Default vs tuned, per platform", "Partial tuning", "Weak scaling",
            "Sensitivity to mpiio.cb_buffer_size"} <= set(parser.headings)
    # a figure per platform, partial tuning, sensitivity, scaling for the one workload
    assert len(parser.images) == 2 + 1 + 1 + 1
    rows = read_csv(csv_path)
    assert len(rows) == len(experiment.results)
    assert {r["config"] for r in rows} == {"default", "tuned", "lustre-only", "cb"}


def test_a_validation_report_shows_the_fidelity_figures(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        cid = store.create_campaign("v", kind="validation", spec={"folds": 2})
        for i in range(8):
            config = {"mpiio": {"cb_nodes": i + 1}}
            store.add_evaluation(cid, config=config, workload="vpic-io", ranks=4,
                                 platform="local", source="real", status="ok",
                                 rate_mbs=100.0 + i)
            store.add_evaluation(cid, config=config, workload="vpic-io", ranks=4,
                                 platform="local", source="sim", status="ok",
                                 rate_mbs=90.0 + 2 * i, details={"fold": i % 2})
        html_path, csv_path = write_report(store, cid, tmp_path)
    parser = check_page(html_path)
    assert "Fidelity" in parser.headings
    text = html_path.read_text()
    assert "<td>1</td>" in text  # Spearman of a monotone prediction
    assert len(read_csv(csv_path)) == 8


def test_a_run_campaign_has_no_report(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        cid = store.create_campaign("r", kind="run")
        with pytest.raises(UserError, match="is a run campaign"):
            write_report(store, cid, tmp_path)
