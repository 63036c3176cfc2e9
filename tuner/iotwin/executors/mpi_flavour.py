"""Which MPI flavour a program runs under: the one of the parallel HDF5 it loads, or of its
MPI library when it loads no HDF5.

Debian installs parallel HDF5 for MPICH and for Open MPI side by side; a program linked against
one must be started by that flavour's launcher, with the interposer built against the same
HDF5 preloaded (the other one would load a second MPI into the process). The flavours are data
(tuner/iotwin/data/mpi-flavours.yaml). A program's flavour is found as the dynamic linker
would resolve it:

    flavour_of(program):
        ELF executable  -> the libhdf5_* that ldd lists for it; none listed, but HDF5's
                           version string in the file: HDF5 linked statically, which the
                           interposer cannot reach -> UserError saying to rebuild with -shlib
        env [-i] [-u N] [NAME=VALUE...] PROGRAM  -> PROGRAM's, in the environment env makes
        sh -c 'WORDS' (bash, dash, ...) -> the programs the words start (each simple command's
                           first word naming an executable file, after assignments, exec,
                           env, ...), merged
        shell script    -> the same for every line of the script (a text file with no #!
                           is a shell script too)
        other script (#!) -> the flavour of its interpreter, asked about the script
        Python          -> the HDF5 that `import h5py` maps into a probe process (with
                           H5PY_ALWAYS_USE_MPI, as under a launcher, and MPI left
                           uninitialised); the environment (PYTHONPATH) is the run's
        no HDF5, but an executable linked to a flavour's MPI library (a PnetCDF or MPI-IO
                           program: Debian's PnetCDF is built on Open MPI) -> that flavour
        no HDF5 at all, or a Python whose h5py is serial (the script may not use it)
                        -> MPICH's (the default: a run that writes no HDF5 says so)
        an executable linked to an HDF5 no flavour matches (serial, another build)
                        -> UserError naming it
A word of a shell command that holds a variable ($X) or names no existing file is not
followed; relative names are found from the directory iotwin was started in.
``IOTWIN_MPI=openmpi`` (or mpich) chooses instead of looking. The kernels are built for every
flavour and run as MPICH's.
"""

from __future__ import annotations

import mmap
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TextIO

from iotwin.core.errors import UserError
from iotwin.core.mpi_flavours import DEFAULT_MPI, Flavour, flavours, select_flavour
from iotwin.core.run_records import Target
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
    found = probe(command, env)
    loaded = found.loaded
    if found.static is not None and not loaded:
        raise UserError(f"{found.static}: links HDF5 statically: rebuild it with -shlib "
                        f"(h5pcc -shlib, h5pfc -shlib), the interposer can't reach a static "
                        f"HDF5")
    by_mpi = set(found.mpi.values())
    if not loaded and len(by_mpi) == 1:
        mpi = ", ".join(sorted({Path(lib).name for lib in found.mpi}))
        return flavours()[by_mpi.pop()], f"loads no HDF5; its MPI is {mpi}"
    matching = [f for f in flavours().values()
                if any(Path(lib).name.startswith(f.hdf5_library) for lib in loaded)]
    what = ", ".join(sorted({Path(lib).name for lib in loaded}))
    through = f" (through {', '.join(found.through)})" if found.through else ""
    if len(matching) == 1:
        return matching[0], f"loads {what}{through}"
    if not loaded:
        return select_flavour(DEFAULT_MPI), "loads no HDF5: the default"
    if found.by_python and not matching:
        return select_flavour(DEFAULT_MPI), (f"its h5py loads {what}, not a parallel "
                                                 f"HDF5: the default")
    built = ", ".join(f"{f.title}: {f.hdf5_library}" for f in flavours().values())
    raise UserError(f"{command[0]}: loads {what}{through}, not a parallel HDF5 iotwin is built "
                    f"for ({built}); set IOTWIN_MPI={' or '.join(flavours())} to run it under "
                    f"one anyway")


@dataclass
class Probe:
    """What a command loads of HDF5, found as the dynamic linker would resolve it."""

    loaded: list[str] = field(default_factory=list)  # the HDF5 libraries (paths)
    mpi: dict[str, str] = field(default_factory=dict)  # an executable's MPI library -> flavour
    by_python: bool = False  # some of them are the ones a Python's h5py would load
    static: str | None = None  # an executable with HDF5 linked in statically
    through: list[str] = field(default_factory=list)  # wrappers followed to the programs

    def add(self, other: Probe) -> None:
        self.loaded += [lib for lib in other.loaded if lib not in self.loaded]
        self.mpi.update(other.mpi)
        self.by_python = self.by_python or other.by_python
        self.static = self.static or other.static
        self.through += [w for w in other.through if w not in self.through]


