"""sacct's rows and field table over accounting records (``pb.JobRecord``).

Owns spec §2.1, §2.3 and §2.4 of cli-sacct-sacctmgr-sprio-sshare.md: one row per job and,
unless ``-X``, one per step (``123.batch`` named ``batch``, ``123.0`` named after the
executable) with an empty Partition; each field's default width and value format.
Job-only attributes (User, Group, Timelimit, Reason, QOS, Priority, ...) are blank on step
rows; Account, Cluster, ReqMem and WorkDir are repeated.

Pure: ``now`` is given to :func:`rows` (``None`` reads the clock once) for the elapsed time
of running jobs. Errors: :class:`cli.print_fields.FormatError` for an unknown field.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from cli import job_states, sacct_usage
from cli.print_fields import (Column, FormatError, Value, help_columns, parse_field_list, record_values,
                              render_records)
from pyslurm_common import hostlist, units
from pyslurm_common.rpc import messages as pb
from pyslurm_common.typed_tuple import NamedTuple

__all__ = ["DEFAULT_FIELDS", "BRIEF_FIELDS", "LONG_FIELDS", "FormatError", "SacctRow", "parse_fields",
           "rows", "row_values", "render_sacct"]

# Names for annotations only: building a message class at import would load protobuf's
# well_known_types before cli/app.run_as_process can spare a command it (rpc/messages.py).
TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any
    JobRecord = pb.JobRecord
    StepInfo = pb.StepInfo

DEFAULT_FIELDS = "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode"
BRIEF_FIELDS = "JobID,State,ExitCode"
# -l/--long, as sacct(1) lists it (abbreviations resolved by prefix like any -o list).
LONG_FIELDS = (
    "jobid,jobidraw,jobname,partition,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,maxrss,"
    "maxrssnode,maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,avepages,mincpu,mincpunode,"
    "mincputask,avecpu,ntasks,alloccpus,elapsed,state,exitcode,avecpufreq,reqcpufreqmin,"
    "reqcpufreqmax,reqcpufreqgov,reqmem,consumedenergy,maxdiskread,maxdiskreadnode,maxdiskreadtask,"
    "avediskread,maxdiskwrite,maxdiskwritenode,maxdiskwritetask,avediskwrite,reqtres,alloctres,"
    "tresusageinave,tresusageinmax,tresusageinmaxn,tresusageinmaxt,tresusageinmin,tresusageinminn,"
    "tresusageinmint,tresusageintot,tresusageoutmax,tresusageoutmaxn,tresusageoutmaxt,"
    "tresusageoutave,tresusageouttot"
)
_NAMED_STEPS = frozenset({"batch", "extern", "interactive"})
# Job-row fields computed from the job's steps.
_FROM_STEPS = frozenset({"DerivedExitCode", "SystemCPU", "TotalCPU", "UserCPU"})
# Reasons sacct does not keep (it shows the last pending reason other than these).
_PLAIN_REASONS = frozenset(
    {"", "None", "Priority", "Resources", "NonZeroExitCode", "TimeLimit", "OutOfMemory"}
)


class SacctRow(NamedTuple):   # a NamedTuple: dataclasses would import inspect into sacct
    """A job row (``step`` None) or one of its step rows."""

    record: JobRecord
    step: StepInfo | None
    now: int
    window: tuple[int, int] | None = None   # -T: Start and End clipped to [start, end]
    sizes: units.SizeFormat = units.SizeFormat()   # --noconvert / --units

    @property
    def job(self) -> pb.JobInfo:
        return self.record.job


def rows(
    records: Iterable[JobRecord], allocations_only: bool = False, *, now: int | None = None,
    truncate_to: tuple[int, int] | None = None, sizes: units.SizeFormat = units.SizeFormat(),
) -> list[SacctRow]:
    """Job rows, each followed by its step rows unless *allocations_only* (``-X``); with
    *truncate_to* (``-T``) their times are clipped to that window; memory sizes printed as
    *sizes* says."""
    clock = int(time.time()) if now is None else now
    out: list[SacctRow] = []
    for rec in records:
        out.append(SacctRow(rec, None, clock, truncate_to, sizes))
        if not allocations_only:
            out.extend(SacctRow(rec, step, clock, truncate_to, sizes) for step in rec.steps)
    return out


# ----------------------------------------------------------------------------- values


def _job_only(get: Callable[[SacctRow], Value]) -> Callable[[SacctRow], Value]:
    return lambda r: None if r.step is not None else get(r)


def _with_step(r: SacctRow, base: str) -> str:
    return base if r.step is None else f"{base}.{r.step.step_id}"


def _job_id(r: SacctRow) -> str:
    """`123`; array tasks as `<array id>_<index>`, a never-started remainder `<array id>_[<ranges>]`
    (of one index: that task, `<array id>_<index>`, as Slurm 22.05.8 lists it)."""
    job = r.job
    if not job.array_job_id:
        return _with_step(r, str(job.job_id))
    if job.array_remainder and not job.array_task_str.isdigit():
        return _with_step(r, f"{job.array_job_id}_[{job.array_task_str}]")
    return _with_step(r, f"{job.array_job_id}_{job.array_task_str}")


def _job_id_raw(r: SacctRow) -> str:
    return _with_step(r, str(r.job.job_id))


def _job_name(r: SacctRow) -> str:
    if r.step is None:
        return r.job.name
    if r.step.name:
        return r.step.name
    return r.step.step_id if r.step.step_id in _NAMED_STEPS else ""


def _state(r: SacctRow) -> str:
    if r.step is not None:
        return r.step.state
    job = r.job
    state = job.state or "PENDING"
    if job.cancelled and state == "CANCELLED":
        return f"CANCELLED by {job.cancelled_by}"
    return state


def _exit_code(r: SacctRow) -> str:
    src = r.step if r.step is not None else r.job
    return f"{src.exit_code}:{src.exit_signal}"


def elapsed_seconds(r: SacctRow) -> int:
    """Run time of a job or step row so far (to ``now`` while running); with ``-T`` the time
    within the window."""
    if r.window is not None:
        start, end = _clipped(r)
        return max(0, end - start) if start else 0
    if r.step is None:
        return job_states.run_seconds(r.job, r.now)
    if not r.step.start_time:
        return 0
    return max(0, (r.step.end_time or r.now) - r.step.start_time)


def alloc_cpus(r: SacctRow) -> int:
    """CPUs allocated to a step, or to a job once started (0 while pending)."""
    if r.step is not None:
        return r.step.num_cpus
    started = bool(r.job.start_time)
    return int(r.record.alloc_cpus) or (r.job.num_cpus if started else 0)


def _node_count(r: SacctRow) -> int:
    if r.step is None:
        return r.job.num_nodes
    return len(hostlist.expand(r.step.nodes)) if r.step.nodes else 0


def _alloc_nodes(r: SacctRow) -> int:
    if r.step is None and not r.job.start_time:
        return 0
    return _node_count(r)


def req_mem_mb(job: pb.JobInfo) -> int:
    """The job's requested memory in MB, all nodes together."""
    if job.mem_per_cpu_mb:
        return job.mem_per_cpu_mb * job.num_cpus
    return job.mem_per_node_mb * max(1, job.num_nodes)


