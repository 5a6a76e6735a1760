"""A private real Slurm 22.05 (Debian's slurm-wlm) for the differential tests.

Derived from the project's oracle scripts (shared/slurm-oracle/up.sh): a private munged (own key
and socket), a private MariaDB (own datadir, loopback port), slurmdbd, then per configuration a
slurmctld and one slurmd. Everything lives under ROOT, on the ports given, so several instances
(other helpers', CI's, the shared anchor) run beside each other.

`Accounting` (munged, MariaDB, slurmdbd) starts once and serves every `RealCluster`: each cluster
has its own ClusterName (its jobs are apart in sacct), slurm.conf lines, state and ports, and its
slurmctld and slurmd start in a few seconds. The node is named `dnode1` (NodeHostname=localhost,
slurmd -N dnode1), as is the pyslurm cluster's it is compared with.

By hand (as root):
    python -m tests.differential.real_slurm --root /tmp/slurm-me --port 17600 [--extra 'Key=Value' ...]
starts one and waits; Ctrl-C stops it. `SLURM_CONF=<root>/<cluster>/etc/slurm.conf` then makes
/usr/bin's commands use it.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

NODE = "dnode1"   # its cgroups are slurm_dnode1: apart from other real instances' nodes
SBIN = ("/usr/sbin", "/usr/bin", "/sbin", "/bin")
BINARIES = ("munged", "mungekey", "mariadbd", "mariadb", "mariadb-install-db", "slurmdbd", "slurmctld",
            "slurmd", "sacctmgr", "scontrol", "sinfo", "sbatch", "runuser")
DB_PASS = "diffpass"
ENV_PATH = ":".join(SBIN)


def missing_binaries() -> list[str]:
    return [b for b in BINARIES if shutil.which(b, path=ENV_PATH) is None]


def _wait(what: str, predicate: Callable[[], bool], timeout: float, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-3000:] if log and log.exists() else ""
            raise RuntimeError(f"real Slurm: {what} did not come up in {timeout:.0f} s\n{tail}")
        time.sleep(0.1)


def _ok(*args: str, env: dict[str, str] | None = None) -> bool:
    return subprocess.run(args, env=env, capture_output=True).returncode == 0


def _pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    """Running, and not a zombie (MariaDB is this process's child: reaped here)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _stop_pid(pid_file: Path, timeout: float = 30) -> None:
    """SIGTERM the daemon the pid file names, SIGKILL after `timeout`."""
    pid = _pid(pid_file)
    if pid is None or not _alive(pid):
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)


def _chown_tree(path: Path, user: str) -> None:
    shutil.chown(path, user, user)
    for p in path.rglob("*"):
        shutil.chown(p, user, user)


