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
