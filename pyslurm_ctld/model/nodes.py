"""Node records in the controller: configuration, what the node agent last
reported, and administrative state (drain/down with a reason).

Allocated CPUs and memory are not stored: they are derived from the jobs that
hold allocations (see `core.usage.node_usage`), so they can never drift.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pyslurm_common.conf_records import NodeConfig


@dataclass(slots=True)
class NodeRecord:
    config: NodeConfig
    registered: bool = False
    responding: bool = False
    last_seen: float = 0.0
    drain: bool = False
    down: bool = False
    reason: str = ""
    reason_uid: int = 0
    reason_time: int = 0
    address: str = ""
    port: int = 0
    boot_time: int = 0
    slurmd_start_time: int = 0
    cpu_load: float = 0.0
    free_memory_mb: int = 0
    arch: str = ""
    os: str = ""
    cgroup_backend: str = ""
    dynamic: bool = False            # joined with `pyslurmd -Z`, not in slurm.conf
    comment: str = ""                # an administrator's note (scontrol update ... comment=)
    extra: str = ""                  # free text for scripts and external schedulers (extra=)
    partitions: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def usable(self) -> bool:
        return self.registered and self.responding and not self.drain and not self.down

    def set_reason(self, reason: str, uid: int, time: int) -> None:
        self.reason, self.reason_uid, self.reason_time = reason, uid, time

    def clear_reason(self) -> None:
        self.reason, self.reason_uid, self.reason_time = "", 0, 0
