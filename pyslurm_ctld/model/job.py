"""The controller's job records: what was asked, what was granted, where it stands.

Records are frozen; `core.apply` is the only place that makes new versions
of them (through `states.transition`). Everything here is plain data that the
journal can write and read back (`to_dict` / `from_dict`).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from enum import StrEnum
from typing import Any, NewType

from pyslurm_common.gres import GPU, GresSpec, tres_per_node
from pyslurm_common.job_states import JobState
from pyslurm_common.preempt_conf import PreemptMode

from .dependency import Dependency

JobId = NewType("JobId", int)


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
    DEADLINE = "DeadLine"                    # --deadline could not be met
    OUT_OF_MEMORY = "OutOfMemory"
    GPU_IDLE = "GpuIdleLimit"                # ended by the idle-GPU policy (gpu_idle.py)
    LAUNCH_FAILURE = "JobLaunchFailure"
    ARRAY_TASK_LIMIT = "JobArrayTaskLimit"
    DEPENDENCY = "Dependency"
    DEPENDENCY_NEVER_SATISFIED = "DependencyNeverSatisfied"
    BEGIN_TIME = "BeginTime"
    REQ_NODE_NOT_AVAIL = "ReqNodeNotAvail"   # a -w node is down or drained (squeue names them)
    # Every node of its partitions is down or drained (Slurm 22.05's words for it, squeue %r).
    NODES_UNAVAILABLE = "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority partitions"
    INVALID_ACCOUNT = "InvalidAccount"
    INVALID_QOS = "InvalidQOS"
    LICENSES = "Licenses"                    # waits for -L licenses to be free (license_gate.py)
    RESERVATION = "Reservation"              # its --reservation has not started yet (reservation_fence.py)
    RESERVATION_DELETED = "ReservationDeleted"   # its --reservation is gone
    RESERVED_MAINT = "ReqNodeNotAvail, Reserved for maintenance"   # kept off a MAINT reservation's nodes
    RESERVED_OTHER = "ReqNodeNotAvail, May be reserved for other job"   # kept off another reservation's
    # QOS and association limits (limits.py); Slurm spells them irregularly (Cpu, Mem, Memory, GRES).
    QOS_GRP_CPU = "QOSGrpCpuLimit"
    QOS_GRP_MEM = "QOSGrpMemLimit"
    QOS_GRP_NODE = "QOSGrpNodeLimit"
    QOS_GRP_GRES = "QOSGrpGRES"
    QOS_GRP_JOBS = "QOSGrpJobsLimit"
    QOS_GRP_SUBMIT = "QOSGrpSubmitJobsLimit"
    QOS_MAX_CPU_PER_JOB = "QOSMaxCpuPerJobLimit"
    QOS_MAX_MEM_PER_JOB = "QOSMaxMemoryPerJob"
    QOS_MAX_NODE_PER_JOB = "QOSMaxNodePerJobLimit"
    QOS_MAX_GRES_PER_JOB = "QOSMaxGRESPerJob"
    QOS_MAX_WALL = "QOSMaxWallDurationPerJobLimit"
    QOS_MAX_CPU_PER_USER = "QOSMaxCpuPerUserLimit"
    QOS_MAX_MEM_PER_USER = "QOSMaxMemoryPerUser"
    QOS_MAX_NODE_PER_USER = "QOSMaxNodePerUserLimit"
    QOS_MAX_GRES_PER_USER = "QOSMaxGRESPerUser"
    QOS_MAX_JOBS_PER_USER = "QOSMaxJobsPerUserLimit"
    QOS_MAX_SUBMIT_PER_USER = "QOSMaxSubmitJobPerUserLimit"
    QOS_MIN_CPU = "QOSMinCpuNotSatisfied"
    QOS_MIN_MEM = "QOSMinMemory"
    QOS_MIN_GRES = "QOSMinGRES"
    MAX_CPU_PER_ACCOUNT = "MaxCpuPerAccount"
    MAX_MEM_PER_ACCOUNT = "MaxMemoryPerAccount"
    MAX_NODE_PER_ACCOUNT = "MaxNodePerAccount"
    MAX_GRES_PER_ACCOUNT = "MaxGRESPerAccount"
    MAX_JOBS_PER_ACCOUNT = "MaxJobsPerAccount"
    MAX_SUBMIT_PER_ACCOUNT = "MaxSubmitJobsPerAccount"
    ASSOC_GRP_CPU = "AssocGrpCpuLimit"
    ASSOC_GRP_MEM = "AssocGrpMemLimit"
    ASSOC_GRP_NODE = "AssocGrpNodeLimit"
    ASSOC_GRP_GRES = "AssocGrpGRES"
    ASSOC_GRP_JOBS = "AssocGrpJobsLimit"
    ASSOC_GRP_SUBMIT = "AssocGrpSubmitJobsLimit"
    ASSOC_MAX_CPU_PER_JOB = "AssocMaxCpuPerJobLimit"
    ASSOC_MAX_MEM_PER_JOB = "AssocMaxMemPerJob"
    ASSOC_MAX_NODE_PER_JOB = "AssocMaxNodePerJobLimit"
    ASSOC_MAX_GRES_PER_JOB = "AssocMaxGRESPerJob"
    ASSOC_MAX_WALL = "AssocMaxWallDurationPerJobLimit"
    ASSOC_MAX_JOBS = "AssocMaxJobsLimit"
    ASSOC_MAX_SUBMIT = "AssocMaxSubmitJobLimit"


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
    # GPUs. The raw request (convert.request_from_desc) holds the options as given; submission
    # normalises them into `gpus_per_node`, which is all the scheduler reads.
    gpus_per_node: int = 0        # GPUs on each node (--gres=gpu:N, --gpus-per-node, or derived)
    gpu_type: str = ""            # "" any type
    gpus: int = 0                 # --gpus as given (whole job); 0 not given
    gpus_per_task: int = 0        # --gpus-per-task as given; 0 not given
    gpus_per_node_given: bool = False   # --gpus-per-node was used (SLURM_GPUS_PER_NODE echoes it)
    rlimits: tuple[str, ...] = ()       # submit-host resource limits, "NAME=soft:hard"
    signal_number: int = 0              # --signal: send this signal_seconds before the time limit
    signal_seconds: int = 0
    signal_batch_only: bool = False
    launcher: str = ""                  # "" batch script; "srun" / "salloc": no batch step
    required_nodes: tuple[str, ...] = ()   # -w: every one of them is in the allocation
    excluded_nodes: tuple[str, ...] = ()   # -x: none of them is
    partitions: tuple[str, ...] = ()    # -p a,b: every partition the job may run in ("partition" is the
                                        # first while it pends, then the one it runs in); () for one
    begin_time: int = 0                 # --begin: not eligible before (epoch seconds), 0 none
    kill_on_invalid_dep: bool = False   # cancel the job when its dependency can never be satisfied
    features: str = ""                  # --constraint as given (features.py): each node must satisfy it
    batch_features: str = ""            # sbatch --batch: what the batch host must have, of `features`
    exclusive: bool = False             # --exclusive: whole nodes (every CPU and GPU), memory as asked
    submit_line: str = ""               # the sbatch/srun/salloc command line (sacct SubmitLine)
    comment: str = ""                   # --comment
    mail_type: str = ""                 # --mail-type, normalised (pyslurm_common/mail_types.py); "" none
    mail_user: str = ""                 # --mail-user; "" = the job's user
    mem_per_gpu_mb: int = 0             # --mem-per-gpu: memory per node is this times its GPUs
    cpus_per_gpu: int = 0               # --cpus-per-gpu: CPUs per node at least this times its GPUs
    tmp_disk_mb: int = 0                # --tmp: each node's TmpDisk must hold it
    overcommit: bool = False            # -O: CPUs as if one task per node
    ntasks_per_node: int = 0            # --ntasks-per-node as given (SLURM_NTASKS_PER_NODE)
    ntasks_per_gpu: int = 0             # --ntasks-per-gpu as given (SLURM_NTASKS_PER_GPU)
    min_cpus_per_node: int = 0          # --mincpus: each node gives the job at least this many CPUs
    ntasks_per_core: int = 0            # layout requests, shown by scontrol and passed to steps
    ntasks_per_socket: int = 0
    threads_per_core: int = 0
    distribution: str = ""              # -m as given ("" = block)
    gpu_bind: str = ""                  # --gpu-bind as given
    licenses: str = ""                  # -L as given (checked against Licenses= at submit)
    reservation: str = ""               # --reservation: runs only inside this reservation
    time_min_min: int = 0               # --time-min: backfill may shorten the limit down to it (0 none)
    deadline: int = 0                   # --deadline, epoch seconds: ended as DEADLINE if it cannot finish
    priority: int = 0                   # --priority as asked (0 none); fixed only for an operator's job
    contiguous: bool = False            # --contiguous: consecutive nodes of the partition
    sockets_per_node: int = 0           # --sockets-per-node / -B: nodes with at least these
    cores_per_socket: int = 0
    cpu_freq: str = ""                  # --cpu-freq as given (no governor to set: carried, as Slurm)
    acctg_freq: str = ""                # --acctg-freq as given
    no_kill: bool = False               # -k: a failed node does not end the job
    prefer: str = ""                    # --prefer: features preferred, not required
    over_subscribe: str = ""            # OverSubscribe= asked (NO, USER, MCS, YES; "" none)
    gpu_freq: str = ""                  # --gpu-freq as given
    spread_job: bool = False            # --spread-job without -N: admission spreads it (core/admission.py)
    # -N given (min_nodes is then the node count); without it Slurm's node range is 1 to unbounded
    # and -n decides: the fewest nodes that hold the tasks (node_fit.spread_node_count).
    node_count_given: bool = True
    alloc_resp_host: str = ""           # srun/salloc's allocation response port, where its request came
    alloc_resp_port: int = 0            # from: reached when the allocation is granted (0: none)

    @property
    def interactive(self) -> bool:
        """An allocation without a batch step (srun or salloc made it)."""
        return bool(self.launcher)

    @property
    def total_cpus(self) -> int:
        return max(1, self.num_tasks) * max(1, self.cpus_per_task)

    @property
    def gres_request(self) -> str:
        """TRES_PER_NODE as squeue %b / `TresPerNode=` show it: `gres:gpu:2`, "" when none.

        Derived, not stored, so it cannot disagree with the counts. As in Slurm, --gpus and
        --gpus-per-task are per-job / per-task requests and show no per-node TRES.
        """
        if not self.gpus_per_node or self.gpus or self.gpus_per_task:
            return ""
        return tres_per_node((GresSpec(GPU, self.gpu_type, self.gpus_per_node),))


@dataclass(frozen=True, slots=True)
class GpuUsage:
    """One GPU of a step on one node, as its node agent sampled it through NVML."""

    node: str
    index: int                   # on that node (SLURM_JOB_GPUS)
    samples: int
    util_ave: int                # utilisation %, mean and peak over the samples
    util_max: int
    mem_ave_bytes: int
    mem_max_bytes: int
    power_max_mw: int = 0
    lost: bool = False           # NVML lost the GPU while the step ran
    foreign_pids: tuple[int, ...] = ()   # processes on it outside the job


@dataclass(frozen=True, slots=True)
class StepUsage:
    """What a step's processes used, from its cgroup counters (and its GPUs, from NVML)."""

    max_rss_kb: int
    user_cpu_usec: int
    system_cpu_usec: int
    max_rss_node: str = ""       # where the peak was seen (sacct MaxRSSNode); "" before it was tracked
    gpus: tuple[GpuUsage, ...] = ()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "StepUsage":
        gpus = tuple(GpuUsage(**{**g, "foreign_pids": tuple(g.get("foreign_pids", ()))}) for g in data.get("gpus", ()))
        return cls(**{**data, "gpus": gpus})


