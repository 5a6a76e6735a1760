"""`scontrol explain job <id>` (beyond Slurm): why a job is not running, in plain words.

Built from the records the scheduling pass leaves (STYLE principle 7): the pending reason of the
job, the reservation backfill made for it (its expected start, the nodes and what it gets on
them, the jobs whose ends it waits for) and the job's own request, hold, dependency and begin
time. Nothing here decides anything: a reason the pass did not give is never invented.

Pure: the caller passes the records and `now`; the text is a list of lines.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from pyslurm_common import units
from pyslurm_common.conf_records import PartitionConfig
from pyslurm_common.hostlist import compress

from ..sched.backfill import FOREVER, Reservation
from ..model.job import Hold, Job, JobId, JobState, Reason

UNLIMITED = -1


@dataclass(frozen=True, slots=True)
class NodeFree:
    """What a node has free now, as the scheduler sees it."""

    usable: bool
    cpus: int
    memory_mb: int
    gpus: int


def _when(epoch: int, now: int) -> str:
    if epoch >= FOREVER:
        return "never (no time limit)"
    left = max(0, epoch - now)
    return f"{units.format_timestamp(epoch)} (in {units.format_duration_squeue(left)})"


def _request(job: Job, expected: Reservation | None) -> str:
    req = job.request
    if expected is not None:
        alloc = expected.allocation
        nodes, cpus, memory = len(alloc.nodes), alloc.cpus_per_node[0], alloc.memory_mb_per_node[0]
    else:
        nodes = max(1, req.min_nodes)
        cpus = max(1, math.ceil(req.total_cpus / nodes))
        memory = req.mem_per_node_mb or req.mem_per_cpu_mb * cpus
    parts = [f"{cpus} CPU{'s' if cpus != 1 else ''}"]
    if memory:
        parts.append(f"{units.format_memory_mb(memory)} of memory")
    if req.gpus_per_node:
        parts.append(f"{req.gpus_per_node} {req.gpu_type + ' ' if req.gpu_type else ''}GPU"
                     f"{'s' if req.gpus_per_node != 1 else ''}")
    limit = "no time limit" if req.time_limit_min == UNLIMITED else \
        f"a time limit of {units.format_time_limit_hms(req.time_limit_min)}"
    where = f"{nodes} node{'s' if nodes != 1 else ''} with {', '.join(parts)} each"
    return f"It asks for {where}, for {limit}."


def _owner(job: Job | None, job_id: JobId) -> str:
    if job is None:
        return f"job {job_id}"
    return f"job {job_id} ({job.request.name}, {job.user_name})"


def _waits_for(job: Job, expected: Reservation, jobs: Mapping[JobId, Job],
               free: Mapping[str, NodeFree], now: int) -> list[str]:
    alloc = expected.allocation
    lines = [f"It is expected to start {_when(expected.start_time, now)} in partition {expected.partition} "
             f"on {compress(alloc.nodes)}."]
    short = []
    for index, name in enumerate(alloc.nodes):
        have = free.get(name)
        if have is None:
            continue
        missing = []
        if have.cpus < alloc.cpus_per_node[index]:
            missing.append(f"{alloc.cpus_per_node[index]} CPUs ({have.cpus} free)")
        if have.memory_mb < alloc.memory_mb_per_node[index]:
            missing.append(f"{units.format_memory_mb(alloc.memory_mb_per_node[index])} of memory "
                           f"({units.format_memory_mb(max(0, have.memory_mb))} free)")
        gpus = len(alloc.gpus_on(index))
        if have.gpus < gpus:
            missing.append(f"{gpus} GPUs ({have.gpus} free)")
        if missing:
            short.append(f"  {name}: needs {', '.join(missing)}")
    if short:
        lines.append("It waits for resources that are busy now:")
        lines += short
    running = [h for h in expected.waits_for if h.running]
    ahead = [h for h in expected.waits_for if not h.running]
    if running:
        lines.append("Running jobs holding them, and their expected ends (start + time limit):")
        lines += [f"  {_owner(jobs.get(h.job_id), h.job_id)} ends {_when(h.end_time, now)}" for h in running]
    if ahead:
        lines.append("Jobs of higher priority reserved them first:")
        lines += [f"  {_owner(jobs.get(h.job_id), h.job_id)} until {_when(h.end_time, now)}" for h in ahead]
    return lines


def _limit_words(job: Job, reason: Reason) -> str:
    text = str(reason)
    if text.startswith("QOS"):
        return f"A limit of its QOS {job.request.qos or 'normal'} ({text}) stops it for now."
    if text.startswith("Assoc"):
        return (f"A limit of its association (account {job.request.account or '(default)'}, "
                f"user {job.user_name}) ({text}) stops it for now.")
    return f"A per-account limit of its QOS ({text}) stops it for now."


def _partition_words(job: Job, reason: Reason, partitions: Mapping[str, PartitionConfig]) -> str:
    name = job.request.partition
    part = partitions.get(name)
    if part is None or reason is Reason.PARTITION_CONFIG:
        return (f"No node of partition {','.join(job.request.partitions or (name,))} can ever hold it as asked "
                "(CPUs, memory, GPUs per node, node count or -w/-x): change the request.")
    if reason is Reason.PARTITION_DOWN:
        return f"Partition {name} is DOWN: its jobs wait until an administrator sets it UP."
    if reason is Reason.PARTITION_INACTIVE:
        return f"Partition {name} is INACTIVE: its jobs wait until an administrator sets it UP."
    if reason is Reason.PARTITION_TIME_LIMIT:
        return (f"Its time limit ({units.format_time_limit_hms(job.request.time_limit_min)}) is more than "
                f"partition {name}'s MaxTime ({units.format_time_limit_hms(part.max_time_min)}).")
    most = "no" if part.max_nodes is None else str(part.max_nodes)
    return (f"It asks for {job.request.min_nodes} nodes; partition {name} has {len(part.nodes)} "
            f"(MinNodes {part.min_nodes}, {most} MaxNodes).")


def explain(job: Job, expected: Reservation | None, jobs: Mapping[JobId, Job],
            partitions: Mapping[str, PartitionConfig], free: Mapping[str, NodeFree],
            dependency_text: str, now: int) -> list[str]:
    """The lines `scontrol explain job` prints for `job`."""
    head = f"Job {job.job_id} ({job.request.name}, user {job.user_name})"
    if job.state is not JobState.PENDING:
        where = f" on {compress(job.allocation.nodes)}" if job.allocation else ""
        return [f"{head} is {job.state}{where}: it is not waiting."]
    reason = job.reason
    lines = [f"{head} is PENDING, reason {reason}.", _request(job, expected)]
    if job.hold is Hold.USER:
        lines.append(f"It is held by its user: `scontrol release {job.job_id}` lets it run.")
    elif job.hold is Hold.ADMIN:
        lines.append("It is held by an administrator: only an operator or administrator can release it.")
    elif reason is Reason.BEGIN_TIME:
        lines.append(f"It may not start before {_when(job.request.begin_time, now)} (--begin).")
    elif reason is Reason.DEPENDENCY:
        lines.append(f"It waits for its dependency: {dependency_text or '(satisfied at the next pass)'}.")
    elif reason is Reason.DEPENDENCY_NEVER_SATISFIED:
        lines.append(f"Its dependency can never be satisfied ({dependency_text}): cancel it, or change it with "
                     f"`scontrol update jobid={job.job_id} dependency=...`.")
    elif reason is Reason.ARRAY_TASK_LIMIT and job.array is not None:
        lines.append(f"Its array may run {job.array.throttle} tasks at once (%{job.array.throttle}), "
                     "and that many are running.")
    elif reason is Reason.REQ_NODE_NOT_AVAIL:
        down = [n for n in job.request.required_nodes if n in free and not free[n].usable]
        lines.append(f"It asked for {compress(job.request.required_nodes)} (-w), and "
                     f"{compress(down) if down else 'one of them'} is down or drained: it waits until "
                     "they are back in service.")
    elif str(reason).startswith("Partition"):
        lines.append(_partition_words(job, reason, partitions))
    elif str(reason).startswith(("QOS", "Assoc", "Max")):
        lines.append(_limit_words(job, reason))
    elif reason is Reason.PRIORITY:
        lines.append("Jobs of higher priority in its partition wait for resources, and it may not start "
                     "before them unless it delays none of them (backfill).")
    elif reason is Reason.RESOURCES:
        lines.append("It is the job of highest priority waiting for resources in its partition.")
    if expected is not None:
        lines += _waits_for(job, expected, jobs, free, now)
    elif reason in (Reason.RESOURCES, Reason.PRIORITY):
        lines.append("No start time is expected yet: the resources it needs are held by jobs without a time "
                     "limit, are beyond the backfill window, or the last pass did not plan this far down the queue.")
    return lines
