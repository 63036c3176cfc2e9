"""A CDF-5 file's header and variables where PnetCDF's own ncoffsets (Debian's pnetcdf-bin)
finds them."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Cdf5Offsets:
    header_bytes: int
    header_extent: int
    variables: dict[str, tuple[int, int]]  # name: (start, end) in the file


def cdf5_offsets(path: Path) -> Cdf5Offsets:
    """A CDF-5 file's header and variables, as PnetCDF's ncoffsets reads them."""
    done = subprocess.run(["ncoffsets", str(path)], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    header = []
    for key in ("size", "extent"):
        found = re.search(rf"{key}\s*=\s*(\d+) bytes", text)
        assert found, f"ncoffsets printed no header {key}: {text}"
        header.append(int(found[1]))
    starts = re.findall(r"\s(\w+)\([^)]*\):\s*start file offset =\s*(\d+)\s*"
                        r"end\s+file offset =\s*(\d+)", text)
    return Cdf5Offsets(*header, {name: (int(a), int(b)) for name, a, b in starts})
