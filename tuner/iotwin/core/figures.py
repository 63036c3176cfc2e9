"""matplotlib for the figures iotwin writes (PNG files and bytes), imported on first use: it
takes longer to import than the rest of iotwin, and most commands draw nothing."""

from __future__ import annotations

from types import ModuleType


def pyplot() -> ModuleType:
    """matplotlib's pyplot, drawing to files only (the Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot

    return matplotlib.pyplot
