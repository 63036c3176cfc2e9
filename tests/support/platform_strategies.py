"""Hypothesis strategies of platform models for the simulator's property tests."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from hypothesis import strategies as st
from iotwin.model.platforms import Platform, load_platform
from iotwin.studies.whatif import vary

#: each shipped model read once per process: a Platform is frozen and ``vary`` copies its tree
shipped = functools.cache(load_platform)


@st.composite
def platforms(draw: st.DrawFn, names: Sequence[str]) -> Platform:
    """One of ``names``' shipped models, its OST count halved, kept or doubled."""
    platform = shipped(draw(st.sampled_from(tuple(names))))
    targets = platform.data["filesystem"]["targets"]
    scale = draw(st.sampled_from((0.5, 1.0, 2.0)))
    return vary(platform, {"ost_count": max(1, round(targets * scale))})
