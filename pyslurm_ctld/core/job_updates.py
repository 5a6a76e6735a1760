"""`scontrol update job`, hold/release, requeue and suspend/resume: each checks who asks and what
the job allows, and returns the event to journal (or raises SlurmError). A new update key is a
function here (named in `job_update`), an event in model/events.py and its handler in core/apply.py.
"""
from __future__ import annotations

import dataclasses
from typing import Iterable

from pyslurm_common.bounds import ARRAY_THROTTLE, CPUS_PER_TASK, CPU_COUNT, OutOfRange
from pyslurm_common.dates import parse_datetime
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.job_update_keys import JOB_UPDATE_KEYS
from pyslurm_common.licenses import request_valid
from pyslurm_common.units import UNLIMITED

from ..sched import features
from . import job_control, reservations
from ..sched.association_checks import charge
from ..model.events import (ArrayThrottleChanged, BeginTimeChanged, DependencyChanged, Event, JobChargeChanged,
                            JobCommentChanged, JobCpusChanged, JobHoldChanged, JobLicensesChanged,
                            JobPartitionChanged, JobPriorityChanged, JobRequeueRequested, JobResumed, JobSuspended,
                            JobTimeLimitChanged)
from ..model.job import Hold, JobId, JobState
from .job_priorities import priority_update
from ..sched.node_fit import job_need
from .time_limit_update import new_time_limit
from .access import is_privileged, owned_job, updatable_job
from .admission import (check_node_lists, check_some_node_holds, def_mem_per_cpu, dependency_checks, need_in,
                        resolve_partition)
from .state import ClusterState
from .usage import node_usage


def dependency_change(state: ClusterState, job_id: int, text: str, uid: int, operator: bool = False,
                      coordinated: frozenset[str] = frozenset()) -> DependencyChanged:
    """`scontrol update jobid=N dependency=...` ("" clears it): the owner or an admin, pending jobs only."""
    job = owned_job(state, job_id, uid, coordinated, operator)
    if job.state is not JobState.PENDING:
        raise SlurmError(Strerror.NOT_PENDING)
    return DependencyChanged(job.job_id, dependency_checks(state).parsed(text, job.job_id) if text else None)


def throttle_change(state: ClusterState, job_id: int, text: str, uid: int, operator: bool = False,
                    coordinated: frozenset[str] = frozenset()) -> ArrayThrottleChanged:
    """`scontrol update jobid=<array> ArrayTaskThrottle=N`: the owner or an admin, of an array id."""
    job = owned_job(state, job_id, uid, coordinated, operator)
    if job.array is None or job.array.array_job_id != job.job_id:
        raise SlurmError(Strerror.INVALID_ARGUMENT, f"Job {job_id} is not a job array")
    try:
        return ArrayThrottleChanged(job.job_id, ARRAY_THROTTLE.parse(text))
    except OutOfRange:
        raise SlurmError(Strerror.INVALID_ARGUMENT, f"Invalid ArrayTaskThrottle value: {text}") from None


def begin_change(state: ClusterState, job_id: int, begin_time: int, uid: int, operator: bool = False,
                 coordinated: frozenset[str] = frozenset()) -> BeginTimeChanged:
    """`scontrol update jobid=N StartTime=...`: the owner or an admin, pending jobs only."""
    job = owned_job(state, job_id, uid, coordinated, operator)
    if job.state is not JobState.PENDING:
        raise SlurmError(Strerror.NOT_PENDING)
    return BeginTimeChanged(job.job_id, begin_time)


def charge_change(state: ClusterState, job_id: int, account: str | None, qos: str | None, uid: int,
                  operator: bool = False, coordinated: frozenset[str] = frozenset()) -> JobChargeChanged:
    """`scontrol update jobid=N Account=/QOS=` (None: unchanged, "" the default): the owner, root,
    SlurmUser or an `operator` (AdminLevel), pending jobs only, checked as at submission
    (association_checks.charge)."""
    job = owned_job(state, job_id, uid, coordinated, operator)
    if job.state is not JobState.PENDING:
        raise SlurmError(Strerror.NOT_PENDING)
    req = job.request
    charged = charge(state.associations, state.cfg.accounting_storage_enforce, job.user_name,
                     req.account if account is None else account, req.qos if qos is None else qos,
                     [state.partitions[p] for p in req.partitions or (req.partition,) if p in state.partitions])
    return JobChargeChanged(job.job_id, charged.account, charged.qos)


def priority_change(state: ClusterState, job_id: int, uid: int, operator: bool, priority: str | None,
                    nice: str | None, now: int, coordinated: frozenset[str] = frozenset()
                    ) -> JobPriorityChanged | JobHoldChanged:
    """`scontrol update jobid=N priority=X nice=Y` by the owner or an operator (rules in
    job_priorities.priority_update)."""
    job = owned_job(state, job_id, uid, coordinated, operator)
    return priority_update(job, operator or is_privileged(state, uid), priority, nice, now)