@dataclass(frozen=True, slots=True)
class Allocation:
    """Resources granted to a running job: CPUs, memory and GPUs on each node.

    `cpu_ids` and `gpu_ids` have one ascending tuple per node. `cpu_ids` is `()` only in records
    journaled before CPU ids were tracked; `gpu_ids` is `()` when the job has no GPUs (kept in
    that one form, so equal allocations compare equal).
    """

    nodes: tuple[str, ...]
    cpus_per_node: tuple[int, ...]
    memory_mb_per_node: tuple[int, ...]
    cpu_ids: tuple[tuple[int, ...], ...] = ()
    gpu_ids: tuple[tuple[int, ...], ...] = ()
    batch_node: str = ""                # sbatch --batch: the first node with its features; "" the first node

    def __post_init__(self) -> None:
        count = len(self.nodes)
        if len(self.cpus_per_node) != count or len(self.memory_mb_per_node) != count:
            raise ValueError(f"allocation of {count} nodes needs one CPU and memory figure per node")
        if self.cpu_ids and [len(ids) for ids in self.cpu_ids] != list(self.cpus_per_node):
            raise ValueError(f"cpu_ids {self.cpu_ids} do not match cpus_per_node {self.cpus_per_node}")
        if self.gpu_ids and len(self.gpu_ids) != count:
            raise ValueError(f"gpu_ids {self.gpu_ids} need one entry per node")
        if self.gpu_ids and not any(self.gpu_ids):
            object.__setattr__(self, "gpu_ids", ())

    @property
    def batch_host(self) -> str:
        return self.batch_node or self.nodes[0]

    @property
    def total_cpus(self) -> int:
        return sum(self.cpus_per_node)

    @property
    def total_gpus(self) -> int:
        return sum(len(ids) for ids in self.gpu_ids)

    def without(self, node: str) -> "Allocation":
        """The allocation less one node (-k/--no-kill: a job goes on without a failed node)."""
        keep = [i for i, name in enumerate(self.nodes) if name != node]
        return Allocation(tuple(self.nodes[i] for i in keep), tuple(self.cpus_per_node[i] for i in keep),
                          tuple(self.memory_mb_per_node[i] for i in keep),
                          tuple(self.cpu_ids[i] for i in keep) if self.cpu_ids else (),
                          tuple(self.gpu_ids[i] for i in keep) if self.gpu_ids else (),
                          self.batch_node if self.batch_node != node else "")

    def cpus_on(self, index: int) -> tuple[int, ...]:
        """CPU ids on the `index`-th node (empty for a record without ids)."""
        return self.cpu_ids[index] if self.cpu_ids else ()

    def gpus_on(self, index: int) -> tuple[int, ...]:
        """Global GPU indices on the `index`-th node."""
        return self.gpu_ids[index] if self.gpu_ids else ()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Allocation":
        return cls(
            nodes=tuple(data["nodes"]), cpus_per_node=tuple(data["cpus_per_node"]),
            memory_mb_per_node=tuple(data["memory_mb_per_node"]),
            cpu_ids=tuple(tuple(ids) for ids in data.get("cpu_ids", ())),
            gpu_ids=tuple(tuple(ids) for ids in data.get("gpu_ids", ())),
            batch_node=data.get("batch_node", ""),
        )


