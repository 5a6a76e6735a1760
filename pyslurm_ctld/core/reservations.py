"""Reservations: `scontrol create|update|delete reservation` decided (the event, or Slurm's
refusal as a SlurmError), and the check of a job that names one at submit.

Only operators (root, SlurmUser, AdminLevel Operator and up; the caller says which) may change
reservations; anyone else gets Slurm's "Invalid user id". A reservation takes its nodes from
Nodes= (a hostlist, or ALL: the partition's nodes with PartitionName=, else every node), from
NodeCnt= (that many usable, unreserved, idle nodes of the partition, lowest names first) or from
PartitionName= alone (all of the partition's nodes). As in Slurm it may not share nodes and time
with another reservation unless either is MAINT or OVERLAP, nor take nodes whose running jobs end
after its start unless IGNORE_JOBS ("Requested nodes are busy").
"""
from __future__ import annotations

import dataclasses

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.licenses import format_licenses, parse_licenses, request_valid
from pyslurm_common.reservation_spec import CREATED, UPDATED, ReservationSpec, SpecError, creation_problem, parse_words
from pyslurm_common.units import UNLIMITED

from ..model.events import JobReservationChanged, JobTimedOut, ReservationDeleted, ReservationSaved
from ..model.job import JobRequest, JobState
from ..model.reservations import ReservationRecord, ordered_flags
from .access import owned_job
from .reservation_cores import listed_nodes, place_cores
from .state import ClusterState

_FOREVER = 1 << 62


def creation(state: ClusterState, words: list[str], operator: bool, user_name: str, now: int) -> ReservationSaved:
    if not operator:
        raise SlurmError(Strerror.INVALID_USER_ID)
    spec = _parsed(words, now, CREATED)
    problem = creation_problem(spec)
    if problem is not None:
        raise SlurmError(Strerror.INVALID_ARGUMENT, problem)
    assert spec.start_time is not None
    name = spec.name or _generated_name(state, user_name)
    if name in state.reservations and not state.reservations[name].over(now):
        raise SlurmError(Strerror.RESERVATION_NAME_DUP)
    end = spec.end_time if spec.end_time is not None else spec.start_time + (spec.duration_min or 0) * 60
    flags = set(spec.flags_added)
    licenses = _licenses(state, spec.licenses or "")
    partition, cpu_ids = spec.partition or "", ()
    if any(spec.core_counts or ()):
        cores = place_cores(state, spec, flags, spec.start_time, end, name)
        nodes, node_flag, cpu_ids, partition = cores.nodes, cores.flag, cores.cpu_ids, cores.partition or partition
    else:
        nodes, node_flag = _nodes(state, spec, flags, spec.start_time, end, name)
    if not nodes and not licenses:
        # ANY_NODES without nodes holds licenses only (slurmctld: "expected to be one of Licenses ...").
        raise SlurmError(Strerror.INVALID_RESERVATION)
    record = ReservationRecord(
        name=name, reservation_id=1 + max((r.reservation_id for r in state.reservations.values()), default=0),
        start_time=spec.start_time, end_time=end, nodes=nodes, users=spec.users or (),
        accounts=spec.accounts or (), partition=partition,
        flags=ordered_flags(flags | ({node_flag} if node_flag else set())), licenses=licenses, cpu_ids=cpu_ids)
    if not cpu_ids:     # place_cores took only cores free of jobs and other reservations
        _check_conflicts(state, record, now)
    return ReservationSaved(record, now)


