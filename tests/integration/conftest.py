"""A real pyslurm cluster for integration tests.

Starts pyslurmdbd, pyslurmctld, two pyslurmd (node1, node2 on their own
ports) and the auth agent as separate processes, the way systemd would run
them, on a temporary configuration; creates the test users alice and bob
with useradd; tears everything down and checks that no cgroup and no job
process is left. Needs root (cgroups, setuid): skipped elsewhere, never in CI.
"""
from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec, NodeSpec, write_cluster
from pyslurm_d.cgroup_limits import v1_own_paths

BIN = Path(sys.executable).parent
USERS = ("alice", "bob")
_CLUSTER_NUMBERS = itertools.count()
KILL_WAIT = 3
SLURMD_TIMEOUT = 4
MIN_JOB_AGE = 30

if os.geteuid() != 0:
    if os.environ.get("CI"):
        raise RuntimeError("integration tests must run as root in CI")
    pytest.skip("integration tests need root (cgroups, setuid, useradd)", allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def open_path_to(directory: Path) -> None:
    """Let SlurmUser reach `directory` (pytest makes its temporary trees private): it and its
    parents up to the first shared sticky directory (/tmp) become 0755, that one is left alone."""
    for path in (directory, *directory.parents):
        if path.stat().st_mode & stat.S_ISVTX or path == Path("/"):
            return
        os.chmod(path, 0o755)


def wait_for(predicate: Callable[[], object], timeout: float = 20.0, interval: float = 0.1) -> object:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {predicate}")
        time.sleep(interval)


@dataclass
class Cluster:
    spec: ClusterSpec
    work: Path
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    node_args: dict[str, tuple[str, ...]] = field(default_factory=dict)   # extra pyslurmd arguments

    @property
    def env(self) -> dict[str, str]:
        return {"PATH": f"{BIN}:/usr/bin:/bin:/usr/sbin:/sbin", "PYSLURM_CONF": str(self.spec.slurm_conf),
                "LANG": "C.UTF-8"}

    def start(self, name: str) -> None:
        args = {"dbd": ["pyslurmdbd"], "ctld": ["pyslurmctld"], "agent": ["pyslurmsackd"]}.get(name)
        if args is None:
            args = ["pyslurmd", "-N", name, *self.node_args.get(name, ())]
        log = (self.spec.log_dir / f"{name}.stderr").open("ab")
        self.procs[name] = subprocess.Popen([str(BIN / args[0]), *args[1:]], env=self.env,
                                            stdout=log, stderr=log, stdin=subprocess.DEVNULL)

    def stop(self, name: str, sig: int = signal.SIGTERM) -> None:
        proc = self.procs.pop(name)
        proc.send_signal(sig)
        proc.wait(timeout=15)

    def run(self, *args: str, user: str | None = None, input: str | None = None,
            cwd: Path | None = None, check: bool = False, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        kw: dict[str, object] = {}
        if user is not None:
            pw = pwd.getpwnam(user)
            kw = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": os.getgrouplist(user, pw.pw_gid)}
        env = dict(self.env, USER=user or "root", HOME=pwd.getpwnam(user or "root").pw_dir)
        result = subprocess.run(list(args), env=env, input=input, capture_output=True, text=True,
                                cwd=str(cwd or self.work_dir(user)), timeout=timeout, **kw)  # type: ignore[call-overload]
        if check and result.returncode != 0:
            raise AssertionError(f"{args} failed ({result.returncode}): {result.stderr}")
        return result  # type: ignore[no-any-return]

    def work_dir(self, user: str | None) -> Path:
        path = self.work / (user or "root")
        if not path.exists():
            path.mkdir()
            if user:
                pw = pwd.getpwnam(user)
                os.chown(path, pw.pw_uid, pw.pw_gid)
        return path

    def sbatch(self, *args: str, user: str | None = None) -> int:
        out = self.run("sbatch", "--parsable", *args, user=user, check=True).stdout
        return int(out.strip())

    def job_field(self, job_id: int, letter: str) -> str:
        out = self.run("squeue", "-h", "-t", "all", "-j", str(job_id), "-o", f"%{letter}").stdout
        return out.strip()

    def wait_state(self, job_id: int, state: str, timeout: float = 20.0) -> None:
        wait_for(lambda: self.job_field(job_id, "T") == state, timeout)

    def nodes_idle(self) -> bool:
        out = self.run("sinfo", "-h", "-N", "-o", "%N %t").stdout.split("\n")
        states = [line.split()[1] for line in out if line.strip()]
        return len(states) == len(self.spec.nodes) and all(s == "idle" for s in states)

    def wait_idle(self) -> None:
        wait_for(self.nodes_idle, 30)


def _ensure_users() -> None:
    for user in USERS:
        try:
            pwd.getpwnam(user)
        except KeyError:
            subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", user], check=True)


def _runnable_by_users() -> None:
    """alice and bob run the commands, the real clients and their jobs' steps with this
    interpreter: one they cannot reach (a pyenv build under /root) would fail every such test
    with 'Permission denied' or, worse, let a real Slurm command of the same name on PATH answer."""
    real = Path(sys.executable).resolve()
    for path in (real, *real.parents):
        if not path.stat().st_mode & stat.S_IXOTH:
            raise RuntimeError(f"the test users cannot run {sys.executable} ({real}): {path} is closed to others; "
                               "make the virtual environment with /usr/bin/python3, as install.sh does")


def _cgroup_bases() -> list[Path]:
    """Where clusters' cgroup trees are: the v2 tree (tracking) and the v1 hierarchies (limits on
    hybrid hosts) as this process is placed in them."""
    own = v1_own_paths(Path("/proc/self/cgroup").read_text())
    bases = [Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup")]
    bases += [Path("/sys/fs/cgroup") / controller / path.lstrip("/") for controller, path in own.items()]
    return [base for base in bases if base.is_dir()]


def _leftover_cgroups(cluster_name: str) -> list[str]:
    """The cluster's cgroup trees, v2 and v1, that still exist."""
    return [str(p) for base in _cgroup_bases() for p in base.glob(f"pyslurm_{cluster_name}_*") if p.is_dir()]


def job_cgroups(cluster: Cluster, job_id: int) -> list[Path]:
    """The job's cgroup directories on every node of the cluster, in the v2 tree and the v1 hierarchies."""
    return [p for base in _cgroup_bases() for p in base.glob(f"pyslurm_{cluster.spec.cluster_name}_*/job_{job_id}")]


def stepd_pid(cluster: Cluster, node: str, job_id: int, step: str = "batch") -> int:
    """The pid of the step's stepd on `node` (waiting for it to start)."""
    name = f"job{job_id:05d}" if step == "batch" else f"job{job_id:05d}.{step}"
    pid_file = cluster.spec.state_dir / "spool" / node / name / "stepd.pid"
    return int(wait_for(lambda: pid_file.exists() and pid_file.read_text().strip(), timeout=20))  # type: ignore[arg-type]


def _user_processes(root: Path, cluster_name: str) -> list[str]:
    """alice's and bob's processes that belong to this cluster: started with its configuration
    (the CLIs' PYSLURM_CONF, jobs' SLURM_CONF name a file under `root`) or still in one of its
    cgroups. Other clusters' processes (tests running beside this one) are theirs to check."""
    uids = {pwd.getpwnam(u).pw_uid for u in USERS}
    marks = (str(root).encode(), f"pyslurm_{cluster_name}_".encode())
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            uid_line = next((line for line in (proc / "status").read_text().splitlines() if line.startswith("Uid:")), "")
            if not uid_line or int(uid_line.split()[1]) not in uids:
                continue
            seen = (proc / "environ").read_bytes() + (proc / "cgroup").read_bytes()
        except OSError:
            continue
        if any(mark in seen for mark in marks):
            found.append(proc.name)
    return found


def two_node_spec(root: Path, name: str) -> ClusterSpec:
    return ClusterSpec(
        cluster_name=name, conf_dir=root / "etc", state_dir=root / "state", run_dir=root / "run",
        nodes=(NodeSpec("node1", 2, 1000, port=free_port()), NodeSpec("node2", 2, 1000, port=free_port())),
        ctld_port=free_port(), dbd_port=free_port(), kill_wait=KILL_WAIT,
        slurmd_timeout=SLURMD_TIMEOUT, min_job_age=MIN_JOB_AGE,
    )


@contextlib.contextmanager
def running_cluster(make_spec: Callable[[Path, str], ClusterSpec],
                    node_args: dict[str, tuple[str, ...]] | None = None,
                    wait_idle: bool = True, start_controller: bool = True) -> Iterator[Cluster]:
    """Start every daemon of a fresh cluster (the controllers are the caller's when not
    `start_controller`); on exit stop them and check nothing is left."""
    _ensure_users()
    _runnable_by_users()
    root = Path(tempfile.mkdtemp(prefix="pyslurm-it-", dir="/tmp"))
    os.chmod(root, 0o755)
    spec = make_spec(root, f"it{os.getpid()}{next(_CLUSTER_NUMBERS)}")
    write_cluster(spec)
    work = root / "work"
    work.mkdir(mode=0o755, exist_ok=True)
    c = Cluster(spec=spec, work=work, node_args=dict(node_args or {}))
    for name in ("dbd", *(["ctld"] if start_controller else []), *(n.name for n in spec.nodes), "agent"):
        c.start(name)
    try:
        if wait_idle:
            c.wait_idle()
        yield c
    finally:
        c.run("scancel", "-u", "alice")
        c.run("scancel", "-u", "bob")
        for name in list(c.procs):
            try:
                c.stop(name)
            except subprocess.TimeoutExpired:
                c.stop(name, signal.SIGKILL)
        leftovers = _leftover_cgroups(spec.cluster_name)
        processes = _user_processes(root, spec.cluster_name)
        shutil.rmtree(root, ignore_errors=True)
        assert not leftovers, f"cgroups left behind: {leftovers}"
        assert not processes, f"job processes left behind: {processes}"


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    with running_cluster(two_node_spec) as c:
        yield c
