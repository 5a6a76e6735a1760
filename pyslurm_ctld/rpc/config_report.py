"""What `scontrol show config` prints: the keys Slurm 22.05 prints, in its order, each with the value
in force, worded as Slurm words it.

Keys pyslurm acts on are shown with the value in force (the default when slurm.conf is silent,
units as Slurm prints them: `300 sec`); priority and preemption keys are those the controller
runs (PriorityType, the priority/multifactor block, PreemptType, PreemptMode as Slurm words it:
`GANG,SUSPEND`). The plugin keys pyslurm has no choice of show what it does (tracking is
`proctrack/cgroup`), not what a copied slurm.conf may claim. Other Slurm keys show the value as
written, normalised as Slurm prints it, or Slurm's default (config_keys); keys Slurm does not know
(pyslurm's own, such as GpuIdleParameters) follow, as written. The cgroup.conf section names the
cgroup backend each node detected. Pure.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pyslurm_common.cgroup_conf import CgroupConfig
from pyslurm_common.config import ENFORCE_WORDS, SlurmConfig
from pyslurm_common.units import UNLIMITED

from ..settings.priority_settings import PrioritySettings
from ..shell.notifier import default_mail_prog
from . import config_keys

SLURM_COMPAT_VERSION = "22.05.8"
CGROUP_TITLE = "Cgroup Support Configuration"
# How pyslurm works, whatever slurm.conf says.
_BUILT_IN = {
    "SelectType": "select/cons_tres",
    "SelectTypeParameters": "CR_CORE_MEMORY",
    "ProctrackType": "proctrack/cgroup",
    "JobAcctGatherType": "jobacct_gather/cgroup",
    "AuthType": "auth/slurm",
    "CredType": "cred/slurm",
    "SwitchType": "switch/none",
}
# v2 tracks and limits in cgroup v2; a hybrid host limits through the v1 hierarchies.
_PLUGIN_OF_BACKEND = {"v2": "cgroup/v2", "hybrid": "cgroup/v1", "v1": "cgroup/v1"}
_KNOWN = {key.lower() for key, _ in config_keys.SLURM_KEYS} | {k.lower() for k in config_keys.MULTIFACTOR_KEYS} \
    | {v.lower() for v in config_keys.WRITTEN_AS.values()} \
    | {"defmempercpu", "defmempernode", "maxmempercpu", "maxmempernode", "slurmctldhost"} \
    | {"accountingstoragepass", "jobcomppass"}   # Slurm's, never printed (passwords)


@dataclass(frozen=True, slots=True)
class Running:
    """What the running controller adds to slurm.conf's values."""

    slurm_user_uid: int
    priority: PrioritySettings
    boot_time: str = ""          # when this controller started, as Slurm's timestamps
    next_job_id: int = 1
    node_count: int = 0
    slurmd_user: str = "root(0)"   # SlurmdUser as `name(uid)`


def _clock(seconds: int) -> str:
    """Slurm's `[D-]HH:MM:SS` of a duration."""
    days, rest = divmod(max(0, seconds), 86400)
    text = f"{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    return f"{days}-{text}" if days else text


def _with_unit(key: str, value: str) -> str:
    unit = config_keys.UNITS.get(key)
    return f"{value} {unit}" if unit and value.lstrip("-").isdigit() else value


def _as_slurm_words(key: str, value: str) -> str:
    """A value written in slurm.conf, worded as Slurm prints it."""
    if key in config_keys.YES_NO:
        return "Yes" if value.strip().lower() in ("yes", "1", "true") else "No"
    if key in config_keys.UPPER:
        return value.upper()
    if key == "EnforcePartLimits":
        return config_keys.ENFORCE_PART_LIMITS.get(value.strip().upper(), value.upper())
    return _with_unit(key, value)


