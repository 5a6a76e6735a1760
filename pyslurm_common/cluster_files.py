"""Writing a working cluster configuration: slurm.conf, slurmdbd.conf, keys (cluster and JWT).

Used by `pyslurm-quickstart` (one box, detected hardware) and by the test
fixture (several node agents on one host), so both run the same layout.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from . import jwt_tokens
from .auth import generate_key
from .slurm_user import give_to_slurm_user


@dataclass(frozen=True, slots=True)
class NodeSpec:
    name: str
    cpus: int
    real_memory_mb: int
    address: str = "127.0.0.1"
    port: int | None = None
    gres: str = ""
    features: str = ""                # Features= of its NodeName line


@dataclass(frozen=True, slots=True)
class ClusterSpec:
    cluster_name: str
    conf_dir: Path
    state_dir: Path                   # ctld state, spool, accounting database, logs live below
    run_dir: Path                     # sockets and pid files
    nodes: tuple[NodeSpec, ...]
    controller_host: str = "localhost"
    controller_addr: str = "127.0.0.1"
    ctld_port: int = 6817
    slurmd_port: int = 6818
    dbd_port: int = 6819
    kill_wait: int = 30
    slurmd_timeout: int = 300
    min_job_age: int = 300
    cred_expire: int | None = None    # AuthInfo cred_expire= (a requeued job waits this + 1 s); None: default
    extra: tuple[str, ...] = field(default=())
    # A lab box shares its GPUs and memory between users: confine every step by default.
    cgroup_conf: str = "ConstrainCores=yes\nConstrainRAMSpace=yes\nConstrainDevices=yes\n"
    gres_conf: str = ""               # empty: GPUs are autodetected from /dev/nvidia*
    slurm_user: str = "root"          # the controller and accounting daemon drop root to it

    @property
    def slurm_conf(self) -> Path:
        return self.conf_dir / "slurm.conf"

    @property
    def key_file(self) -> Path:
        return self.conf_dir / "slurm.key"

    @property
    def auth_socket(self) -> Path:
        return self.run_dir / "auth.socket"

    @property
    def log_dir(self) -> Path:
        return self.state_dir / "log"


def render_slurm_conf(spec: ClusterSpec) -> str:
    lines = [
        "# Written by pyslurm; slurm.conf syntax (see `man slurm.conf`).",
        f"ClusterName={spec.cluster_name}",
        f"SlurmUser={spec.slurm_user}",
        f"SlurmctldHost={spec.controller_host}({spec.controller_addr})",
        f"SlurmctldPort={spec.ctld_port}",
        f"SlurmdPort={spec.slurmd_port}",
        f"AuthInfo=socket={spec.auth_socket},key={spec.key_file}"
        + (f",cred_expire={spec.cred_expire}" if spec.cred_expire is not None else ""),
        f"StateSaveLocation={spec.state_dir / 'ctld'}",
        "AuthAltTypes=auth/jwt",           # scontrol token and pyslurmrestd (jwt_hs256.key in StateSaveLocation)
        "MetricsType=metrics/openmetrics",  # pyslurmrestd's /metrics endpoints
        f"SlurmdSpoolDir={spec.state_dir / 'spool' / '%n'}",
        f"SlurmctldPidFile={spec.run_dir / 'pyslurmctld.pid'}",
        f"SlurmdPidFile={spec.run_dir / 'pyslurmd-%n.pid'}",
        f"SlurmctldLogFile={spec.log_dir / 'pyslurmctld.log'}",
        f"SlurmdLogFile={spec.log_dir / 'pyslurmd-%n.log'}",
        f"KillWait={spec.kill_wait}",
        f"SlurmdTimeout={spec.slurmd_timeout}",
        f"MinJobAge={spec.min_job_age}",
        "ReturnToService=1",
        "AccountingStorageType=accounting_storage/slurmdbd",
        f"AccountingStorageHost={spec.controller_addr}",
        f"AccountingStoragePort={spec.dbd_port}",
        *spec.extra,
    ]
    for node in spec.nodes:
        line = f"NodeName={node.name} NodeAddr={node.address} CPUs={node.cpus} RealMemory={node.real_memory_mb}"
        if node.port is not None:
            line += f" Port={node.port}"
        if node.gres:
            line += f" Gres={node.gres}"
        if node.features:
            line += f" Features={node.features}"
        lines.append(line)
    names = ",".join(n.name for n in spec.nodes)
    lines.append(f"PartitionName=debug Nodes={names} Default=YES MaxTime=INFINITE State=UP")
    return "\n".join(lines) + "\n"


def render_dbd_conf(spec: ClusterSpec) -> str:
    return "\n".join([
        "# Written by pyslurm; slurmdbd.conf syntax. StorageURL may name MariaDB or PostgreSQL.",
        f"DbdHost={spec.controller_host}",
        f"DbdPort={spec.dbd_port}",
        "StorageType=accounting_storage/sqlite",
        f"StorageLoc={spec.state_dir / 'accounting' / 'slurm_acct_db.sqlite'}",
        f"LogFile={spec.log_dir / 'pyslurmdbd.log'}",
        f"PidFile={spec.run_dir / 'pyslurmdbd.pid'}",
    ]) + "\n"


def write_cluster(spec: ClusterSpec) -> None:
    """Create the directories and files, SlurmUser's owned by it; an existing key is kept."""
    for directory, mode in ((spec.conf_dir, 0o755), (spec.state_dir, 0o755), (spec.run_dir, 0o755),
                            (spec.log_dir, 0o700)):
        directory.mkdir(parents=True, exist_ok=True)
        os.chmod(directory, mode)
    spec.slurm_conf.write_text(render_slurm_conf(spec))
    dbd_conf = spec.conf_dir / "slurmdbd.conf"
    dbd_conf.write_text(render_dbd_conf(spec))
    os.chmod(dbd_conf, 0o600)  # may carry database passwords
    (spec.conf_dir / "cgroup.conf").write_text(spec.cgroup_conf)
    if spec.gres_conf:
        (spec.conf_dir / "gres.conf").write_text(spec.gres_conf)
    if not spec.key_file.exists():
        generate_key(spec.key_file)
    jwt_tokens.generate_key(spec.state_dir / "ctld" / jwt_tokens.KEY_NAME)
    give_to_slurm_user(spec.slurm_conf)
