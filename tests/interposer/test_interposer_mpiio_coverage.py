"""Every MPI-IO read and write call an MPI flavour built here declares is hooked by that
flavour's interposer: the list is derived from the flavour's own mpi.h (run through the C
preprocessor, so that MPICH's mpio.h and the MPI-4 large-count `_c` calls are in it when that
mpi.h declares them) and compared with what the built libiotwin_h5.so exports, under both its
MPI_ and PMPI_ names (interposer/src/mpiio/calls.h)."""

from __future__ import annotations

import re
import subprocess

import pytest
from iotwin.core import paths

# the flavours' pkg-config modules, as CMakeLists.txt finds them
PKG_CONFIG = {"mpich": "mpich", "openmpi": "ompi-c"}
BUILD = {"mpich": ".", "openmpi": "openmpi"}
DATA_ACCESS = re.compile(r"\bint\s+(MPI_File_i?(?:read|write)\w*)\s*\(")


def declared(flavour: str) -> list[str]:
    """The MPI_File read and write calls the flavour's mpi.h declares."""
    flags = subprocess.run(["pkg-config", "--cflags", PKG_CONFIG[flavour]], check=True,
                           capture_output=True, text=True).stdout.split()
    header = subprocess.run(["cc", "-E", "-P", *flags, "-"], input="#include <mpi.h>\n",
                            check=True, capture_output=True, text=True).stdout
    return sorted(set(DATA_ACCESS.findall(header)))


def exported(flavour: str) -> set[str]:
    library = paths.interposer_library(BUILD[flavour])
    table = subprocess.run(["nm", "-D", "--defined-only", str(library)], check=True,
                           capture_output=True, text=True).stdout
    return {line.split()[-1] for line in table.splitlines() if line.strip()}


@pytest.mark.parametrize("flavour", PKG_CONFIG)
def test_every_read_and_write_call_of_the_flavours_mpi_h_is_hooked(flavour: str) -> None:
    calls = declared(flavour)
    symbols = exported(flavour)
    print(f"\n{flavour}: {len(calls)} MPI_File read/write calls in mpi.h: {' '.join(calls)}")
    missing = [name for call in calls for name in (call, "P" + call) if name not in symbols]
    assert not missing, f"{flavour}'s interposer does not export {missing}"
    # what the list must hold whatever the flavour: every family, reads and writes
    for family in ("write_at", "iwrite_at_all", "write_all_begin", "write_all_end",
                   "write_shared", "iwrite_shared", "write_ordered_begin", "read_at_all",
                   "iread", "read_ordered_end"):
        assert f"MPI_File_{family}" in calls, family
    large = [call for call in calls if call.endswith("_c")]
    if flavour == "mpich":   # MPICH 4 is MPI-4: a large-count twin of every call with a count
        assert len(large) == 28 and len(calls) == 62, (len(large), len(calls))
    else:   # Open MPI 4.1 is MPI 3.1
        assert not large and len(calls) == 34, calls