def time_limit_change(state: ClusterState, job_id: int, uid: int, operator: bool, sign: str,
                      text: str, coordinated: frozenset[str] = frozenset()) -> JobTimeLimitChanged:
    """`scontrol update jobid=N TimeLimit[+-]=...` by the owner or an operator (rules in
    time_limit_update). A coordinator of the job's account may raise it as an operator may (real
    Slurm 22.05 lets one; it may not raise a priority or lower a nice)."""
    job = owned_job(state, job_id, uid, coordinated, operator)
    privileged = operator or is_privileged(state, uid) or job.request.account in coordinated
    part = state.partitions.get(job.request.partition)
    return JobTimeLimitChanged(job.job_id, new_time_limit(job, sign, text, privileged,
                                                          part.max_time_min if part else UNLIMITED))


def partition_change(state: ClusterState, job_id: int, uid: int, operator: bool, names: str,
                     coordinated: frozenset[str] = frozenset()) -> JobPartitionChanged:
    """`scontrol update jobid=N Partition=a[,b]`: the owner or an operator, pending jobs only,
    each partition checked as at submission (state, -w nodes, features, association and
    allow/deny lists, a node that could ever hold the job)."""
    job = owned_job(state, job_id, uid, coordinated, operator)
    if job.state is not JobState.PENDING:
        raise SlurmError(Strerror.NOT_PENDING)
    parts = [resolve_partition(state, name) for name in names.split(",") if name] or [resolve_partition(state, "")]
    req = dataclasses.replace(job.request, partition=parts[0].name,
                              partitions=tuple(p.name for p in parts) if len(parts) > 1 else ())
    check_node_lists(state, req, tuple(p.name for p in parts))
    features.validated(req.features, frozenset(f for p in parts for n in p.nodes
                                               if n in state.nodes for f in state.nodes[n].config.features))
    charge(state.associations, state.cfg.accounting_storage_enforce, job.user_name, req.account, req.qos, parts)
    need = need_in(state, req, parts)
    check_some_node_holds(need, (state.nodes[name] for p in parts for name in p.nodes if name in state.nodes))
    return JobPartitionChanged(job.job_id, req.partition, req.partitions)


def licenses_change(state: ClusterState, job_id: int, uid: int, operator: bool, text: str,
                    coordinated: frozenset[str] = frozenset()) -> JobLicensesChanged:
    """`scontrol update jobid=N Licenses=...` of a pending job (owner or operator), checked as at
    submission."""
    job = owned_job(state, job_id, uid, coordinated, operator)
    if job.state is not JobState.PENDING:
        raise SlurmError(Strerror.NOT_PENDING)
    if text and not request_valid(text, dict(state.cfg.licenses)):
        raise SlurmError(Strerror.INVALID_LICENSES)
    return JobLicensesChanged(job.job_id, text)


MAX_COMMENT = 1024      # slurmctld's _test_job_desc_fields: strlen(comment) up to 1024


def comment_change(state: ClusterState, job_id: int, uid: int, operator: bool, text: str,
                   coordinated: frozenset[str] = frozenset()) -> JobCommentChanged:
    """`scontrol update jobid=N Comment=...` of a job not yet ended (owner or operator)."""
    job = owned_job(state, job_id, uid, coordinated, operator)
    if len(text) > MAX_COMMENT:
        raise SlurmError(Strerror.PATHNAME_TOO_LONG)
    return JobCommentChanged(job.job_id, text)


