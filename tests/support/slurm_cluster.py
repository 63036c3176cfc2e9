"""A one-node Slurm cluster for the tests: munged, slurmctld and slurmd from Debian's
packages, started in a temporary directory (configuration, state, spool, logs, munge key and
socket all inside it; no system path is written) and stopped afterwards. Tests ask for it as
the fixture ``cluster``.

The node declares more CPUs than the machine has (``SlurmdParameters=config_overrides``) so
that a 4-rank job fits on this 2-core machine, as the local executor oversubscribes it.
Completed jobs are recorded by ``jobcomp/filetxt`` (no slurmdbd: ``sacct`` has no database
here); ``scontrol show job`` keeps them for ``MinJobAge`` seconds.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

DAEMONS = ("munged", "slurmctld", "slurmd")
START_TIMEOUT_S = 30.0
NODE_CPUS = 16


@dataclass(frozen=True)
class SlurmCluster:
    root: Path
    conf: Path
    node: str
    started_in_s: float

    @property
    def env(self) -> dict[str, str]:
        """What a client (sbatch, squeue, the executor) needs to reach this cluster."""
        return {"SLURM_CONF": str(self.conf)}

    def log(self, daemon: str) -> str:
        path = self.root / "log" / f"{daemon}.log"
        return path.read_text(errors="replace") if path.exists() else ""


def missing_daemons() -> list[str]:
    return [d for d in DAEMONS if shutil.which(d) is None and not Path(f"/usr/sbin/{d}").exists()]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _config(root: Path, node: str) -> str:
    memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20 // 2
    return "\n".join([
        "ClusterName=iotwintest",
        f"SlurmctldHost={node}(127.0.0.1)",
        "SlurmUser=root", "SlurmdUser=root",
        f"SlurmctldPort={_free_port()}", f"SlurmdPort={_free_port()}",
        "AuthType=auth/munge", f"AuthInfo=socket={root}/munge/munge.sock", "CredType=cred/munge",
        f"StateSaveLocation={root}/state", f"SlurmdSpoolDir={root}/spool",
        f"SlurmctldPidFile={root}/slurmctld.pid", f"SlurmdPidFile={root}/slurmd.pid",
        f"SlurmctldLogFile={root}/log/slurmctld.log", f"SlurmdLogFile={root}/log/slurmd.log",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "MpiDefault=none",
        "SchedulerType=sched/backfill", "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core", "ReturnToService=2",
        "AccountingStorageType=accounting_storage/none", "JobAcctGatherType=jobacct_gather/none",
        "JobCompType=jobcomp/filetxt", f"JobCompLoc={root}/log/jobcomp.txt",
        "MinJobAge=600", "KillWait=2", "OverTimeLimit=0", "SlurmdParameters=config_overrides",
        f"NodeName={node} NodeAddr=127.0.0.1 CPUs={NODE_CPUS} RealMemory={memory_mb} State=UNKNOWN",
        f"PartitionName=debug Nodes={node} Default=YES MaxTime=INFINITE State=UP",
        ""])


def _start_munge(root: Path) -> None:
    munge = root / "munge"
    munge.mkdir(mode=0o700)
    key = munge / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o600)
    subprocess.run(["munged", f"--socket={munge}/munge.sock", f"--key-file={key}",
                    f"--log-file={root}/log/munged.log", f"--pid-file={munge}/munged.pid",
                    f"--seed-file={munge}/seed", "--force"], check=True, capture_output=True)


def _wait_idle(cluster: SlurmCluster) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        done = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True,
                              env={**os.environ, **cluster.env}, check=False)
        if done.stdout.strip() == "idle":
            return
        time.sleep(0.2)
    raise RuntimeError("the test Slurm cluster did not come up:\n"
                       + cluster.log("slurmctld")[-2000:] + cluster.log("slurmd")[-2000:])


def _stop(root: Path) -> None:
    for pid_file in (root / "slurmd.pid", root / "slurmctld.pid", root / "munge" / "munged.pid"):
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGTERM)
    time.sleep(0.5)


@contextlib.contextmanager
def slurm_cluster(root: Path) -> Iterator[SlurmCluster]:
    """Start the cluster under ``root`` (an empty directory); stop it on exit."""
    started = time.monotonic()
    for sub in ("state", "spool", "log"):
        (root / sub).mkdir(parents=True)
    node = socket.gethostname().split(".")[0]
    conf = root / "slurm.conf"
    conf.write_text(_config(root, node))
    try:
        _start_munge(root)
        env = {**os.environ, "SLURM_CONF": str(conf)}
        subprocess.run(["slurmctld", "-f", str(conf), "-i"], check=True, env=env)
        subprocess.run(["slurmd", "-f", str(conf)], check=True, env=env)
        cluster = SlurmCluster(root, conf, node, 0.0)
        _wait_idle(cluster)
        yield SlurmCluster(root, conf, node, time.monotonic() - started)
    finally:
        _stop(root)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlurmCluster]:
    """The test cluster, up for the tests of one module (a fixture of every test folder)."""
    assert not missing_daemons(), f"{missing_daemons()} not installed: run `make deps`"
    with slurm_cluster(tmp_path_factory.mktemp("slurm")) as started:
        print(f"test Slurm cluster up in {started.started_in_s:.1f} s")
        yield started


def main() -> None:
    """Start the test cluster in a new temporary directory and keep it up until interrupted,
    for trying the Slurm executor by hand: ``SLURM_CONF=<printed> iotwin tune --executor slurm``.
    """
    import tempfile

    with tempfile.TemporaryDirectory(prefix="iotwin-slurm-") as root, \
            slurm_cluster(Path(root)) as cluster:
        print(f"one-node Slurm cluster up in {cluster.started_in_s:.1f} s; in another shell:\n"
              f"  export SLURM_CONF={cluster.conf}\n(Ctrl-C stops it)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()


if __name__ == "__main__":
    main()
