"""Fixtures of the differential tests: a private real Slurm 22.05 and a pyslurm test cluster
configured alike, as a `harness.Pair`.

Each test module names its configuration (`Config`: slurm.conf lines both sides get) and starts
its pair once (`pair_for` in a module fixture); the real side's accounting (munged, MariaDB,
slurmdbd) starts once per session and serves every module's real cluster. Real Slurm comes from
Debian's packages (slurm-wlm, slurmdbd, munge, mariadb-server; .ci/run installs them): without
them the tests are skipped, except in CI (CI set), where that is an error, as for the
accounting databases. PYSLURM_DIFF_PORT=<n> puts the real side on ports n, n+1, ... (a developer's
own range; by default free ports are taken); PYSLURM_DIFF_KEEP=1 keeps its files and logs.
"""
from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec, NodeSpec
from tests.integration.conftest import Cluster, free_port, running_cluster, wait_for

from .harness import FIRST_JOB_ID, Pair, Side
from .real_slurm import NODE, Accounting, RealCluster, missing_binaries

USERS = ("root", "alice")      # both sides: an association in account `bench`
CPUS = 2
MEMORY_MB = 1000
# slurm.conf lines both sides get; each side's own (daemons, paths, plugins) are its launcher's
COMMON = ("FirstJobId=%d" % FIRST_JOB_ID, "DefMemPerCPU=100", "AccountingStorageEnforce=associations")

_missing = missing_binaries()
if _missing:
    if os.environ.get("CI"):
        raise RuntimeError(f"the differential tests need real Slurm in CI; missing: {' '.join(_missing)}")
    pytest.skip(f"real Slurm is not installed (missing {' '.join(_missing)})", allow_module_level=True)

_ports = itertools.count(int(os.environ["PYSLURM_DIFF_PORT"])) if os.environ.get("PYSLURM_DIFF_PORT") else None
_names = itertools.count(1)


def _port() -> int:
    return next(_ports) if _ports is not None else free_port()


@dataclass(frozen=True)
class Config:
    """A configuration both sides run: slurm.conf lines beyond COMMON."""
    extra: tuple[str, ...] = ()


@pytest.fixture(scope="session")
def real_accounting() -> Iterator[Accounting]:
    root = Path(tempfile.mkdtemp(prefix="pyslurm-diff-", dir="/tmp"))
    accounting = Accounting(root, dbd_port=_port(), db_port=_port())
    try:
        accounting.start()
        yield accounting
    finally:
        accounting.stop()
        if not os.environ.get("PYSLURM_DIFF_KEEP"):     # set: the daemons' logs stay, for a failure's cause
            shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def pair_for(accounting: Accounting, config: Config) -> Iterator[Pair]:
    """Start a real cluster and a pyslurm cluster for `config`; a Pair of their sides."""
    real = RealCluster(accounting, f"diff{next(_names)}", ctld_port=_port(), slurmd_port=_port(), cpus=CPUS,
                       memory_mb=MEMORY_MB, extra=(*COMMON, *config.extra), users=USERS)
    work = real.root / "work"
    try:
        real.start()
        work.mkdir(mode=0o755)
        # (Cluster.wait_idle counts sinfo's lines: a node in several partitions has one in each)
        with running_cluster(lambda root, name: _ours(root, name, config), wait_idle=False) as ours:
            wait_for(lambda: ours.run("sinfo", "-h", "-N", "-p", "debug", "-o", "%t").stdout.split() == ["idle"], 30)
            _associate(ours)
            yield Pair(
                real=Side("real Slurm", {**real.env, "PATH": "/usr/bin:/bin:/usr/sbin:/sbin"}, work, real.name,
                          real.slurm_conf),
                ours=Side("pyslurm", ours.env, ours.work, ours.spec.cluster_name, ours.spec.slurm_conf))
    finally:
        real.stop()


def _ours(root: Path, name: str, config: Config) -> ClusterSpec:
    return ClusterSpec(
        cluster_name=name, conf_dir=root / "etc", state_dir=root / "state", run_dir=root / "run",
        nodes=(NodeSpec(NODE, CPUS, MEMORY_MB, port=free_port()),), ctld_port=free_port(), dbd_port=free_port(),
        kill_wait=3, min_job_age=300, extra=(*COMMON, *config.extra))


def _associate(c: Cluster) -> None:
    """The real side's accounts, on pyslurm: account bench, USERS in it; waits until the
    controller has them (AccountingStorageEnforce=associations refuses jobs before)."""
    add_account = ("sacctmgr", "-i", "add", "account", "bench", "Description=bench", "Organization=bench")
    wait_for(lambda: c.run(*add_account).returncode == 0, 30)    # pyslurmdbd may still be starting
    for user in USERS:
        c.run("sacctmgr", "-i", "add", "user", user, "account=bench", "defaultaccount=bench", check=True)
    from pyslurm_common.rpc import dbd_pb2
    cache = c.spec.state_dir / "ctld" / "associations.state"

    def known() -> bool:
        if not cache.exists():
            return False
        users = {a.key.user for a in dbd_pb2.AssociationState.FromString(cache.read_bytes()).associations}
        return set(USERS) <= users
    wait_for(known, 30)
