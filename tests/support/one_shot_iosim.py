"""iosim run once on a prepared input, as a new process (not the tuner's long-lived server):
what the tests set served answers and batches of configs against."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from iotwin.model import iosim_process


def one_shot_stdout(payload: dict[str, Any], jobs: int) -> str:
    """iosim's output for ``payload`` on ``jobs`` workers; CalledProcessError if it fails."""
    done = subprocess.run(iosim_process.argv(jobs), input=json.dumps(payload),
                          capture_output=True, text=True, check=True)
    return done.stdout
