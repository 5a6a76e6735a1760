"""What `scontrol show config` prints: every effective value, as Slurm words it.

Keys pyslurm acts on are shown with the value in force (the default when slurm.conf is
silent, units as Slurm prints them: `300 sec`); plugin keys show what pyslurm actually
does (cgroup tracking is `proctrack/cgroup`), not what a copied slurm.conf may claim;
SchedulerType is the one in force (sched/backfill unless sched/builtin was chosen). Other keys written in slurm.conf are listed as written.
The cgroup.conf section names the cgroup backend each node detected. Pure.
"""
from __future__ import annotations

from collections.abc import Mapping

from pyslurm_common.cgroup_conf import CgroupConfig
from pyslurm_common.config import ENFORCE_WORDS, SlurmConfig

from ..shell.notifier import default_mail_prog

SLURM_COMPAT_VERSION = "22.05.8"
CGROUP_TITLE = "Cgroup Support Configuration"
# How pyslurm works, whatever slurm.conf says.
_BUILT_IN = {
    "SelectType": "select/cons_tres",
    "SelectTypeParameters": "CR_CORE_MEMORY",
    "PriorityType": "priority/basic",
    "PreemptType": "preempt/none",
    "ProctrackType": "proctrack/cgroup",
    "JobAcctGatherType": "jobacct_gather/cgroup",
    "AuthType": "auth/slurm",
    "CredType": "cred/slurm",
}
# Keys shown as written, or with Slurm's default.
_DEFAULTS = {
    "BatchStartTimeout": "10 sec", "CompleteWait": "0 sec", "Epilog": "(null)", "Prolog": "(null)",
    "GresTypes": "(null)", "InactiveLimit": "0 sec", "JobAcctGatherFrequency": "30", "JobRequeue": "1",
    "MaxArraySize": "1001", "MaxJobId": "67043328", "MessageTimeout": "10 sec", "OverTimeLimit": "0 min",
    "PropagateResourceLimits": "ALL", "ReturnToService": "0", "SlurmctldTimeout": "120 sec",
    "TaskPlugin": "task/cgroup", "TCPTimeout": "2 sec", "TreeWidth": "50", "UnkillableStepTimeout": "60 sec",
}
# Slurm prints these written values with their unit.
_UNITS = {"BatchStartTimeout": " sec", "CompleteWait": " sec", "InactiveLimit": " sec", "MessageTimeout": " sec",
          "OverTimeLimit": " min", "SlurmctldTimeout": " sec", "TCPTimeout": " sec",
          "UnkillableStepTimeout": " sec"}
# v2 tracks and limits in cgroup v2; a hybrid host limits through the v1 hierarchies.
_PLUGIN_OF_BACKEND = {"v2": "cgroup/v2", "hybrid": "cgroup/v1", "v1": "cgroup/v1"}


def slurm_conf_entries(cfg: SlurmConfig, slurm_user_uid: int) -> list[tuple[str, str]]:
    written = {key.lower(): (key, value) for key, value in cfg.entries}

    def as_written(key: str, default: str) -> str:
        value = written.get(key.lower(), (key, ""))[1]
        if not value:
            return default
        return value + _UNITS.get(key, "") if value.isdigit() else value

    effective = {key: as_written(key, default) for key, default in _DEFAULTS.items()}
    effective["MailProg"] = as_written("MailProg", default_mail_prog())
    effective.update(_BUILT_IN)
    effective.update({
        "ClusterName": cfg.cluster_name,
        **{f"SlurmctldHost[{index}]": f"{host.name}({host.addr})" for index, host in enumerate(cfg.controllers)},
        "SlurmctldPort": str(cfg.ctld_port), "SlurmdPort": str(cfg.slurmd_port),
        "SlurmUser": f"{cfg.slurm_user}({slurm_user_uid})",
        "StateSaveLocation": str(cfg.state_save_location), "SlurmdSpoolDir": cfg.slurmd_spool_dir,
        "SlurmctldDebug": cfg.slurmctld_debug, "SlurmdDebug": cfg.slurmd_debug,
        "SlurmctldLogFile": cfg.slurmctld_log_file or "(null)", "SlurmdLogFile": cfg.slurmd_log_file or "(null)",
        "SlurmctldPidFile": cfg.slurmctld_pid_file or "(null)", "SlurmdPidFile": cfg.slurmd_pid_file or "(null)",
        "KillWait": f"{cfg.kill_wait} sec", "MinJobAge": f"{cfg.min_job_age} sec",
        "SlurmdTimeout": f"{cfg.slurmd_timeout} sec",
        "DefMemPerNode" if cfg.def_mem_per_cpu_mb is None else "DefMemPerCPU":
            "UNLIMITED" if cfg.def_mem_per_cpu_mb is None else str(cfg.def_mem_per_cpu_mb),
        "AccountingStorageType": cfg.accounting_storage_type,
        "AccountingStorageHost": cfg.accounting_storage_host or "(null)",
        "AccountingStoragePort": str(cfg.accounting_storage_port),
        "AccountingStorageEnforce": ",".join(w for w in ENFORCE_WORDS if w in cfg.accounting_storage_enforce)
                                    or "none",
        "MaxJobCount": str(cfg.max_job_count), "FirstJobId": str(cfg.first_job_id),
        "SLURM_CONF": str(cfg.path), "SLURM_VERSION": SLURM_COMPAT_VERSION,
        "SchedulerType": (cfg.value("SchedulerType") or "sched/backfill").lower(),
    })
    for key, value in written.values():
        effective.setdefault(key, value)
    return sorted(effective.items(), key=lambda kv: kv[0].lower())


def cgroup_entries(cgroup: CgroupConfig, node_backends: Mapping[str, str]) -> list[tuple[str, str]]:
    """cgroup.conf as in force; CgroupPlugin names what the nodes detected when it is autodetect."""
    detected = sorted({_PLUGIN_OF_BACKEND.get(b, b) for b in node_backends.values() if b})
    plugin = cgroup.cgroup_plugin
    if plugin == "autodetect" and detected:
        plugin = f"autodetect ({','.join(detected)})"

    def yes(flag: bool) -> str:
        return "yes" if flag else "no"

    return [
        ("AllowedRAMSpace", f"{cgroup.allowed_ram_space:.1f}%"),
        ("AllowedSwapSpace", f"{cgroup.allowed_swap_space:.1f}%"),
        ("CgroupPlugin", plugin),
        ("ConstrainCores", yes(cgroup.constrain_cores)),
        ("ConstrainDevices", yes(cgroup.constrain_devices)),
        ("ConstrainRAMSpace", yes(cgroup.constrain_ram_space)),
        ("ConstrainSwapSpace", yes(cgroup.constrain_swap_space)),
        ("MaxRAMPercent", f"{cgroup.max_ram_percent:.1f}%"),
        ("MaxSwapPercent", f"{cgroup.max_swap_percent:.1f}%"),
        ("MinRAMSpace", f"{cgroup.min_ram_space_mb} MB"),
    ]

