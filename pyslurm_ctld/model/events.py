"""Events (what happened, journaled) and effects (what the shell must do).

Events are the only input of `core.apply.apply`; they are written to the
journal before they are applied, and replayed through `apply` on restart.
Effects are the only output; the daemon shell performs them.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from pyslurm_common.conf_records import NodeConfig
from pyslurm_common.record_fields import record_fields

from .dependency import Dependency
from .job import Allocation, Hold, Job, JobId, Step, StepUsage
from .reservations import ReservationRecord
from .triggers import Trigger


@dataclass(frozen=True, slots=True)
class JobSubmitted:
    kind: ClassVar[str] = "submitted"
    job: Job


@dataclass(frozen=True, slots=True)
class JobStarted:
    kind: ClassVar[str] = "started"
    job_id: JobId
    allocation: Allocation
    time: int
    partition: str = ""      # the partition it runs in, for a job submitted to several
    time_limit_min: int = 0  # --time-min: the limit backfill shortened it to (0: its own)


@dataclass(frozen=True, slots=True)
class ArrayTaskStarted:
    """Task `task_id` of the pending array `array_job_id` starts as job `job_id`: a record
    split off the master, or the master itself when this is its last pending index."""

    kind: ClassVar[str] = "array_task_started"
    array_job_id: JobId
    task_id: int
    job_id: JobId
    allocation: Allocation
    time: int
    partition: str = ""      # the partition it runs in, for an array submitted to several


@dataclass(frozen=True, slots=True)
class ArrayTasksCancelled:
    """Pending tasks of an array cancelled by index: they leave the master's pending set and,
    as in Slurm, no record of them is kept; when they are all the master has left, the master
    is cancelled. `job_ids` is empty (journals from before named a record id per index)."""

    kind: ClassVar[str] = "array_tasks_cancelled"
    array_job_id: JobId
    task_ids: tuple[int, ...]
    job_ids: tuple[JobId, ...]
    by_uid: int
    time: int
    reason: str = ""


@dataclass(frozen=True, slots=True)
class DependencyChanged:
    """A pending job's dependency: parts settled by a scheduling pass, or replaced by
    `scontrol update dependency=` (None clears it)."""

    kind: ClassVar[str] = "dependency"
    job_id: JobId
    dependency: Dependency | None
    settled: bool = False    # only part states changed (ignored if the parts were replaced meanwhile)


@dataclass(frozen=True, slots=True)
class ArrayThrottleChanged:
    """`scontrol update jobid=<array> ArrayTaskThrottle=N` (0: no limit)."""

    kind: ClassVar[str] = "array_throttle"
    job_id: JobId
    throttle: int


@dataclass(frozen=True, slots=True)
class BeginTimeChanged:
    """`scontrol update jobid=N StartTime=<time>` of a pending job: its new begin time."""

    kind: ClassVar[str] = "begin_time"
    job_id: JobId
    begin_time: int


@dataclass(frozen=True, slots=True)
class JobChargeChanged:
    """`scontrol update jobid=N Account=... QOS=...` of a pending job: what it is charged to now."""

    kind: ClassVar[str] = "charge"
    job_id: JobId
    account: str
    qos: str


@dataclass(frozen=True, slots=True)
class JobTimeLimitChanged:
    """`scontrol update jobid=N TimeLimit=...` of a pending or running job: its limit now."""

    kind: ClassVar[str] = "time_limit"
    job_id: JobId
    time_limit_min: int


@dataclass(frozen=True, slots=True)
class JobPartitionChanged:
    """`scontrol update jobid=N Partition=a[,b]` of a pending job: where it may run now (the
    first partition, and all of them when more than one is named)."""

    kind: ClassVar[str] = "partition"
    job_id: JobId
    partition: str
    partitions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class JobCpusChanged:
    """`scontrol update jobid=N NumCPUs=...` of a pending job: CPUs per task now."""

    kind: ClassVar[str] = "cpus"
    job_id: JobId
    cpus_per_task: int


@dataclass(frozen=True, slots=True)
class JobPriorityChanged:
    """`scontrol update jobid=N priority=X nice=Y` of a pending job: its fixed priority (0:
    computed again) and nice value, both as they are after the change."""

    kind: ClassVar[str] = "priority"
    job_id: JobId
    admin_priority: int
    nice: int
    time: int


@dataclass(frozen=True, slots=True)
class UsageRecorded:
    """Fairshare usage of each association (account, user, partition, billing-seconds), brought
    up to `time`: journaled every PriorityCalcPeriod so usage survives a restart."""

    kind: ClassVar[str] = "usage"
    usage: tuple[tuple[str, str, str, float], ...]
    time: int


@dataclass(frozen=True, slots=True)
class JobHoldChanged:
    kind: ClassVar[str] = "hold"
    job_id: JobId
    hold: Hold
    time: int


@dataclass(frozen=True, slots=True)
class JobCancelled:
    kind: ClassVar[str] = "cancelled"
    job_id: JobId
    by_uid: int | None  # None: the controller's own policy (kill_invalid_depend): Slurm names no requester
    time: int
    reason: str = ""   # a pending job keeps the reason it waited for, a policy names its own (sacct Reason)


@dataclass(frozen=True, slots=True)
class JobTimedOut:
    kind: ClassVar[str] = "timeout"
    job_id: JobId
    time: int


@dataclass(frozen=True, slots=True)
class JobDeadlineMissed:
    """--deadline: a pending job that can no longer end by it, or a running one that reached it."""

    kind: ClassVar[str] = "deadline"
    job_id: JobId
    time: int


@dataclass(frozen=True, slots=True)
class BatchFinished:
    """The batch step ended on its node and every process of it is gone."""

    kind: ClassVar[str] = "finished"
    job_id: JobId
    exit_code: int
    exit_signal: int
    out_of_memory: bool
    launch_failed: bool
    time: int
    usage: StepUsage | None = None
    kill_task_failed: bool = False   # processes outlived SIGKILL: the node gets drained
    node: str = ""
    epilog_failed: bool = False      # the node's Epilog failed: the node gets drained


@dataclass(frozen=True, slots=True)
class JobRequeued:
    """The job goes back to the queue with the same id: its node's Prolog failed, or the
    launch did not reach the node (after MAX_BATCH_REQUEUE of those the job fails instead)."""

    kind: ClassVar[str] = "requeued"
    job_id: JobId
    hold: Hold
    node: str          # drained with `reason` ("" for none)
    reason: str
    time: int


@dataclass(frozen=True, slots=True)
class JobPreempted:
    """A scheduling pass chose the running job to make room for `preemptor` (`mode` CANCEL,
    REQUEUE or SUSPEND). With `grace` > 0 and no warning given yet this is the warning (the
    steps get SIGCONT + SIGTERM, the action follows `grace` seconds later, as a second event
    with `grace` 0); otherwise it is the action itself."""

    kind: ClassVar[str] = "preempted"
    job_id: JobId
    preemptor: JobId
    mode: str
    time: int
    grace: int = 0


@dataclass(frozen=True, slots=True)
class JobRequeueRequested:
    """`scontrol requeue` (`hold`: requeuehold): a running or suspended run is killed and ends
    REQUEUED, then the job pends again with the same id; a finished job pends again at once."""

    kind: ClassVar[str] = "requeue_requested"
    job_id: JobId
    by_uid: int
    hold: Hold
    time: int
    reason: str = ""   # why, when a policy asks (the ended run's Reason)


@dataclass(frozen=True, slots=True)
class JobSuspended:
    """`scontrol suspend`: an operator stops a running job in place."""

    kind: ClassVar[str] = "suspended"
    job_id: JobId
    by_uid: int
    time: int


@dataclass(frozen=True, slots=True)
class JobResumed:
    """A suspended job runs again: its preemptor ended, or `scontrol resume`."""

    kind: ClassVar[str] = "resumed"
    job_id: JobId
    time: int


@dataclass(frozen=True, slots=True)
class JobLost:
    """The job's batch script ended on its node in an unknown way (the node rebooted, or the
    script's stepd died without a result): the run is over (NODE_FAIL, see node_reconcile.py)."""

    kind: ClassVar[str] = "lost"
    job_id: JobId
    node: str
    time: int