@dataclass
class Accounting:
    """munged, MariaDB and slurmdbd under `root`; slurmdbd on `dbd_port`, MariaDB on `db_port`."""
    root: Path
    dbd_port: int
    db_port: int

    @property
    def munge_socket(self) -> Path:
        return self.root / "munge" / "munge.socket.2"

    @property
    def env(self) -> dict[str, str]:
        # sacctmgr needs some slurm.conf: the first cluster's does; before one exists, a stub's
        return {"PATH": ENV_PATH, "LANG": "C.UTF-8", "SLURM_CONF": str(self.root / "etc" / "slurm.conf")}

    def start(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o755)
        for sub in ("etc", "log", "run"):
            (self.root / sub).mkdir(exist_ok=True)
        shutil.chown(self.root / "log", "slurm", "slurm")
        shutil.chown(self.root / "run", "slurm", "slurm")
        self._start_munge()
        self._start_mariadb()
        self._start_slurmdbd()

    def _start_munge(self) -> None:
        d = self.root / "munge"
        d.mkdir(exist_ok=True)
        key = d / "munge.key"
        if not key.exists():
            subprocess.run(["mungekey", "--create", f"--keyfile={key}", "--bits=1024"], check=True, env=self.env)
        _chown_tree(d, "munge")
        os.chmod(key, 0o400)
        subprocess.run(["runuser", "-u", "munge", "--", "munged", f"--socket={self.munge_socket}",
                        f"--key-file={key}", f"--pid-file={d / 'munged.pid'}", f"--log-file={d / 'munged.log'}",
                        f"--seed-file={d / 'munged.seed'}", "--num-threads=2"], check=True, env=self.env)
        _wait("munged", lambda: self.munge_socket.exists(), 10, d / "munged.log")

    @property
    def my_cnf(self) -> Path:
        return self.root / "etc" / "my.cnf"

    def _start_mariadb(self) -> None:
        d = self.root / "mysql"
        d.mkdir(exist_ok=True)
        shutil.chown(d, "mysql", "mysql")
        self.my_cnf.write_text(
            f"[client]\nsocket={d}/mysqld.sock\nport={self.db_port}\n"
            f"[mysqld]\nuser=mysql\ndatadir={d}/data\nsocket={d}/mysqld.sock\npid-file={d}/mysqld.pid\n"
            f"log-error={d}/mysqld.log\nport={self.db_port}\nbind-address=127.0.0.1\nskip-name-resolve\n"
            "innodb_buffer_pool_size=32M\ninnodb_log_file_size=16M\ninnodb_lock_wait_timeout=900\n"
            "innodb_flush_log_at_trx_commit=0\nmax_allowed_packet=16M\n")
        if not (d / "data" / "mysql").exists():
            subprocess.run(["mariadb-install-db", f"--defaults-file={self.my_cnf}", "--user=mysql", "--skip-test-db"],
                           check=True, capture_output=True, env=self.env)
        with (self.root / "log" / "mariadbd.stdout").open("ab") as out:
            subprocess.Popen(["mariadbd", f"--defaults-file={self.my_cnf}"], stdin=subprocess.DEVNULL,
                             stdout=out, stderr=out, start_new_session=True, env=self.env)
        ping = ("mariadb-admin", f"--defaults-file={self.my_cnf}", "-uroot", "ping")
        _wait("MariaDB", lambda: _ok(*ping), 60, d / "mysqld.log")
        _wait("MariaDB's pid file", lambda: _pid(d / "mysqld.pid") is not None, 10)
        sql = "".join(f"CREATE USER IF NOT EXISTS 'slurm'@'{h}' IDENTIFIED BY '{DB_PASS}'; "
                      f"GRANT ALL ON slurm_acct_db.* TO 'slurm'@'{h}'; " for h in ("127.0.0.1", "localhost"))
        subprocess.run(["mariadb", f"--defaults-file={self.my_cnf}", "-uroot", "-e", sql], check=True, env=self.env)

    def _start_slurmdbd(self) -> None:
        conf = self.root / "etc" / "slurmdbd.conf"
        conf.write_text(
            f"AuthType=auth/munge\nAuthInfo=socket={self.munge_socket}\nDbdHost=localhost\nDbdPort={self.dbd_port}\n"
            f"SlurmUser=slurm\nPidFile={self.root}/run/slurmdbd.pid\nLogFile={self.root}/log/slurmdbd.log\n"
            "DebugLevel=info\nStorageType=accounting_storage/mysql\nStorageHost=127.0.0.1\n"
            f"StoragePort={self.db_port}\nStorageUser=slurm\nStoragePass={DB_PASS}\nStorageLoc=slurm_acct_db\n")
        shutil.chown(conf, "slurm", "slurm")
        os.chmod(conf, 0o600)
        # A stub slurm.conf for sacctmgr before any cluster's exists (it reads the dbd's address there).
        (self.root / "etc" / "slurm.conf").write_text(
            f"ClusterName=stub\nSlurmctldHost=localhost\nAuthType=auth/munge\nAuthInfo=socket={self.munge_socket}\n"
            "AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=localhost\n"
            f"AccountingStoragePort={self.dbd_port}\nAccountingStoragePass={self.munge_socket}\n"
            f"NodeName={NODE} CPUs=1\n")
        subprocess.run(["slurmdbd"], check=True, env=self.env)   # reads slurmdbd.conf beside SLURM_CONF
        _wait("slurmdbd", lambda: _ok("sacctmgr", "-n", "-P", "show", "cluster", env=self.env), 60,
              self.root / "log" / "slurmdbd.log")

    def sacctmgr(self, *args: str) -> None:
        subprocess.run(["sacctmgr", "-i", *args], check=True, capture_output=True, env=self.env)

    def stop(self) -> None:
        _stop_pid(self.root / "run" / "slurmdbd.pid")
        _stop_pid(self.root / "mysql" / "mysqld.pid", 60)
        _stop_pid(self.root / "munge" / "munged.pid", 10)