def update(state: ClusterState, name: str, words: list[str], operator: bool, now: int) -> ReservationSaved:
    if not operator:
        raise SlurmError(Strerror.INVALID_USER_ID)
    old = named(state, name, now)
    spec = _parsed(words, now, UPDATED)
    start = spec.start_time if spec.start_time is not None else old.start_time
    if spec.end_time is not None:
        end = spec.end_time
    elif spec.duration_min is not None:
        end = start + spec.duration_min * 60
    else:
        end = old.end_time + (start - old.start_time)   # a new start keeps the duration
    if start > end:
        raise SlurmError(Strerror.INVALID_TIME_VALUE)
    flags = (set(old.flags) | set(spec.flags_added)) - set(spec.flags_removed)
    nodes, cpu_ids = old.nodes, old.cpu_ids
    if any(spec.core_counts or ()):
        respec = dataclasses.replace(spec, nodes=spec.nodes if spec.nodes is not None else
                                     (",".join(old.nodes) if "SPEC_NODES" in old.flags else None),
                                     partition=spec.partition if spec.partition is not None else
                                     (old.partition or None))
        cores = place_cores(state, respec, flags - {"SPEC_NODES"}, start, end, name)
        flags = (flags - {"SPEC_NODES", "ALL_NODES", "PART_NODES"}) | ({cores.flag} if cores.flag else set())
        nodes, cpu_ids = cores.nodes, cores.cpu_ids
    elif spec.nodes is not None or spec.node_count is not None or spec.partition is not None:
        respec = dataclasses.replace(spec, partition=spec.partition if spec.partition is not None else
                                     (old.partition or None))
        flags -= {"SPEC_NODES", "ALL_NODES", "PART_NODES"}
        nodes, node_flag = _nodes(state, respec, flags, start, end, name)
        flags |= {node_flag} if node_flag else set()
        cpu_ids = ()
    record = dataclasses.replace(
        old, start_time=start, end_time=end, nodes=nodes, flags=ordered_flags(flags), cpu_ids=cpu_ids,
        users=old.users if spec.users is None else spec.users,
        accounts=old.accounts if spec.accounts is None else spec.accounts,
        partition=old.partition if spec.partition is None else spec.partition,
        licenses=old.licenses if spec.licenses is None else _licenses(state, spec.licenses))
    if not record.users and not record.accounts:
        raise SlurmError(Strerror.INVALID_ARGUMENT, "Reservation request lacks users, groups or accounts")
    if not record.cpu_ids:     # a core reservation's cores were checked as they were placed
        _check_conflicts(state, record, now)
    return ReservationSaved(record, now)


def deletion(state: ClusterState, name: str, operator: bool, now: int) -> ReservationDeleted:
    if not operator:
        raise SlurmError(Strerror.INVALID_USER_ID)
    named(state, name, now)
    if any(job.request.reservation == name and job.state in (JobState.RUNNING, JobState.SUSPENDED)
           for job in state.jobs.values()):
        raise SlurmError(Strerror.RESERVATION_BUSY)
    return ReservationDeleted(name, now)


def expired(state: ClusterState, now: int) -> list[ReservationDeleted]:
    """One-off reservations whose end has passed (Slurm purges them then), once no job runs in them."""
    running = {job.request.reservation for job in state.jobs.values()
               if job.request.reservation and job.state in (JobState.RUNNING, JobState.SUSPENDED)}
    return [ReservationDeleted(r.name, now) for r in state.reservations.values()
            if r.over(now) and r.name not in running]


def ended_under(state: ClusterState, now: int) -> list[JobTimedOut]:
    """Running jobs whose reservation ended ResvOverRun minutes ago (default 0; UNLIMITED: never):
    Slurm ends them as at their time limit; a FLEX reservation's jobs may run past its end."""
    minutes = state.cfg.ctld_settings.resv_over_run_min
    if minutes == UNLIMITED:
        return []
    over_run = minutes * 60
    ended = []
    for job in state.jobs.values():
        record = state.reservations.get(job.request.reservation) if job.request.reservation else None
        if record is not None and job.state is JobState.RUNNING and not record.flexible \
                and now >= record.window(job.start_time)[1] + over_run:
            ended.append(JobTimedOut(job.job_id, now))
    return ended


def visible(state: ClusterState, record: ReservationRecord, user_name: str, operator: bool) -> bool:
    """Whether the caller sees the reservation (scontrol show res, sinfo -T, REST). With
    PrivateData=reservations only operators and its users do, as slurmctld's show_resv decides:
    with associations enforced, a user with an association the reservation admits; without, a
    user named in Users= (Slurm looks the names up without their '-', and so does this)."""
    if operator or not any("reservation" in word for word in state.cfg.private_data):   # Slurm's substring test
        return True
    if "associations" in state.cfg.accounting_storage_enforce:
        accounts = {a.account for a in state.associations.associations if a.user == user_name}
        return any(record.admits(user_name, account) for account in accounts)
    return user_name in {name.lstrip("-") for name in record.users}


def named(state: ClusterState, name: str, now: int) -> ReservationRecord:
    """The reservation a job names; "Requested reservation is invalid" if there is none now."""
    record = state.reservations.get(name)
    if record is None or record.over(now):
        raise SlurmError(Strerror.INVALID_RESERVATION)
    return record


def check_access(state: ClusterState, request: JobRequest, user_name: str, now: int) -> None:
    """A job's reservation admits its user and (charged) account, or Slurm's refusal."""
    if not named(state, request.reservation, now).admits(user_name, request.account):
        raise SlurmError(Strerror.RESERVATION_ACCESS)


