"""What making a workload from a Darshan log (``iotwin workload from-darshan``) costs, before
it starts, in proportion to the log's bytes. (Reading and writing documents:
iotwin.core.document_cost; a captured program's run: iotwin.executors.program_cost.)"""

from __future__ import annotations

from pathlib import Path

from iotwin.core.cost import Cost, Driver, Limits, constant
from iotwin.core.document_cost import bytes_cost, file_size


def darshan_log_cost(path: Path, limits: Limits) -> Cost:
    """Reading the Darshan log at ``path`` and making its workload, refused beyond ``limits``
    naming the log."""
    size = file_size(path)
    return bytes_cost(size, "darshan_logs", Driver(str(path), f"{size} bytes"), limits,
                      fixed_seconds=constant("darshan_logs", "seconds_per_log"))
