"""A report page's tables: figures aligned as numbers, settings in a fixed font, prose as
prose."""

from __future__ import annotations

from iotwin.report.page import Page


def test_cells_are_set_by_what_they_hold() -> None:
    page = Page("cells")
    page.table([{"rate": "389.9 MB/s", "bias": "-22% (under-predicted)", "range": "57.3-75.4",
                 "settings": "dataset.chunk_size=4MiB mpiio.romio_ds_write=enable",
                 "table": "vpic-io-4", "count": 3, "share": 0.25}])
    html = page.render()
    for figure in ("389.9 MB/s", "-22% (under-predicted)", "57.3-75.4", "3", "0.25"):
        assert f"<td>{figure}</td>" in html
    assert '<td class="settings">dataset.chunk_size=4MiB mpiio.romio_ds_write=enable</td>' in html
    assert '<td class="text">vpic-io-4</td>' in html


def test_control_characters_are_escaped_on_the_page() -> None:
    page = Page("run of prog\n<b>")
    page.heading("kernel args --out x\u202e.h5")
    page.table([{"workload": "prog a\nb\x1b[2K", "settings": "mpiio.hints.x=1\r"}])
    html = page.render()
    assert "<title>run of prog\\n&lt;b&gt;</title>" in html
    assert "<h2>kernel args --out x\\u202e.h5</h2>" in html
    assert '<td class="text">prog a\\nb\\x1b[2K</td>' in html
    assert '<td class="settings">mpiio.hints.x=1\\r</td>' in html
    assert not any(c in html.replace("\n", "") for c in "\r\x1b\u202e")
