"""The controller's job records: what was asked, what was granted, where it stands.

Records are frozen; `job_manager` is the only place that makes new versions
of them (through `states.transition`). Everything here is plain data that the
journal can write and read back (`to_dict` / `from_dict`).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from enum import StrEnum
from typing import Any, NewType

JobId = NewType("JobId", int)


class JobState(StrEnum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    SUSPENDED = "SUSPENDED"
    COMPLETED = "COMPLETED"
    CANCELLED = "CANCELLED"
    FAILED = "FAILED"
    TIMEOUT = "TIMEOUT"
    NODE_FAIL = "NODE_FAIL"
    PREEMPTED = "PREEMPTED"
    BOOT_FAIL = "BOOT_FAIL"
    DEADLINE = "DEADLINE"
    OUT_OF_MEMORY = "OUT_OF_MEMORY"

    @property
    def is_finished(self) -> bool:
        return self not in (JobState.PENDING, JobState.RUNNING, JobState.SUSPENDED)


class Reason(StrEnum):
    NONE = "None"
    PRIORITY = "Priority"
    RESOURCES = "Resources"
    HELD_USER = "JobHeldUser"
    HELD_ADMIN = "JobHeldAdmin"
    PARTITION_CONFIG = "PartitionConfig"
    PARTITION_DOWN = "PartitionDown"
    PARTITION_INACTIVE = "PartitionInactive"
    PARTITION_TIME_LIMIT = "PartitionTimeLimit"
    PARTITION_NODE_LIMIT = "PartitionNodeLimit"
    NODE_DOWN = "NodeDown"
    NON_ZERO_EXIT = "NonZeroExitCode"
    TIME_LIMIT = "TimeLimit"
    OUT_OF_MEMORY = "OutOfMemory"
    LAUNCH_FAILURE = "JobLaunchFailure"


class Hold(StrEnum):
    NONE = ""
    USER = "user"
    ADMIN = "admin"


@dataclass(frozen=True, slots=True)
class JobRequest:
    """What the submitter asked for, after defaults were resolved at submit."""

    name: str
    partition: str
    account: str
    qos: str
    min_nodes: int
    num_tasks: int
    cpus_per_task: int
    ntasks_given: bool
    cpus_per_task_given: bool
    mem_per_node_mb: int          # 0 when memory is per CPU or unspecified
    mem_per_cpu_mb: int           # 0 when memory is per node or unspecified
    time_limit_min: int           # -1 unlimited
    work_dir: str
    std_out: str                  # patterns as given (defaults filled in)
    std_err: str
    std_in: str
    script: str
    environment: tuple[str, ...]
    argv: tuple[str, ...]
    command: str
    submit_host: str
    umask: int
    export_env: str
    append_output: bool
    nice: int
    requeue: bool

    @property
    def total_cpus(self) -> int:
        return max(1, self.num_tasks) * max(1, self.cpus_per_task)


@dataclass(frozen=True, slots=True)
class Allocation:
    """Resources granted to a running job: CPUs and memory on each node."""

    nodes: tuple[str, ...]
    cpus_per_node: tuple[int, ...]
    memory_mb_per_node: tuple[int, ...]

    @property
    def batch_host(self) -> str:
        return self.nodes[0]

    @property
    def total_cpus(self) -> int:
        return sum(self.cpus_per_node)


@dataclass(frozen=True, slots=True)
class Job:
    job_id: JobId
    request: JobRequest
    uid: int
    gid: int
    user_name: str
    group_name: str
    submit_time: int
    state: JobState = JobState.PENDING
    reason: Reason = Reason.NONE
    hold: Hold = Hold.NONE
    completing: bool = False      # terminal base state, processes still being cleaned up
    eligible_time: int = 0
    start_time: int = 0
    end_time: int = 0
    allocation: Allocation | None = None
    exit_code: int = 0
    exit_signal: int = 0
    cancelled_by: int | None = None
    restarts: int = 0
    priority: int = 0

    @property
    def is_active(self) -> bool:
        """Still holds or waits for resources (squeue's default view)."""
        return not self.state.is_finished or self.completing

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Job":
        values = dict(data)
        req = dict(values["request"])
        req["environment"] = tuple(req["environment"])
        req["argv"] = tuple(req["argv"])
        values["request"] = JobRequest(**req)
        values["job_id"] = JobId(values["job_id"])
        values["state"] = JobState(values["state"])
        values["reason"] = Reason(values["reason"])
        values["hold"] = Hold(values["hold"])
        alloc = values.get("allocation")
        if alloc is not None:
            values["allocation"] = Allocation(
                nodes=tuple(alloc["nodes"]),
                cpus_per_node=tuple(alloc["cpus_per_node"]),
                memory_mb_per_node=tuple(alloc["memory_mb_per_node"]),
            )
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in known})