@dataclass(frozen=True, slots=True)
class NodeFailed:
    kind: ClassVar[str] = "node_failed"
    node: str
    reason: str
    time: int


@dataclass(frozen=True, slots=True)
class NodeAdminChanged:
    """scontrol update nodename=... state=drain|resume|down."""

    kind: ClassVar[str] = "node_admin"
    nodes: tuple[str, ...]
    state: str              # DRAIN, DOWN, RESUME, UNDRAIN
    reason: str
    uid: int
    time: int


@dataclass(frozen=True, slots=True)
class NodeNotesChanged:
    """A node's comment or extra set (None: that one left as it is)."""

    kind: ClassVar[str] = "node_notes"
    nodes: tuple[str, ...]
    comment: str | None
    extra: str | None


@dataclass(frozen=True, slots=True)
class NodeCreated:
    """A dynamic node (`pyslurmd -Z`) joined: it is not in slurm.conf, so it lives in the journal."""

    kind: ClassVar[str] = "node_created"
    node: NodeConfig


@dataclass(frozen=True, slots=True)
class NodesDeleted:
    """scontrol delete nodename=...: dynamic nodes with no jobs leave the cluster."""

    kind: ClassVar[str] = "nodes_deleted"
    nodes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PartitionEdited:
    """scontrol create/update/delete partition: everything the admin changed about one partition
    on top of slurm.conf (partition_admin.py), replacing what was recorded for it before."""

    kind: ClassVar[str] = "partition_edited"
    name: str
    created: bool                              # made by scontrol create (not only in slurm.conf)
    deleted: bool
    settings: tuple[tuple[str, str], ...]      # (Key, Value) as written, in order; later ones win