def _gpu_tres(job: pb.JobInfo) -> list[str]:
    """``gres/gpu=N`` for a job with GPUs, and ``gres/gpu:<type>=N`` when it asked for a type."""
    if not job.gpus:
        return []
    items = [f"gres/gpu={job.gpus}"]
    parts = job.tres_per_node.split(":")  # gres:gpu[:type]:count
    if len(parts) == 4 and parts[:2] == ["gres", "gpu"]:
        items.append(f"gres/gpu:{parts[2]}={job.gpus}")
    return items


def _tres(r: SacctRow, cpus: int) -> str:
    """A TRES list with names in alphabetical order: ``billing=4,cpu=4,gres/gpu=2,mem=400M,node=1``."""
    job = r.job
    mem_mb = req_mem_mb(job)
    items = [f"billing={cpus}", f"cpu={cpus}", f"node={job.num_nodes}", *_gpu_tres(job)]
    if mem_mb:
        items.append(f"mem={r.sizes(mem_mb, 'M')}")
    return ",".join(sorted(items))


def _alloc_tres(r: SacctRow) -> str:
    if not r.job.start_time:
        return ""
    return _tres(r, alloc_cpus(r))


def _time(epoch: int) -> str:
    return units.format_timestamp(epoch, unknown="Unknown")


def _clipped(r: SacctRow) -> tuple[int, int]:
    """(start, end) of the row; with ``-T`` clipped to the window, a job still running ending at
    the window's end. 0 = unknown."""
    src = r.step if r.step is not None else r.job
    start, end = src.start_time, src.end_time
    if r.window is None or not start:
        return start, end
    first, last = r.window
    return max(start, first), min(end, last) if end else last