@dataclass
class RealCluster:
    """slurmctld and one slurmd (dnode1: `cpus` CPUs, `memory_mb` MB) of cluster `name`, its files
    under <accounting root>/<name>; `extra` are slurm.conf lines added after the defaults."""
    accounting: Accounting
    name: str
    ctld_port: int
    slurmd_port: int
    cpus: int = 2
    memory_mb: int = 1000
    extra: Sequence[str] = ()
    users: Sequence[str] = ("root",)   # each gets an association in account `bench`
    settings: Sequence[str] = field(default=("KillWait=3", "MinJobAge=300"))

    @property
    def root(self) -> Path:
        return self.accounting.root / self.name

    @property
    def slurm_conf(self) -> Path:
        return self.root / "etc" / "slurm.conf"

    @property
    def env(self) -> dict[str, str]:
        return {"PATH": ENV_PATH, "LANG": "C.UTF-8", "SLURM_CONF": str(self.slurm_conf)}

    @property
    def log_dir(self) -> Path:
        return self.root / "log"

    def render_conf(self) -> str:
        r, sock = self.root, self.accounting.munge_socket
        hw = _hardware()
        return "\n".join([
            f"ClusterName={self.name}", "SlurmctldHost=localhost", f"SlurmctldPort={self.ctld_port}",
            f"SlurmdPort={self.slurmd_port}", "AuthType=auth/munge", "CredType=cred/munge",
            f"AuthInfo=socket={sock}", "SlurmUser=slurm", "SlurmdUser=root",
            f"StateSaveLocation={r}/state", f"SlurmdSpoolDir={r}/spool", f"SlurmctldPidFile={r}/run/slurmctld.pid",
            f"SlurmdPidFile={r}/run/slurmd.pid", f"SlurmctldLogFile={r}/log/slurmctld.log",
            f"SlurmdLogFile={r}/log/slurmd.log", "SlurmctldDebug=info", "SlurmdDebug=info",
            "ProctrackType=proctrack/cgroup", "TaskPlugin=task/cgroup,task/affinity",
            "JobAcctGatherType=jobacct_gather/linux", "SchedulerType=sched/backfill",
            "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core_Memory",
            "AccountingStorageType=accounting_storage/slurmdbd", "AccountingStorageHost=localhost",
            f"AccountingStoragePort={self.accounting.dbd_port}", f"AccountingStoragePass={sock}",
            "JobCompType=jobcomp/none", "InactiveLimit=0",
            "Waittime=0", "ReturnToService=2", "MpiDefault=none", "MailProg=/bin/true", "SwitchType=switch/none",
            *self.settings, *(line for line in self.extra if not line.startswith("PartitionName=")),
            f"NodeName={NODE} NodeHostname=localhost NodeAddr=127.0.0.1 CPUs={self.cpus} {hw} "
            f"RealMemory={self.memory_mb} State=UNKNOWN",
            "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
            *(line for line in self.extra if line.startswith("PartitionName=")),   # after the node they name
        ]) + "\n"

    def start(self) -> None:
        r = self.root
        for sub, owner in (("etc", "root"), ("log", "slurm"), ("run", "slurm"), ("state", "slurm"), ("spool", "root")):
            (r / sub).mkdir(parents=True, exist_ok=True)
            shutil.chown(r / sub, owner, owner)
        os.chmod(r, 0o755)
        self.slurm_conf.write_text(self.render_conf())
        (r / "etc" / "cgroup.conf").write_text(
            "CgroupPlugin=cgroup/v1\nCgroupMountpoint=/sys/fs/cgroup\nConstrainCores=yes\n"
            "ConstrainRAMSpace=yes\nConstrainDevices=no\n")
        self.accounting.sacctmgr("add", "cluster", self.name)
        self.accounting.sacctmgr("add", "account", "bench", f"cluster={self.name}",
                                 "Description=bench", "Organization=bench")
        for user in self.users:
            self.accounting.sacctmgr("add", "user", user, "account=bench", "defaultaccount=bench",
                                     f"cluster={self.name}")
        subprocess.run(["slurmctld"], check=True, env=self.env)
        _wait("slurmctld", lambda: b"is UP" in subprocess.run(["scontrol", "ping"], capture_output=True,
                                                               env=self.env).stdout, 60, self.log_dir / "slurmctld.log")
        subprocess.run(["slurmd", "-N", NODE], check=True, env=self.env)
        _wait("slurmd's node", self.node_idle, 60, self.log_dir / "slurmd.log")

    def node_idle(self) -> bool:
        out = subprocess.run(["sinfo", "-h", "-n", NODE, "-o", "%T"], capture_output=True, text=True, env=self.env)
        return out.stdout.strip() == "idle"

    def stop(self) -> None:
        pid = _pid(self.root / "run" / "slurmctld.pid")
        if pid is not None and _alive(pid):
            for user in {"root", *self.users}:
                subprocess.run(["scancel", "--full", "-u", user], capture_output=True, env=self.env, timeout=30)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and subprocess.run(
                    ["squeue", "-h", "-t", "R,CG,S,CF", "-o", "%i"], capture_output=True, env=self.env,
                    timeout=30).stdout.strip():
                time.sleep(0.2)
        _stop_pid(self.root / "run" / "slurmd.pid")
        _stop_pid(self.root / "run" / "slurmctld.pid")
        self._sweep_cgroups()

    def _sweep_cgroups(self) -> None:
        """Kill what is left in this node's cgroups (slurm_<node> in the v1 hierarchies), then remove them."""
        for d in Path("/sys/fs/cgroup").glob(f"*/slurm_{NODE}"):
            for procs in d.rglob("cgroup.procs"):
                for pid in procs.read_text().split():
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except ProcessLookupError:
                        pass
        time.sleep(0.2)
        for d in Path("/sys/fs/cgroup").glob(f"*/slurm_{NODE}"):
            for sub in sorted((p for p in d.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
                try:
                    sub.rmdir()
                except OSError:
                    pass
            try:
                d.rmdir()
            except OSError:
                pass


def _hardware() -> str:
    """The topology words of `slurmd -C` (a node line whose topology differs from the hardware is drained)."""
    line = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, env={"PATH": ENV_PATH}).stdout
    words = dict(w.split("=", 1) for w in line.split() if "=" in w)
    return " ".join(f"{k}={words[k]}" for k in ("Boards", "SocketsPerBoard", "CoresPerSocket", "ThreadsPerCore")
                    if k in words)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True, help="first of four ports: ctld, slurmd, dbd, MariaDB")
    parser.add_argument("--name", default="real")
    parser.add_argument("--extra", action="append", default=[], help="a slurm.conf line (repeatable)")
    parser.add_argument("--user", action="append", default=["root"], help="a user with an association")
    args = parser.parse_args()
    accounting = Accounting(args.root, dbd_port=args.port + 2, db_port=args.port + 3)
    cluster = RealCluster(accounting, args.name, args.port, args.port + 1, extra=args.extra, users=args.user)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        accounting.start()
        cluster.start()
        print(f"up: export SLURM_CONF={cluster.slurm_conf}", flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        cluster.stop()
        accounting.stop()


if __name__ == "__main__":
    main()