def _priority_block(p: PrioritySettings) -> dict[str, str]:
    return {
        "PriorityDecayHalfLife": _clock(p.decay_half_life_s), "PriorityCalcPeriod": _clock(p.calc_period_s),
        "PriorityFavorSmall": "Yes" if p.favor_small else "No", "PriorityFlags": ",".join(sorted(p.flags)),
        "PriorityMaxAge": _clock(p.max_age_s), "PriorityUsageResetPeriod": p.usage_reset_period,
        "PriorityType": p.priority_type, "PriorityWeightAge": str(p.weight_age),
        "PriorityWeightAssoc": str(p.weight_assoc), "PriorityWeightFairShare": str(p.weight_fairshare),
        "PriorityWeightJobSize": str(p.weight_job_size), "PriorityWeightPartition": str(p.weight_partition),
        "PriorityWeightQOS": str(p.weight_qos), "PriorityWeightTRES": p.weight_tres_text or "(null)",
    }


def _memory_key(cfg: SlurmConfig, kind: str) -> tuple[str, str]:
    """DefMemPer* / MaxMemPer*: the one written (per CPU first), else PerNode UNLIMITED."""
    for unit in ("CPU", "Node"):
        value = cfg.value(f"{kind}MemPer{unit}")
        if value:
            return f"{kind}MemPer{unit}", value
    return f"{kind}MemPerNode", "UNLIMITED"


def _in_force(cfg: SlurmConfig, run: Running) -> dict[str, str]:
    """The keys whose value is what the controller runs with, not the text of slurm.conf."""
    preempt = cfg.preempt
    mode = preempt.mode
    return {
        **_BUILT_IN,
        "ClusterName": cfg.cluster_name, "BOOT_TIME": run.boot_time, "NEXT_JOB_ID": str(run.next_job_id),
        "SlurmctldPort": str(cfg.ctld_port), "SlurmdPort": str(cfg.slurmd_port),
        "SlurmUser": f"{cfg.slurm_user}({run.slurm_user_uid})", "SlurmdUser": run.slurmd_user,
        "StateSaveLocation": str(cfg.state_save_location), "SlurmdSpoolDir": cfg.slurmd_spool_dir,
        "SlurmctldDebug": cfg.slurmctld_debug, "SlurmdDebug": cfg.slurmd_debug,
        "SlurmctldLogFile": cfg.slurmctld_log_file or "(null)", "SlurmdLogFile": cfg.slurmd_log_file or "(null)",
        "SlurmctldPidFile": cfg.slurmctld_pid_file or "(null)", "SlurmdPidFile": cfg.slurmd_pid_file or "(null)",
        "SlurmctldTimeout": f"{cfg.slurmctld_timeout} sec",
        "KillWait": f"{cfg.kill_wait} sec", "MinJobAge": f"{cfg.min_job_age} sec",
        "SlurmdTimeout": f"{cfg.slurmd_timeout} sec",
        "AccountingStorageType": cfg.accounting_storage_type,
        "AccountingStorageHost": cfg.accounting_storage_host or "(null)",
        "AccountingStoragePort": str(cfg.accounting_storage_port),
        "AccountingStorageEnforce": ",".join(w for w in ENFORCE_WORDS if w in cfg.accounting_storage_enforce)
                                    or "none",
        "MaxJobCount": str(cfg.max_job_count), "FirstJobId": str(cfg.first_job_id),
        "MaxArraySize": str(cfg.max_array_size),
        # slurm.conf(5): MaxDBDMsgs defaults to the larger of 10000 and MaxJobCount*2 + node count*4.
        "MaxDBDMsgs": cfg.value("MaxDBDMsgs") or str(max(10000, cfg.max_job_count * 2 + run.node_count * 4)),
        "MaxNodeCount": cfg.value("MaxNodeCount") or str(run.node_count),
        "MailProg": cfg.value("MailProg") or default_mail_prog(),
        "SLURM_CONF": str(cfg.path), "SLURM_VERSION": SLURM_COMPAT_VERSION,
        "SchedulerType": (cfg.value("SchedulerType") or "sched/backfill").lower(),
        "PreemptType": preempt.preempt_type,
        # Slurm words the flags before the mode: GANG,SUSPEND.
        "PreemptMode": ",".join(["GANG"] * mode.gang + ["WITHIN"] * mode.within
                                + ([mode.mode.value] if mode.mode.value != "OFF" or not (mode.gang or mode.within)
                                   else [])),
        "PreemptExemptTime": _clock(0 if preempt.exempt_time == UNLIMITED else preempt.exempt_time),
        "FairShareDampeningFactor": str(run.priority.dampening_factor),
    }