@dataclass(frozen=True, slots=True)
class JobReservationChanged:
    """`scontrol update jobid=N Reservation=name` of a pending job ("" leaves its reservation)."""

    kind: ClassVar[str] = "job_reservation"
    job_id: JobId
    reservation: str


@dataclass(frozen=True, slots=True)
class JobLicensesChanged:
    """`scontrol update jobid=N Licenses=...` of a pending job ("" asks for none)."""

    kind: ClassVar[str] = "job_licenses"
    job_id: JobId
    licenses: str


@dataclass(frozen=True, slots=True)
class JobCommentChanged:
    """`scontrol update jobid=N Comment=...` (and REST's job update): the job's --comment."""

    kind: ClassVar[str] = "job_comment"
    job_id: JobId
    comment: str


@dataclass(frozen=True, slots=True)
class ReservationSaved:
    """scontrol create/update reservation: the whole record, replacing any of its name."""

    kind: ClassVar[str] = "reservation_saved"
    record: ReservationRecord
    time: int = 0


@dataclass(frozen=True, slots=True)
class ReservationDeleted:
    """scontrol delete reservation, or a one-off reservation over and dropped."""

    kind: ClassVar[str] = "reservation_deleted"
    name: str
    time: int = 0


@dataclass(frozen=True, slots=True)
class TriggerSet:
    """strigger --set: a new trigger (its id is the state's next one)."""

    kind: ClassVar[str] = "trigger_set"
    trigger: Trigger
    time: int = 0


@dataclass(frozen=True, slots=True)
class TriggersCleared:
    """strigger --clear, or triggers on a job that is gone and can never fire."""

    kind: ClassVar[str] = "triggers_cleared"
    trig_ids: tuple[int, ...]
    time: int = 0


@dataclass(frozen=True, slots=True)
class TriggerFired:
    """A trigger's event happened: its program runs with `argument`; it is gone unless PERM."""

    kind: ClassVar[str] = "trigger_fired"
    trig_id: int
    argument: str
    time: int = 0


@dataclass(frozen=True, slots=True)
class TriggerIdsUsed:
    """Trigger ids below `next_trigger_id` were handed out (compaction keeps it with no trigger left)."""

    kind: ClassVar[str] = "trigger_ids_used"
    next_trigger_id: int


