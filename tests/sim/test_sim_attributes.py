"""A captured session's attributes in iosim (WORKLOAD.md `attributes`): made again in its HDF5
layout, after the datasets each follows, so that the metadata HDF5 writes for them ends the
file where the program's did (the real files: tests/kernels/test_kernels_block3d.py); an entry
iosim cannot make is refused with its place in the workload."""

from __future__ import annotations

import re
from typing import Any

import pytest
from iotwin.config.validation import DEFAULT_CONFIG
from iotwin.model.sim import simulate
from support.small_platform import run, small_platform

#: HDF5's smallest global heap collection (H5HG_MINSIZE): where the object references of a
#: dimension scale's DIMENSION_LIST are kept
GLOBAL_HEAP_COLLECTION = 4096


def captured(*attributes: dict[str, Any]) -> dict[str, Any]:
    """Two datasets written by one rank, /data and /x, and ``attributes``."""
    datasets = [{"name": name, "element_bytes": 8, "dims": [64]} for name in ("/data", "/x")]
    session: dict[str, Any] = {"name": "a.h5", "api": "hdf5", "datasets": datasets, "calls": [
        {"write": ["/data"], "transfer": "independent",
         "selections": [{"runs": [{"ranks": [0, 1], "start": [0], "count": [64]}]}]}]}
    if attributes:
        session["attributes"] = list(attributes)
    return {"iotwin_workload": 1, "name": "attributes", "ranks": 1, "files": [session]}


def file_bytes(workload: dict[str, Any]) -> int:
    [result] = run(small_platform(), workload)
    return int(result.breakdown["file_bytes"])


#: larger than the room HDF5 leaves in a dataset's object header
VALUES = {"object": "/data", "after_datasets": 2, "name": "values", "element_class": "integer",
          "element_bytes": 4, "dims": [100]}
SCALE = {"object": "/x", "after_datasets": 2, "set_scale": "x"}
ATTACH = {"object": "/data", "after_datasets": 2, "attach_scale": "/x", "axis": 0}


def test_attributes_add_their_metadata_and_an_attached_scale_a_global_heap() -> None:
    bare = file_bytes(captured())
    with_values = file_bytes(captured(VALUES))
    scaled = file_bytes(captured(VALUES, SCALE))
    attached = file_bytes(captured(VALUES, SCALE, ATTACH))
    assert with_values >= bare + 100 * 4
    assert attached - scaled >= GLOBAL_HEAP_COLLECTION


@pytest.mark.parametrize(("entry", "error"), [
    ({**VALUES, "after_datasets": 3},
     r"files\[0\]\.attributes\[0\]\.after_datasets: 3 is more than the session's 2 datasets"),
    ({"object": "/data", "after_datasets": 2},
     r"files\[0\]\.attributes\[0\]: exactly one of name, set_scale and attach_scale"),
    ({**SCALE, "name": "values"},
     r"files\[0\]\.attributes\[0\]: exactly one of name, set_scale and attach_scale"),
    ({"object": "/data", "after_datasets": 2, "name": "values"},
     r"files\[0\]\.attributes\[0\]: an attribute needs element_class and element_bytes"),
    ({**ATTACH, "axis": None}, r"attach_scale needs the axis"),
    ({**VALUES, "object": "/nowhere"}, r"opening /nowhere failed"),
])
def test_an_attribute_iosim_cannot_make_is_refused_naming_it(entry: dict[str, Any],
                                                            error: str) -> None:
    entry = {key: value for key, value in entry.items() if value is not None}
    [result] = simulate(small_platform(), captured(entry), [DEFAULT_CONFIG])
    assert not result.ok
    assert re.search(error, str(result.error)), result.error