def job_change(state: ClusterState, job_id: int, uid: int, operator: bool, name: str,
               now: int, coordinated: frozenset[str] = frozenset()) -> JobReservationChanged:
    """`scontrol update jobid=N Reservation=name` of a pending job (its owner or an operator): the
    reservation must admit the job as at submission; an empty name takes the job out of one."""
    job = owned_job(state, job_id, uid, coordinated, operator)
    if job.state is not JobState.PENDING:
        raise SlurmError(Strerror.NOT_PENDING)
    if name:
        check_access(state, dataclasses.replace(job.request, reservation=name), job.user_name, now)
    return JobReservationChanged(job.job_id, name)


def _parsed(words: list[str], now: int, outcome: str) -> ReservationSpec:
    try:
        return parse_words(words, now, outcome)
    except SpecError as exc:
        raise SlurmError(Strerror.INVALID_ARGUMENT, str(exc)) from None


def _licenses(state: ClusterState, text: str) -> str:
    """Licenses= checked as slurmctld's _license_validate2 (configured names, no more than each's
    total) and written `name:count,...`; "Invalid license specification" otherwise."""
    if not text:
        return ""
    if not request_valid(text, dict(state.cfg.licenses)) or not any(parse_licenses(text).values()):
        raise SlurmError(Strerror.INVALID_LICENSES)
    return format_licenses(parse_licenses(text))


def _generated_name(state: ClusterState, user_name: str) -> str:
    number = 1
    while f"{user_name}_{number}" in state.reservations:
        number += 1
    return f"{user_name}_{number}"


def _nodes(state: ClusterState, spec: ReservationSpec, flags: set[str], start: int, end: int,
           name: str) -> tuple[tuple[str, ...], str]:
    """The reservation's nodes and the flag that says how they were given."""
    if spec.partition and spec.partition not in state.partitions:
        raise SlurmError(Strerror.INVALID_PARTITION)
    if not spec.nodes and not spec.node_count and spec.partition is None:
        # Licenses alone (scontrol lets them through): nodes only with ANY_NODES, as slurmctld.
        if "ANY_NODES" in flags:
            return (), ""
        raise SlurmError(Strerror.INVALID_NODE_NAME)
    if spec.nodes and spec.nodes.upper() == "ALL":
        if spec.partition:
            return state.partitions[spec.partition].nodes, "PART_NODES"
        return tuple(state.nodes), "ALL_NODES"
    if spec.nodes:
        return listed_nodes(state, spec.nodes), "SPEC_NODES"
    part = state.partitions.get(spec.partition) if spec.partition else \
        next((p for p in state.partitions.values() if p.is_default), None)
    if part is None:
        raise SlurmError(Strerror.NO_DEFAULT_PARTITION)
    if not spec.node_count:
        return part.nodes, "PART_NODES"
    busy = _busy_nodes(state, start, flags, name) | _reserved_nodes(state, start, end, flags, name)
    free = [n for n in part.nodes if n in state.nodes and state.nodes[n].usable and n not in busy]
    if len(free) < spec.node_count:
        raise SlurmError(Strerror.STEP_NODES_BUSY)
    return tuple(free[:spec.node_count]), ""


def _check_conflicts(state: ClusterState, record: ReservationRecord, now: int) -> None:
    flags = set(record.flags)
    if set(record.nodes) & _reserved_nodes(state, record.start_time, record.end_time, flags, record.name):
        raise SlurmError(Strerror.RESERVATION_OVERLAP)
    if set(record.nodes) & _busy_nodes(state, record.start_time, flags, record.name):
        raise SlurmError(Strerror.STEP_NODES_BUSY)


def _reserved_nodes(state: ClusterState, start: int, end: int, flags: set[str], name: str) -> set[str]:
    """Nodes other reservations hold during [start, end), unless overlapping is allowed."""
    if flags & {"MAINT", "OVERLAP"}:
        return set()
    return {n for r in state.reservations.values()
            if r.name != name and not r.over(start) and not {"MAINT", "OVERLAP"} & set(r.flags)
            and r.holds_nodes_during(start, end) for n in r.nodes}


def _busy_nodes(state: ClusterState, start: int, flags: set[str], name: str) -> set[str]:
    """Nodes of running jobs (outside this reservation) expected to run past `start`."""
    if "IGNORE_JOBS" in flags:
        return set()
    busy: set[str] = set()
    for job in state.jobs.values():
        if job.state is not JobState.RUNNING or job.allocation is None or job.request.reservation == name:
            continue
        limit = job.request.time_limit_min
        ends = _FOREVER if limit < 0 else (job.start_time or 0) + limit * 60
        if ends > start:
            busy.update(job.allocation.nodes)
    return busy