def _start(r: SacctRow) -> str:
    start = _clipped(r)[0]
    if not start and r.step is None and r.job.state not in ("", "PENDING"):
        return "None"   # ended without a start (cancelled by kill_invalid_depend): Slurm 22.05.8's word
    return _time(start)


def _end(r: SacctRow) -> str:
    return _time(_clipped(r)[1])


def _nodelist(r: SacctRow) -> str:
    nodes = r.step.nodes if r.step is not None else r.job.nodes
    return nodes or "None assigned"


def _reason(r: SacctRow) -> str:
    job = r.job
    if job.state == "PENDING":
        return job.reason or "None"
    return "None" if job.reason in _PLAIN_REASONS else job.reason


def _limit_raw(minutes: int) -> Value:
    if minutes == units.UNLIMITED:
        return "UNLIMITED"
    return "Partition_Limit" if minutes == 0 else minutes


def _reserved_seconds(r: SacctRow) -> int:
    """How long the job waited once eligible: until it started, or until now while pending."""
    job = r.job
    if not job.eligible_time:
        return 0
    until = job.start_time or (job.end_time if job.state != "PENDING" else r.now)
    return max(0, until - job.eligible_time)


def _suspended_seconds(r: SacctRow) -> int:
    """Time the job spent suspended, the current suspension counted to now."""
    job = r.job
    current = max(0, r.now - job.suspend_time) if job.state == "SUSPENDED" and job.suspend_time else 0
    return job.suspended_secs + current


def _layout(r: SacctRow) -> Value:
    """How a step's tasks were laid out: srun steps are always block-distributed here."""
    if r.step is None:
        return None
    return "Block" if r.step.step_id.isdigit() else "Unknown"


def _unset(_: SacctRow) -> Value:
    """Attributes pyslurm jobs never carry (WCKeys) or Slurm keeps only when told
    (comments: AccountingStoreFlags=job_comment)."""
    return None


class SacctField(NamedTuple):   # a NamedTuple: dataclasses would import inspect into sacct
    """Default signed width and value getter of one field."""

    width: int
    get: Callable[[SacctRow], Value]