@dataclass(frozen=True, slots=True)
class Step:
    """A job step (srun) inside a running job: where its tasks run and how it ended.

    `cpu_ids` holds, per node, the job CPUs the step keeps from other steps (empty for an
    --overlap step). `waiting_on` are the nodes whose part has not reported its end yet;
    the step is over when none is left.
    """

    step_id: int
    name: str
    nodes: tuple[str, ...]
    tasks_per_node: tuple[int, ...]
    cpu_ids: tuple[tuple[int, ...], ...]
    start_time: int
    argv: tuple[str, ...] = ()
    distribution: str = ""               # -m as given: its ranks per node (task_distribution.node_ranks)
    state: JobState = JobState.RUNNING
    waiting_on: tuple[str, ...] = ()
    end_state: JobState | None = None    # how it ends, once a node failed, was cancelled or OOM
    end_time: int = 0
    exit_code: int = 0
    exit_signal: int = 0
    usage: StepUsage | None = None
    resv_ports: tuple[int, ...] = ()     # srun --resv-ports / MpiParams=ports= (core/reserved_ports.py)

    @property
    def num_tasks(self) -> int:
        return sum(self.tasks_per_node)

    @property
    def num_cpus(self) -> int:
        return sum(len(ids) for ids in self.cpu_ids) or self.num_tasks

    @property
    def running(self) -> bool:
        return self.state is JobState.RUNNING

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Step":
        values = dict(data)
        values["nodes"] = tuple(values["nodes"])
        values["tasks_per_node"] = tuple(values["tasks_per_node"])
        values["cpu_ids"] = tuple(tuple(ids) for ids in values["cpu_ids"])
        values["argv"] = tuple(values.get("argv", ()))
        values["waiting_on"] = tuple(values.get("waiting_on", ()))
        values["resv_ports"] = tuple(values.get("resv_ports", ()))
        values["state"] = JobState(values["state"])
        if values.get("end_state") is not None:
            values["end_state"] = JobState(values["end_state"])
        if values.get("usage") is not None:
            values["usage"] = StepUsage.from_dict(values["usage"])
        return cls(**values)