def probe(command: Sequence[str], env: Mapping[str, str], depth: int = 0) -> Probe:
    """The HDF5 the program of ``command`` loads, following wrappers (env, shells, shell
    scripts) down to the programs they start."""
    if depth > MAX_WRAPPERS:
        return Probe()
    program = shutil.which(command[0], path=env.get("PATH")) or command[0]
    name = Path(program).name
    if name == "env":
        return _through("env", *_env_command(command[1:], env), depth)
    if name in SHELLS and "-c" in command[1:]:
        words = command[command.index("-c") + 1:]
        return _through(f"{name} -c", _shell_commands(words[0] if words else ""), env, depth)
    scripts = [word for word in command[1:] if not word.startswith("-")]
    if name in SHELLS and scripts:  # sh SCRIPT ARGS
        return _through(f"the script {scripts[0]}", _shell_commands(_read_text(scripts[0])),
                        env, depth)
    head = _head(program)
    if head.startswith(b"\x7fELF"):
        if name.startswith("python"):
            return Probe(_python_hdf5(program, env), by_python=True)
        return _elf_probe(program, env)
    interpreter = (head[2:].split(b"\n")[0].decode(errors="replace").split()
                   if head.startswith(b"#!") else [])
    if interpreter and Path(interpreter[0]).name == "env":
        interpreter = interpreter[1:]
    if interpreter and Path(interpreter[0]).name not in SHELLS:
        return probe([*interpreter, program, *command[1:]], env, depth + 1)
    if interpreter or _is_text(head):
        return _through(f"the script {command[0]}", _shell_commands(_read_text(program)), env,
                        depth)
    raise UserError(f"{command[0]}: neither an executable (ELF) nor a script: cannot tell "
                    f"which HDF5 it loads")


MAX_WRAPPERS = 4  # wrappers followed inside each other
SHELLS = ("sh", "bash", "dash", "zsh", "ksh", "mksh")
#: words that start a command without being its program
_PREFIXES = ("exec", "command", "nice", "nohup", "time", "stdbuf", "taskset", "numactl")
_STATIC_MARK = b"HDF5 library version:"  # H5_VERS_INFO, in every build of libhdf5 (H5.c)


def _through(wrapper: str, commands: list[list[str]], env: Mapping[str, str],
             depth: int) -> Probe:
    found = Probe(through=[wrapper])
    for words in commands:
        if _executable(words[0], env):
            found.add(probe(words, env, depth + 1))
    return found


def _env_command(words: Sequence[str], env: Mapping[str, str]
                 ) -> tuple[list[list[str]], dict[str, str]]:
    """``env``'s command and the environment it gives it."""
    environment, rest = dict(env), list(words)
    while rest:
        word = rest[0]
        if word in ("-i", "--ignore-environment"):
            environment = {}
        elif word in ("-u", "--unset") and len(rest) > 1:
            environment.pop(rest[1], None)
            rest = rest[1:]
        elif word == "--":
            rest = rest[1:]
            break
        elif "=" in word and not word.startswith("-"):
            name, _, value = word.partition("=")
            environment[name] = value
        elif not word.startswith("-"):
            break
        rest = rest[1:]
    return ([rest] if rest else []), environment


def _shell_commands(text: str) -> list[list[str]]:
    """The commands a shell text runs: each simple command's words, assignments and prefixes
    such as exec skipped (a word holding a variable is no program to follow)."""
    commands = []
    for line in text.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            tokens = list(lexer)
        except ValueError:  # an unclosed quote: a line continued, not followed
            continue
        simple: list[str] = []
        for token in [*tokens, ";"]:
            if token and set(token) <= set(";&|()"):
                commands += _program_words(simple)
                simple = []
            else:
                simple.append(token)
    return commands


def _program_words(words: list[str]) -> list[list[str]]:
    while words and ("=" in words[0].split("/")[0] or words[0] in _PREFIXES):
        words = words[1:]
    return [words] if words and "$" not in words[0] else []


def _executable(word: str, env: Mapping[str, str]) -> bool:
    """Whether ``word`` names an executable file (on the PATH of ``env``, for a bare name)."""
    path = shutil.which(word, path=env.get("PATH")) if os.sep not in word else word
    return path is not None and os.path.isfile(path) and os.access(path, os.X_OK)


def _elf_probe(program: str, env: Mapping[str, str]) -> Probe:
    libraries = _ldd(program, env)
    loaded = [lib for lib in libraries if Path(lib).name.startswith("libhdf5")]
    mpi = {lib: flavour.name for lib in libraries for flavour in flavours().values()
           if Path(lib).name.startswith(flavour.mpi_library)}
    static = program if not loaded and _holds(program, _STATIC_MARK) else None
    return Probe(loaded, mpi=mpi, static=static)


def _holds(path: str, mark: bytes) -> bool:
    try:
        with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return m.find(mark) >= 0
    except (OSError, ValueError):  # unreadable, or empty
        return False


def _is_text(head: bytes) -> bool:
    return bool(head) and b"\0" not in head


def _read_text(program: str) -> str:
    try:
        return Path(program).read_text(errors="replace")
    except OSError as error:
        raise UserError(f"{program}: {error.strerror}") from None


def _head(program: str) -> bytes:
    try:
        with open(program, "rb") as file:
            return file.read(256)
    except OSError as error:
        raise UserError(f"{program}: {error.strerror}") from None


def _ldd(program: str, env: Mapping[str, str]) -> list[str]:
    """The shared libraries the dynamic linker resolves for ``program`` (paths)."""
    done = subprocess.run(["ldd", program], capture_output=True, text=True, env=dict(env),
                          timeout=60)
    return re.findall(r"=>\s*(/\S+\.so\S*)", done.stdout)


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