FIELDS: dict[str, SacctField] = {
    "Account": SacctField(10, lambda r: r.job.account),
    "AdminComment": SacctField(15, _unset),
    "AllocCPUS": SacctField(10, alloc_cpus),
    "AllocNodes": SacctField(10, _alloc_nodes),
    "AllocTRES": SacctField(10, _job_only(_alloc_tres)),
    "AssocID": SacctField(7, lambda r: r.record.assoc_id or None),
    "BlockID": SacctField(16, _unset),
    "Cluster": SacctField(10, lambda r: r.record.cluster),
    "Comment": SacctField(14, _unset),
    "Constraints": SacctField(19, _job_only(lambda r: r.job.features)),
    "CPUTime": SacctField(10, lambda r: units.format_duration_hms(
        elapsed_seconds(r) * alloc_cpus(r))),
    "CPUTimeRAW": SacctField(10, lambda r: elapsed_seconds(r) * alloc_cpus(r)),
    "DBIndex": SacctField(9, lambda r: r.record.db_index or None),
    "DerivedExitCode": SacctField(15, _job_only(lambda r: job_states.derived_exit_code(r.record.steps))),
    "Elapsed": SacctField(10, lambda r: units.format_duration_hms(elapsed_seconds(r))),
    "ElapsedRaw": SacctField(10, elapsed_seconds),
    "Eligible": SacctField(19, lambda r: _time(r.job.eligible_time)),
    "End": SacctField(19, _end),
    "ExitCode": SacctField(8, _exit_code),
    # The main scheduler starts every job (no backfill or submit-time pass is distinguished).
    "Flags": SacctField(19, _job_only(lambda r: "SchedMain" if r.job.start_time else None)),
    "GID": SacctField(6, _job_only(lambda r: r.job.group_id)),
    "Group": SacctField(9, _job_only(lambda r: r.job.group_name or str(r.job.group_id))),
    "JobID": SacctField(-12, _job_id),
    "JobIDRaw": SacctField(-12, _job_id_raw),
    "JobName": SacctField(10, _job_name),
    "Layout": SacctField(9, _layout),
    "McsLabel": SacctField(12, _unset),
    "NCPUS": SacctField(10, alloc_cpus),
    "NNodes": SacctField(8, _node_count),
    "NodeList": SacctField(15, _nodelist),
    "NTasks": SacctField(8, lambda r: r.step.num_tasks if r.step is not None else None),
    "Partition": SacctField(10, lambda r: r.job.partition if r.step is None else ""),
    "Priority": SacctField(10, _job_only(lambda r: r.job.priority)),
    "Planned": SacctField(10, _job_only(lambda r: units.format_duration_hms(_reserved_seconds(r)))),
    "PlannedCPU": SacctField(10, _job_only(
        lambda r: units.format_duration_hms(_reserved_seconds(r) * r.job.num_cpus))),
    "PlannedCPURAW": SacctField(10, _job_only(lambda r: _reserved_seconds(r) * r.job.num_cpus)),
    "QOS": SacctField(10, _job_only(lambda r: r.job.qos)),
    "QOSRAW": SacctField(6, _job_only(lambda r: r.record.qos_id or None)),
    "Reason": SacctField(22, _job_only(_reason)),
    "ReqCPUS": SacctField(8, lambda r: r.step.num_cpus if r.step else r.job.num_cpus),
    "ReqMem": SacctField(10, lambda r: r.sizes(req_mem_mb(r.job), "M")),
    "ReqNodes": SacctField(8, _job_only(lambda r: r.job.num_nodes)),
    "ReqTRES": SacctField(10, _job_only(lambda r: _tres(r, r.job.num_cpus))),
    "Reservation": SacctField(20, _job_only(lambda r: r.job.reservation or None)),
    "ReservationId": SacctField(8, _job_only(lambda r: r.record.reservation_id or None)),
    "Reserved": SacctField(10, _job_only(lambda r: units.format_duration_hms(_reserved_seconds(r)))),
    "ResvCPU": SacctField(10, _job_only(
        lambda r: units.format_duration_hms(_reserved_seconds(r) * r.job.num_cpus))),
    "ResvCPURAW": SacctField(10, _job_only(lambda r: _reserved_seconds(r) * r.job.num_cpus)),
    "Restarts": SacctField(8, _job_only(lambda r: r.job.restarts)),
    "Start": SacctField(19, _start),
    "State": SacctField(10, _state),
    "Submit": SacctField(19, lambda r: _time(r.job.submit_time)),
    "SubmitLine": SacctField(20, _job_only(lambda r: r.job.submit_line)),
    "Suspended": SacctField(10, _job_only(lambda r: units.format_duration_hms(_suspended_seconds(r)))),
    "SystemComment": SacctField(15, _unset),
    "Timelimit": SacctField(10, _job_only(
        lambda r: units.format_time_limit_hms(r.job.time_limit_min or None))),
    "TimelimitRaw": SacctField(10, _job_only(lambda r: _limit_raw(r.job.time_limit_min))),
    "UID": SacctField(6, _job_only(lambda r: r.job.user_id)),
    "User": SacctField(9, _job_only(lambda r: r.job.user_name or str(r.job.user_id))),
    "WCKey": SacctField(10, _unset),
    "WCKeyID": SacctField(10, _unset),
    "WorkDir": SacctField(20, lambda r: r.job.work_dir),
    **{name: SacctField(width, get) for name, (width, get) in sacct_usage.FIELDS.items()},
}  # fmt: skip

WIDTHS: dict[str, int] = {name: f.width for name, f in FIELDS.items()}


def parse_fields(spec: str | Sequence[str] = DEFAULT_FIELDS) -> list[Column]:
    """Resolve a ``-o/--format`` list against the sacct field table."""
    return parse_field_list(spec, WIDTHS)


def needs_steps(columns: Sequence[Column]) -> bool:
    """Whether a job row's cells depend on its steps (so ``-X`` must still fetch them)."""
    return any(c.name in _FROM_STEPS for c in columns)


def help_format() -> list[str]:
    """``-e/--helpformat``: the field names, alphabetically, in columns."""
    return help_columns(FIELDS)


def row_values(columns: Sequence[Column], row: SacctRow) -> list[Value]:
    """The cell values of *row* for *columns*."""
    return record_values(FIELDS, columns, row)


def render_sacct(columns: Sequence[Column], sacct_rows: Iterable[SacctRow], **options: Any) -> list[str]:
    """All sacct output lines (no newlines); options as print_fields.render (parsable, delimiter, header)."""
    return render_records(FIELDS, columns, sacct_rows, **options)