@dataclass(frozen=True, slots=True)
class JobIdsUsed:
    """Ids below `next_job_id` were handed out (kept by compaction even when their jobs are purged)."""

    kind: ClassVar[str] = "ids_used"
    next_job_id: int


@dataclass(frozen=True, slots=True)
class JobsPurged:
    kind: ClassVar[str] = "purged"
    job_ids: tuple[JobId, ...]


@dataclass(frozen=True, slots=True)
class StepStarted:
    """srun created a step in a running job (its launch on the nodes follows)."""
    kind: ClassVar[str] = "step_started"
    job_id: JobId
    step: Step


@dataclass(frozen=True, slots=True)
class StepFinished:
    """One node's part of a step ended (every process of it gone), or never started."""
    kind: ClassVar[str] = "step_finished"
    job_id: JobId
    step_id: int
    node: str
    exit_code: int
    exit_signal: int
    time: int
    out_of_memory: bool = False
    launch_failed: bool = False
    cancelled: bool = False
    usage: StepUsage | None = None
    kill_task_failed: bool = False
    node_failed: bool = False        # its stepd died, or the node lost it: how it ended is unknown


@dataclass(frozen=True, slots=True)
class AllocationReleased:
    """salloc gave its allocation back (or srun, when its step could not be made)."""
    kind: ClassVar[str] = "released"
    job_id: JobId
    exit_code: int
    exit_signal: int
    time: int


Event = (JobSubmitted | JobStarted | JobHoldChanged | JobCancelled | JobTimedOut | JobDeadlineMissed | BatchFinished
         | JobRequeued | JobLost | NodeFailed | NodeAdminChanged | NodeNotesChanged | NodeCreated | NodesDeleted
         | PartitionEdited | JobIdsUsed
         | JobsPurged | StepStarted | StepFinished | AllocationReleased
         | ArrayTaskStarted | ArrayTasksCancelled | DependencyChanged | ArrayThrottleChanged | BeginTimeChanged
         | JobChargeChanged | JobPreempted | JobRequeueRequested | JobSuspended | JobResumed | JobPriorityChanged
         | JobTimeLimitChanged | JobPartitionChanged | JobCpusChanged
         | UsageRecorded | ReservationSaved | ReservationDeleted | JobReservationChanged
         | JobLicensesChanged | JobCommentChanged | TriggerSet | TriggersCleared | TriggerFired | TriggerIdsUsed)
_KINDS: dict[str, type] = {cls.kind: cls for cls in (
    JobSubmitted, JobStarted, JobHoldChanged, JobCancelled, JobTimedOut, JobDeadlineMissed, BatchFinished,
    JobRequeued, JobLost, NodeFailed, NodeAdminChanged, NodeNotesChanged, NodeCreated, NodesDeleted, PartitionEdited,
    JobIdsUsed,
    JobsPurged,
    StepStarted, StepFinished, AllocationReleased, ArrayTaskStarted, ArrayTasksCancelled, DependencyChanged,
    ArrayThrottleChanged, BeginTimeChanged, JobChargeChanged, JobPreempted, JobRequeueRequested, JobSuspended,
    JobResumed, JobPriorityChanged, JobTimeLimitChanged, JobPartitionChanged, JobCpusChanged, UsageRecorded,
    ReservationSaved, ReservationDeleted, JobReservationChanged, JobLicensesChanged,
    JobCommentChanged, TriggerSet, TriggersCleared, TriggerFired, TriggerIdsUsed)}


def event_to_dict(event: Event) -> dict[str, Any]:
    """The event as plain data, the shape `event_from_dict` reads back."""
    return {"kind": event.kind, **asdict(event)}


def event_record(event: Event) -> dict[str, Any]:
    """The event's journal record: its fields under their names, nested records (a Job, an
    Allocation) left as they are for the journal's encoder (it writes them as their fields).
    The same JSON as `event_to_dict` without dataclasses.asdict's deep copy of every value
    (about 110 of a submission's 125 us of encoding); the records are frozen, so they still
    hold these values when the line is written."""
    return {"kind": event.kind, **record_fields(event)}


