"""What `scontrol reconfigure` (or SIGHUP) may change, and the files it re-reads.

The controller re-reads slurm.conf together with gres.conf and cgroup.conf, so a
mistake in any of them is found before anything changes. A new configuration is
refused, and the old one kept, when a file is invalid or when the change would
lose or strand work: a removed node that still runs jobs, a removed partition
that still has jobs, or a key the running daemon cannot change (its port, its
state directory, its identity) — those need a restart, as in Slurm.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from pyslurm_common.cgroup_conf import CgroupConfig, cgroup_conf_path, load_cgroup_config
from pyslurm_common.config import SlurmConfig, load_config
from pyslurm_common.gres import parse_gres_conf

from ..settings.policy_settings import PolicySettings, policy_settings

# (what the admin wrote, SlurmConfig attribute)
RESTART_ONLY = (
    ("ClusterName", "cluster_name"),
    ("SlurmctldHost", "controller_host"),
    ("SlurmctldHost address", "controller_addr"),
    ("backup SlurmctldHost", "backup_controllers"),
    ("SlurmctldPort", "ctld_port"),
    ("StateSaveLocation", "state_save_location"),
    ("SlurmUser", "slurm_user"),
    ("AuthInfo key", "key_file"),
    ("AccountingStorageType", "accounting_storage_type"),
    ("AccountingStorageHost", "accounting_storage_host"),
    ("AccountingStoragePort", "accounting_storage_port"),
)


@dataclass(frozen=True, slots=True)
class ConfigFiles:
    slurm: SlurmConfig
    cgroup: CgroupConfig     # the controller only reports it (scontrol show config)
    settings: PolicySettings   # slurm.conf's priority and scheduling keys, parsed once


def load_checked(path: Path) -> ConfigFiles:
    """slurm.conf and cgroup.conf, with gres.conf (every configured node's lines) and the
    settings only the controller parses (priority, scheduling, GpuIdleParameters) checked too.

    Raises ConfigError naming file and line of the first problem.
    """
    cfg = load_config(path)
    settings = policy_settings(cfg)
    gres_path = path.parent / "gres.conf"
    if gres_path.exists():
        gres = parse_gres_conf(gres_path)
        for node in cfg.nodes:
            gres.node(node.name)
    return ConfigFiles(cfg, load_cgroup_config(cgroup_conf_path(path)), settings)


def refusals(old: SlurmConfig, new: SlurmConfig, busy_nodes: Mapping[str, Collection[int]],
             partition_jobs: Mapping[str, Collection[int]], dynamic_nodes: Collection[str]) -> list[str]:
    """Why `new` cannot replace `old` now; empty when it can.

    `busy_nodes`: node -> jobs holding an allocation there; `partition_jobs`: partition ->
    jobs not finished in it; `dynamic_nodes`: nodes that joined with `pyslurmd -Z`.
    """
    problems = [f"{key} changed ({getattr(old, attr)} -> {getattr(new, attr)}): restart pyslurmctld to change it"
                for key, attr in RESTART_ONLY if getattr(old, attr) != getattr(new, attr)]
    kept_nodes = {n.name for n in new.nodes}
    for node, jobs in sorted(busy_nodes.items()):
        if jobs and node not in kept_nodes and node not in dynamic_nodes:
            problems.append(f"node {node} is not in {new.path} any more but runs job(s) {_ids(jobs)}")
    kept_parts = {p.name for p in new.partitions}
    for part, jobs in sorted(partition_jobs.items()):
        if jobs and part not in kept_parts:
            problems.append(f"partition {part} is not in {new.path} any more but has job(s) {_ids(jobs)}")
    for name in sorted(kept_nodes & set(dynamic_nodes)):
        problems.append(f"node {name} is a dynamic node and now also in {new.path}: "
                        f"delete it first (scontrol delete nodename={name})")
    return problems


def _ids(jobs: Collection[int]) -> str:
    return ",".join(str(j) for j in sorted(jobs))
