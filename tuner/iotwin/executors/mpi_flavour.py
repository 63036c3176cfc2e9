"""Which MPI flavour a program runs under: the one of the parallel HDF5 it loads.

Debian installs parallel HDF5 for MPICH and for Open MPI side by side; a program linked against
one must be started by that flavour's launcher, with the interposer built against the same
HDF5 preloaded (the other one would load a second MPI into the process). The flavours are data
(tuner/iotwin/data/mpi-flavours.yaml). A program's flavour is found as the dynamic linker
would resolve it:

    flavour_of(program):
        ELF executable  -> the libhdf5_* that ldd lists for it
        script (#!)     -> the flavour of its interpreter, asked about the script
        Python          -> the HDF5 that `import h5py` maps into a probe process (with
                           H5PY_ALWAYS_USE_MPI, as under a launcher, and MPI left
                           uninitialised); the environment (PYTHONPATH) is the run's
        no HDF5 at all, or a Python whose h5py is serial (the script may not use it)
                        -> MPICH's (the default: a run that writes no HDF5 says so)
        an executable linked to an HDF5 no flavour matches (serial, another build)
                        -> UserError naming it
``IOTWIN_MPI=openmpi`` (or mpich) chooses instead of looking. The kernels are built for every
flavour and run as MPICH's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TextIO

from iotwin.core.errors import UserError
from iotwin.core.mpi_flavours import DEFAULT_MPI, Flavour, flavours, select_flavour
from iotwin.core.records import Target
from iotwin.executors.launch import require_program

_PYTHON_PROBE = ("import h5py\n"
                 "print(''.join(line for line in open('/proc/self/maps') if 'libhdf5' in line))")


def flavour_of(target: Target, env: Mapping[str, str] | None = None) -> Flavour:
    """The flavour ``target`` runs under: a kernel's is MPICH; a program's is the one of
    the parallel HDF5 it loads, in the run's environment."""
    return choose_flavour(target, env)[0]


def choose_flavour(target: Target, env: Mapping[str, str] | None = None
                   ) -> tuple[Flavour, str]:
    """:func:`flavour_of`, and why, in words."""
    environment = {**os.environ, **(env or {})}
    if environment.get("IOTWIN_MPI"):
        return select_flavour(environment["IOTWIN_MPI"]), "chosen by IOTWIN_MPI"
    if target.kernel is not None:
        return select_flavour(DEFAULT_MPI), "a kernel"
    require_program(target.command[0])
    key = tuple(sorted((k, v) for k, v in environment.items()
                       if k in ("PATH", "PYTHONPATH", "LD_LIBRARY_PATH", "PYTHONHOME")))
    return _flavour_of_program(tuple(target.command), key)


@cache
def _flavour_of_program(command: tuple[str, ...], env_key: tuple[tuple[str, str], ...]
                        ) -> tuple[Flavour, str]:
    env = {**os.environ, **dict(env_key)}
    loaded, by_python = hdf5_libraries(command, env)
    matching = [f for f in flavours().values()
                if any(Path(lib).name.startswith(f.hdf5_library) for lib in loaded)]
    what = ", ".join(sorted({Path(lib).name for lib in loaded}))
    if len(matching) == 1:
        return matching[0], f"loads {what}"
    if not loaded:
        return select_flavour(DEFAULT_MPI), "loads no HDF5: the default"
    if by_python and not matching:
        return select_flavour(DEFAULT_MPI), (f"its h5py loads {what}, not a parallel "
                                                 f"HDF5: the default")
    raise UserError(f"{command[0]}: loads {what}, not a parallel HDF5 iotwin is built for "
                    f"({', '.join(f'{f.title}: {f.hdf5_library}' for f in flavours().values())})"
                    f"; set IOTWIN_MPI={' or '.join(flavours())} to run it under one anyway")


def hdf5_libraries(command: Sequence[str], env: Mapping[str, str]) -> tuple[list[str], bool]:
    """The HDF5 libraries the program of ``command`` loads (paths), and whether they are the
    ones its Python interpreter's h5py would load."""
    program = shutil.which(command[0], path=env.get("PATH")) or command[0]
    head = _head(program)
    if head.startswith(b"\x7fELF"):
        if Path(program).name.startswith("python"):
            return _python_hdf5(program, env), True
        return _ldd_hdf5(program, env), False
    if head.startswith(b"#!"):
        interpreter = head[2:].split(b"\n")[0].decode(errors="replace").split()
        if interpreter and Path(interpreter[0]).name == "env":
            interpreter = interpreter[1:]
        if interpreter:
            return hdf5_libraries([*interpreter, program, *command[1:]], env)
    raise UserError(f"{command[0]}: neither an executable (ELF) nor a script: cannot tell "
                    f"which HDF5 it loads")


def _head(program: str) -> bytes:
    try:
        with open(program, "rb") as file:
            return file.read(256)
    except OSError as error:
        raise UserError(f"{program}: {error.strerror}") from None


def _ldd_hdf5(program: str, env: Mapping[str, str]) -> list[str]:
    done = subprocess.run(["ldd", program], capture_output=True, text=True, env=dict(env),
                          timeout=60)
    return re.findall(r"=>\s*(\S*libhdf5[^\s/]*\.so\S*)", done.stdout)


def _python_hdf5(python: str, env: Mapping[str, str]) -> list[str]:
    probe_env = {**env, "H5PY_ALWAYS_USE_MPI": "1", "MPI4PY_RC_INITIALIZE": "false"}
    try:
        done = subprocess.run([python, "-c", _PYTHON_PROBE], capture_output=True, text=True,
                              env=probe_env, timeout=120)
    except subprocess.TimeoutExpired:
        raise UserError(f"{python}: `import h5py` did not finish in 120 s") from None
    if done.returncode != 0:  # no h5py here: the program loads no HDF5 through it
        return []
    return sorted({line.split()[-1] for line in done.stdout.splitlines() if line.strip()})


def say_flavour(target: Target, env: Mapping[str, str] | None = None,
                stream: TextIO = sys.stderr) -> Flavour:
    """Find the MPI flavour ``target`` runs under, its interposer built (else UserError),
    and, for a program, say on ``stream`` which was picked."""
    flavour, why = choose_flavour(target, env)
    interposer = flavour.interposer()
    if target.command:
        print(f"iotwin: {target.command[0]} runs under {flavour.title} ({why}): launcher "
              f"{flavour.launcher}, interposer {interposer}", file=stream, flush=True)
    return flavour