def event_from_dict(data: dict[str, Any]) -> Event:
    cls = _KINDS[data["kind"]]
    values = {k: v for k, v in data.items() if k not in ("kind", "v")}
    if cls is JobSubmitted:
        return JobSubmitted(job=Job.from_dict(values["job"]))
    if cls in (JobStarted, ArrayTaskStarted):
        values["allocation"] = Allocation.from_dict(values["allocation"])
    if cls in (JobHoldChanged, JobRequeued, JobRequeueRequested):
        values["hold"] = Hold(values["hold"])
    if cls is StepStarted:
        values["step"] = Step.from_dict(values["step"])
    if cls in (BatchFinished, StepFinished) and values.get("usage") is not None:
        values["usage"] = StepUsage.from_dict(values["usage"])
    if cls in (NodeAdminChanged, NodeNotesChanged, NodesDeleted):
        values["nodes"] = tuple(values["nodes"])
    if cls is ReservationSaved:
        values["record"] = ReservationRecord.from_dict(values["record"])
    if cls is TriggerSet:
        values["trigger"] = Trigger.from_dict(values["trigger"])
    if cls is TriggersCleared:
        values["trig_ids"] = tuple(values["trig_ids"])
    if cls is PartitionEdited:
        values["settings"] = tuple((key, value) for key, value in values["settings"])
    if cls is NodeCreated:
        values["node"] = NodeConfig(**{**values["node"], "features": tuple(values["node"]["features"])})
    if cls in (JobsPurged, ArrayTasksCancelled):
        values["job_ids"] = tuple(JobId(j) for j in values["job_ids"])
    if cls is ArrayTasksCancelled:
        values["task_ids"] = tuple(values["task_ids"])
    if cls is ArrayTaskStarted:
        values["array_job_id"] = JobId(values["array_job_id"])
    if cls is DependencyChanged and values["dependency"] is not None:
        values["dependency"] = Dependency.from_dict(values["dependency"])
    if cls is UsageRecorded:
        values["usage"] = tuple(tuple(row) for row in values["usage"])
    if "job_id" in values:
        values["job_id"] = JobId(values["job_id"])
    if cls is JobPreempted:
        values["preemptor"] = JobId(values["preemptor"])
    return cls(**values)  # type: ignore[no-any-return]


# ---- effects ---------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Launch:
    job: Job


@dataclass(frozen=True, slots=True)
class Terminate:
    job_id: JobId
    nodes: tuple[str, ...]
    cause: str              # text of the `*** JOB N ON node CANCELLED AT t [DUE TO ...] ***` line
    step: str = ""          # "" the whole job, else one step id


@dataclass(frozen=True, slots=True)
class SignalTasks:
    job_id: JobId
    nodes: tuple[str, ...]
    signal: int
    batch_only: bool
    full: bool
    step: str = ""          # "" as batch_only/full say, else one step id


@dataclass(frozen=True, slots=True)
class SuspendTasks:
    """Stop (`suspend`) or continue every process of the job on its nodes (cgroup freezer)."""

    job_id: JobId
    nodes: tuple[str, ...]
    suspend: bool


@dataclass(frozen=True, slots=True)
class Account:
    """Send the job's current record to accounting."""

    job: Job


@dataclass(frozen=True, slots=True)
class RecordReservation:
    """Send a reservation's change to accounting (sacctmgr show reservation)."""

    record: ReservationRecord
    deleted: bool
    time: int


@dataclass(frozen=True, slots=True)
class TellAllocatingClient:
    """srun/salloc's allocation was granted: reach its allocation response port (Slurm's
    RESPONSE_RESOURCE_ALLOCATION); a client that is gone has its job ended (allocating_client.py)."""

    job_id: JobId
    host: str
    port: int


@dataclass(frozen=True, slots=True)
class RunTrigger:
    """Run a fired trigger's program, as the user who set it."""

    trigger: Trigger
    argument: str


Effect = (Launch | Terminate | SignalTasks | SuspendTasks | Account | RecordReservation | TellAllocatingClient
          | RunTrigger)
