"""Starting MPI programs: the one place that knows how a launcher is called.

Launchers are data (tuner/iotwin/data/launchers.yaml): a command template per launcher, and
how the variables the ranks need are passed where the launcher does not pass its whole
environment on. Debian can have several MPI flavours installed side by side; a program runs
under the launcher of its own (mpi_flavour), `mpich` by default (``IOTWIN_MPIEXEC`` names
another mpiexec for it).
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.yaml_files import check_keys, read_yaml

DEFAULT_LAUNCHER = "mpich"
ENDED_NAME = "ended"  # made in a run's output folder when its launcher exits


@dataclass(frozen=True)
class Launcher:
    name: str
    command: str  # template: {ranks}, {program}, optionally {env}
    env_flag: str = ""  # template per variable: {name}
    as_root: str = ""  # options it needs to start ranks as root, after its first word
    names: tuple[str, ...] = ()  # the executables that are this launcher
    rank_env: str = ""  # template of the options giving the ranks a variable: {name}, {value}
    mpi: str = ""  # the MPI flavour its ranks run ("": either)

    def rank_options(self, env: Mapping[str, str]) -> list[str]:
        """The options that give the ranks (not the launcher) ``env``; one --export for srun,
        whose later --export would replace the earlier."""
        if not self.rank_env:
            raise UserError(f"launcher {self.name}: launchers.yaml gives no rank_env")
        if self.rank_env.startswith("--export=ALL,"):
            pairs = ",".join(f"{k}={v}" for k, v in env.items())
            return [f"--export=ALL,{pairs}"]
        return [w for name, value in env.items()
                for w in shlex.split(self.rank_env.format(name=name, value=shlex.quote(value)))]

    def argv(self, ranks: int, program: Sequence[str | Path],
             env_names: Collection[str] = ()) -> list[str]:
        """The launch command as arguments; the program's own arguments are kept whole."""
        words: list[str] = []
        for word in shlex.split(self.command):
            if word == "{program}":
                words.extend(map(str, program))
            elif word == "{env}":
                words.extend(w for name in sorted(env_names)
                             for w in shlex.split(self.env_flag.format(name=name)))
            else:
                words.append(word.format(ranks=ranks))
        if self.as_root and os.geteuid() == 0:
            words[1:1] = shlex.split(self.as_root)
        return words

    def line(self, ranks: int, program: Sequence[str | Path],
             env_names: Collection[str] = ()) -> str:
        """The launch command as one shell line (a job script's)."""
        return shlex.join(self.argv(ranks, program, env_names))


@cache
def _launchers() -> dict[str, Launcher]:
    source = paths.data_dir() / "launchers.yaml"
    data = read_yaml(source, "launcher list")
    launchers = {}
    for name, entry in data.items():
        check_keys(entry, ("command", "env_flag", "as_root", "names", "rank_env", "mpi"),
                   str(source), name, required=("command",))
        launchers[name] = Launcher(name, **{**entry, "names": tuple(entry.get("names", ()))})
    return launchers


def known_launcher(name: str) -> Launcher:
    """The launcher of launchers.yaml named ``name``."""
    if name not in _launchers():
        raise UserError(f"launcher {name!r}: expected one of {', '.join(sorted(_launchers()))}")
    return _launchers()[name]


def launcher_of(executable: str) -> Launcher:
    """The launcher (launchers.yaml) that ``executable`` is, by its name or, through symbolic
    links (Debian's mpiexec alternative), its target's; UserError naming the known ones."""
    found = shutil.which(executable) or executable
    candidates = [Path(executable).name, Path(os.path.realpath(found)).name]
    for entry in _launchers().values():
        if any(name in entry.names for name in candidates):
            return entry
    known = ", ".join(n for entry in _launchers().values() for n in entry.names)
    raise UserError(f"{executable}: not a launcher iotwin knows ({known}; "
                    f"launchers.yaml's names); --print NAME gives one's options")


def launcher(spec: str | None = None) -> Launcher:
    """The launcher ``spec`` names (launchers.yaml), or ``spec`` itself as a template with
    {ranks} and {program}; None: MPICH's mpiexec."""
    if spec is None or spec == DEFAULT_LAUNCHER:
        return Launcher(DEFAULT_LAUNCHER, f"{shlex.quote(mpiexec())} -n {{ranks}} {{program}}")
    if spec in _launchers():
        return _launchers()[spec]
    if "{program}" not in spec or "{ranks}" not in spec:
        raise UserError(f"launcher {spec!r}: neither a launcher of launchers.yaml "
                        f"({', '.join(sorted(_launchers()))}) nor a template with {{ranks}} "
                        f"and {{program}}")
    return Launcher("custom", spec)


def mpiexec() -> str:
    for candidate in (os.environ.get("IOTWIN_MPIEXEC"), "mpiexec.mpich", "mpiexec.hydra"):
        if candidate and shutil.which(candidate):
            return candidate
    raise UserError("no MPICH launcher found (mpiexec.mpich): run `make deps`")


def require_program(program: str | Path) -> None:
    """Refuse, before any run, a program that is neither an executable file nor on PATH."""
    name = str(program)
    if os.sep in name:
        if not os.path.isfile(name):
            raise UserError(f"program not found: {name}")
        if not os.access(name, os.X_OK):
            raise UserError(f"program is not executable: {name}")
    elif shutil.which(name) is None:
        raise UserError(f"program not found on PATH: {name}")


@dataclass
class Completed:
    returncode: int | None  # None: killed on timeout
    stdout: str
    stderr: str

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def run_mpi(ranks: int, argv: Sequence[str | Path], *, env: Mapping[str, str] | None = None,
            cwd: str | Path | None = None, timeout: float | None = None,
            using: Launcher | None = None, output: Path | None = None) -> Completed:
    """Run ``argv`` on ``ranks`` ranks; on timeout the whole process group is killed. A
    launcher that cannot be started is a UserError naming its command. ``output``: a folder
    that receives the launcher's stdout and stderr as files (they outlive this process) and,
    when the launcher exits, an empty file ``ended`` (run_folder reads when a run it did not
    see end ended)."""
    command = (using or launcher()).argv(ranks, argv, (env or {}).keys())
    full_env = {**os.environ, **(env or {})}
    if output is None:
        return _launch(command, full_env, cwd, timeout, subprocess.PIPE, subprocess.PIPE)
    if shutil.which(command[0], path=full_env.get("PATH")) is None:
        raise UserError(f"cannot start the launcher: {shlex.join(command)}: not found")
    marked = ["sh", "-c", '"$@"; status=$?; : > "$0"; exit $status',
              str(output / ENDED_NAME), *command]
    with (output / "stdout").open("w") as out, (output / "stderr").open("w") as err:
        done = _launch(marked, full_env, cwd, timeout, out, err, shown=command)
    return Completed(done.returncode, _read(output / "stdout"), _read(output / "stderr"))


def _launch(command: list[str], env: Mapping[str, str], cwd: str | Path | None,
            timeout: float | None, stdout: Any, stderr: Any,
            shown: list[str] | None = None) -> Completed:
    try:
        # errors="replace": what a program prints need not be UTF-8
        proc = subprocess.Popen(command, env=env, cwd=cwd, text=True, errors="replace",
                                stdout=stdout, stderr=stderr, start_new_session=True)
    except OSError as error:
        raise UserError(f"cannot start the launcher: {shlex.join(shown or command)}: "
                        f"{error.strerror}") from None
    with proc:
        try:
            out, err = proc.communicate(timeout=timeout)
            return Completed(proc.returncode, out or "", err or "")
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            return Completed(None, out or "", err or "")


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""