def cpu_count_change(state: ClusterState, job_id: int, uid: int, operator: bool, text: str,
                     coordinated: frozenset[str] = frozenset()) -> JobCpusChanged:
    """`scontrol update jobid=N NumCPUs=N` of a pending job (owner or operator): N CPUs in all,
    spread evenly over its tasks, on nodes that could hold them."""
    job = owned_job(state, job_id, uid, coordinated, operator)
    if job.state is not JobState.PENDING:
        raise SlurmError(Strerror.NOT_PENDING)
    tasks = max(1, job.request.num_tasks)
    try:
        cpus = CPU_COUNT.parse(text)
    except OutOfRange:
        raise SlurmError(Strerror.INVALID_CPU_COUNT) from None
    if cpus % tasks:
        raise SlurmError(Strerror.INVALID_CPU_COUNT)
    CPUS_PER_TASK.refuse(cpus // tasks)
    req = dataclasses.replace(job.request, cpus_per_task=cpus // tasks)
    part = state.partitions.get(req.partition)
    if part is None:
        need = job_need(req, def_mem_per_cpu(state, part))
    else:
        need = need_in(state, req, (part,))
    check_some_node_holds(need, (n for n in state.nodes.values()
                                       if part is None or n.config.name in part.nodes))
    return JobCpusChanged(job.job_id, req.cpus_per_task)


def hold_change(state: ClusterState, job_id: int, action: str, uid: int, now: int,
                coordinated: frozenset[str] = frozenset(), operator: bool = False) -> JobHoldChanged:
    """hold/uhold/release of a job that has not ended. A running job keeps running, with
    priority 0 and the hold's reason, and pends held if it is requeued (Slurm 22.05). A
    coordinator of the job's account (``coordinated``) holds and releases as its owner would;
    an ``operator`` (AdminLevel) as root does: its hold is an admin hold."""
    job = updatable_job(state, job_id, uid, operator, coordinated)
    if job.state.is_finished:
        raise SlurmError(Strerror.JOB_FINISHED)
    privileged = operator or is_privileged(state, uid)
    if action not in ("hold", "uhold", "release"):
        raise SlurmError(Strerror.INVALID_ARGUMENT, f"unknown job action {action}")
    if not privileged and job.hold is Hold.ADMIN:
        raise SlurmError(Strerror.ACCESS_DENIED)  # admin holds are the admins'; uhold is anyone's
    if action == "release":
        return JobHoldChanged(job.job_id, Hold.NONE, now)
    if action == "uhold" or not privileged:
        return JobHoldChanged(job.job_id, Hold.USER, now)
    return JobHoldChanged(job.job_id, Hold.ADMIN, now)


def requeue_request(state: ClusterState, job_id: int, uid: int, hold: bool, operator: bool, incomplete: bool,
                    now: int, coordinated: frozenset[str] = frozenset()) -> JobRequeueRequested:
    """`scontrol requeue[hold] [Incomplete]`: the owner, a coordinator of its account or an
    operator (see job_control)."""
    job = owned_job(state, job_id, uid, coordinated, operator)
    return job_control.requeue_request(job, uid, hold, operator, incomplete, now)


def suspension(state: ClusterState, job_id: int, uid: int, operator: bool, suspend: bool,
               now: int) -> JobSuspended | JobResumed:
    """`scontrol suspend|resume`: operators and administrators only. A job whose CPUs others took
    meanwhile (its preemptor) cannot resume: that would double-book them. An unknown id is what real
    Slurm 22.05 answers anyone there: `Unexpected message received`."""
    job = state.jobs.get(JobId(job_id))
    if job is None:
        raise SlurmError(Strerror.UNEXPECTED_MESSAGE)
    event = job_control.suspension(job, uid, operator, suspend, now)
    if isinstance(event, JobResumed) and job.allocation is not None:
        usage = node_usage(state)
        if any(set(job.allocation.cpus_on(i)) & usage[node].cpu_ids for i, node in enumerate(job.allocation.nodes)):
            raise SlurmError(Strerror.DISABLED)
    return event


def job_update(state: ClusterState, job_id: int, settings: Iterable[str], uid: int, operator: bool,
               now: int, coordinated: frozenset[str] = frozenset()) -> list[Event]:
    """`scontrol update jobid=N Key=Value ...`: Dependency=, ArrayTaskThrottle=, StartTime=,
    Account=, QOS=, Priority=, Nice=, TimeLimit= (and TimeLimit+=/-=), Partition=, NumCPUs=,
    Reservation=, Licenses=, Comment=. Every setting is checked before any is applied. `operator`: the
    caller is root, SlurmUser or an accounting operator; a coordinator of the job's account
    (``coordinated``) updates it as its owner could (Slurm's assoc_mgr_is_user_acct_coord)."""
    changes = {key.lower(): value for key, _, value in (item.partition("=") for item in settings)}
    unknown = set(changes) - JOB_UPDATE_KEYS
    if unknown:
        raise SlurmError(Strerror.INVALID_ARGUMENT, f"Update of this job field is not supported: {min(unknown)}")
    if updatable_job(state, job_id, uid, operator, coordinated).state.is_finished:
        raise SlurmError(Strerror.JOB_FINISHED)    # update_job's first answer for an ended job
    events: list[Event] = []
    if "dependency" in changes:
        events.append(dependency_change(state, job_id, changes["dependency"], uid, operator, coordinated))
    if "arraytaskthrottle" in changes:
        events.append(throttle_change(state, job_id, changes["arraytaskthrottle"], uid, operator,
                                      coordinated))
    if "starttime" in changes:
        try:
            begin = parse_datetime(changes["starttime"], now)
        except ValueError:
            raise SlurmError(Strerror.INVALID_TIME_VALUE) from None
        events.append(begin_change(state, job_id, begin, uid, operator, coordinated))
    if "account" in changes or "qos" in changes:
        events.append(charge_change(state, job_id, changes.get("account"), changes.get("qos"), uid, operator,
                                     coordinated))
    if "priority" in changes or "nice" in changes:
        events.append(priority_change(state, job_id, uid, operator, changes.get("priority"), changes.get("nice"),
                                      now, coordinated))
    if "numcpus" in changes:
        events.append(cpu_count_change(state, job_id, uid, operator, changes["numcpus"], coordinated))
    if "partition" in changes:
        events.append(partition_change(state, job_id, uid, operator, changes["partition"], coordinated))
    if "comment" in changes:
        events.append(comment_change(state, job_id, uid, operator, changes["comment"], coordinated))
    if "licenses" in changes:
        events.append(licenses_change(state, job_id, uid, operator, changes["licenses"], coordinated))
    if "reservation" in changes:
        events.append(reservations.job_change(state, job_id, uid, operator, changes["reservation"], now,
                                                  coordinated))
    for key in ("timelimit", "timelimit+", "timelimit-"):
        if key in changes:
            events.append(time_limit_change(state, job_id, uid, operator, key[9:], changes[key], coordinated))
    return events