def slurm_conf_entries(cfg: SlurmConfig, run: Running) -> list[tuple[str, str]]:
    in_force = _in_force(cfg, run)
    multifactor = run.priority.multifactor
    out: list[tuple[str, str]] = []
    for key, default in config_keys.SLURM_KEYS:
        if key in config_keys.MULTIFACTOR_ONLY and not multifactor:
            continue
        if key == "PriorityType":
            block = _priority_block(run.priority)
            out += [(k, block[k]) for k in (config_keys.MULTIFACTOR_KEYS if multifactor else ("PriorityType",))]
        elif key in ("DefMemPerNode", "MaxMemPerNode"):
            out.append(_memory_key(cfg, key[:3]))
        elif key == "SlurmctldHost":
            out += [(f"SlurmctldHost[{index}]", f"{host.name}({host.addr})")
                    for index, host in enumerate(cfg.controllers)]
        elif key in in_force:
            out.append((key, in_force[key]))
        else:
            written = cfg.value(config_keys.WRITTEN_AS.get(key, key))
            out.append((key, _as_slurm_words(key, written) if written else _with_unit(key, default)))
    # Keys Slurm does not know (pyslurm's own): as written.
    out += [(key, value) for key, value in cfg.entries if key.lower() not in _KNOWN]
    return out


def cgroup_entries(cgroup: CgroupConfig, node_backends: Mapping[str, str]) -> list[tuple[str, str]]:
    """cgroup.conf as in force, with Slurm's keys; CgroupPlugin names what the nodes detected when it
    is autodetect. The kernel-memory and systemd keys are Slurm's defaults: pyslurm has no such
    settings."""
    detected = sorted({_PLUGIN_OF_BACKEND.get(b, b) for b in node_backends.values() if b})
    plugin = cgroup.cgroup_plugin
    if plugin == "autodetect" and detected:
        plugin = f"autodetect ({','.join(detected)})"

    def yes(flag: bool) -> str:
        return "yes" if flag else "no"

    values = {
        "AllowedKmemSpace": "(null)", "AllowedRAMSpace": f"{cgroup.allowed_ram_space:.1f}%",
        "AllowedSwapSpace": f"{cgroup.allowed_swap_space:.1f}%", "CgroupAutomount": "no",
        "CgroupMountpoint": "/sys/fs/cgroup", "CgroupPlugin": plugin,
        "ConstrainCores": yes(cgroup.constrain_cores), "ConstrainDevices": yes(cgroup.constrain_devices),
        "ConstrainKmemSpace": "no", "ConstrainRAMSpace": yes(cgroup.constrain_ram_space),
        "ConstrainSwapSpace": yes(cgroup.constrain_swap_space), "IgnoreSystemd": "no",
        "IgnoreSystemdOnFailure": "no", "MaxKmemPercent": "100.0%",
        "MaxRAMPercent": f"{cgroup.max_ram_percent:.1f}%", "MaxSwapPercent": f"{cgroup.max_swap_percent:.1f}%",
        "MemorySwappiness": "(null)", "MinKmemSpace": "30 MB", "MinRAMSpace": f"{cgroup.min_ram_space_mb} MB",
    }
    return [(key, values[key]) for key in config_keys.CGROUP_KEYS]
