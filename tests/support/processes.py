"""Starting the processes a test runs."""

from __future__ import annotations

import signal


def with_default_sigint() -> None:
    """Run in a child before exec: a shell that starts the suite in the background leaves
    SIGINT ignored, and Python keeps an ignored SIGINT, so Ctrl-C would never reach it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
