"""The controller's scheduling policy from slurm.conf (priority, scheduler and idle-GPU keys), parsed once
per configuration read. (The single-valued controller keys are pyslurm_common.daemon_settings'.)

`reconfigure.load_checked` parses them with the rest of slurm.conf (a bad value is a ConfigError
at its file:line: fatal at start, a refused reconfigure), and the cluster state keeps what it
parsed: nothing re-reads these keys from raw strings afterwards.
"""
from __future__ import annotations

from dataclasses import dataclass

from pyslurm_common.config import SlurmConfig

from .gpu_idle_settings import IdleGpuPolicy, load_policy
from .priority_settings import PrioritySettings, priority_settings
from .sched_params import SchedulingOptions, scheduling_options


@dataclass(frozen=True, slots=True)
class PolicySettings:
    priority: PrioritySettings        # Priority*, FairShareDampeningFactor
    scheduling: SchedulingOptions     # SchedulerType, SchedulerParameters, DependencyParameters
    gpu_idle: IdleGpuPolicy | None    # GpuIdleParameters (None: the policy is off)


def policy_settings(cfg: SlurmConfig) -> PolicySettings:
    """Raises ConfigError naming the file, line and key of the first value that does not parse."""
    return PolicySettings(priority_settings(cfg), scheduling_options(cfg), load_policy(cfg))