@dataclass(frozen=True, slots=True)
class ArrayInfo:
    """A record's place in a job array (spec scheduling-policy.md §7).

    The master record (its job id is the array id) holds the indices still pending; a task
    is split off into its own record, with a new job id, when it starts, and the master
    itself starts last, as the highest index. `task_id` is None while a record stands for
    the pending remainder (a master whose every pending index was cancelled is CANCELLED with
    none left). The count/min/max/step describe the whole array as submitted
    (SLURM_ARRAY_TASK_COUNT/_MIN/_MAX/_STEP).
    """

    array_job_id: JobId
    task_id: int | None
    pending: tuple[int, ...]      # ascending; only the master holds any
    throttle: int                 # most tasks running at once, 0 unlimited
    task_count: int
    task_min: int
    task_max: int
    task_step: int

    @property
    def is_remainder(self) -> bool:
        return self.task_id is None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ArrayInfo":
        values = dict(data)
        values["array_job_id"] = JobId(values["array_job_id"])
        values["pending"] = tuple(values["pending"])
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Preemption:
    """A job chosen as a victim: how it is preempted, for whom, and from when (the end of its
    grace time; its SIGTERM warning came at `noticed`)."""

    mode: PreemptMode
    preemptor: JobId
    noticed: int
    deadline: int

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Preemption":
        return cls(PreemptMode(data["mode"]), JobId(data["preemptor"]), data["noticed"], data["deadline"])


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
    usage: StepUsage | None = None   # of the batch step, once it ended
    steps: tuple[Step, ...] = ()     # srun steps, in creation order
    next_step_id: int = 0
    batch_ended: bool = False        # the batch step reported its end (interactive jobs have none)
    array: ArrayInfo | None = None
    dependency: Dependency | None = None
    preemption: Preemption | None = None   # chosen as a victim (in grace, being requeued, or suspended)
    requeue_on_end: bool = False           # ended NODE_FAIL by a node failure: pends again once its processes are gone
    suspend_time: int = 0                  # when it was last suspended or resumed (0: never), as Slurm's
    suspended_secs: int = 0                # time spent in suspensions that ended (not counted to its limit)
    admin_priority: int = 0          # set by `scontrol update priority=` (fixed); 0: computed

    @property
    def running_steps(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.running)

    def step(self, step_id: int) -> Step | None:
        return next((s for s in self.steps if s.step_id == step_id), None)

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
        req["rlimits"] = tuple(req.get("rlimits", ()))
        req["partitions"] = tuple(req.get("partitions", ()))
        req["required_nodes"] = tuple(req.get("required_nodes", ()))
        req["excluded_nodes"] = tuple(req.get("excluded_nodes", ()))
        values["request"] = JobRequest(**req)
        values["job_id"] = JobId(values["job_id"])
        values["state"] = JobState(values["state"])
        values["reason"] = Reason(values["reason"])
        values["hold"] = Hold(values["hold"])
        alloc = values.get("allocation")
        if alloc is not None:
            values["allocation"] = Allocation.from_dict(alloc)
        if values.get("usage") is not None:
            values["usage"] = StepUsage.from_dict(values["usage"])
        values["steps"] = tuple(Step.from_dict(s) for s in values.get("steps", ()))
        if values.get("array") is not None:
            values["array"] = ArrayInfo.from_dict(values["array"])
        if values.get("dependency") is not None:
            values["dependency"] = Dependency.from_dict(values["dependency"])
        if values.get("preemption") is not None:
            values["preemption"] = Preemption.from_dict(values["preemption"])
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in known})
