"""The controller's deciders, on the cluster state (core/state.py) they extend.

Decisions (`submission`, `cancellation`, `hold_change`, `schedule_pass`, ...) read the state,
check permissions and limits (raising `SlurmError` with Slurm's words), and return events
without changing anything durable; `apply` (core/apply.py) is the update. Node liveness
(registration, heartbeats) and pending reasons are soft state: they are rebuilt after a
restart, so they change here without events. `node_usage` derives which CPU ids and GPU
indices are in use from the jobs that hold allocations.
"""
from __future__ import annotations

import collections
import dataclasses
import logging
import math
from typing import Iterable, Iterator

from pyslurm_common.array_spec import ArraySpec, JobSpec, parse_array_spec
from pyslurm_common.bounds import ARRAY_THROTTLE, CPU_COUNT, CPUS_PER_TASK, OutOfRange
from pyslurm_common.config import NodeConfig, PartitionConfig, SlurmConfig
from pyslurm_common.errors import SlurmError, Strerror

from . import features, job_control, partition_admin, preemption, reconfigure, scheduler
from .association_checks import charge
from .backfill import Backfill, running_jobs
from .dependency_checks import DependencyChecks
from .events import (AllocationReleased, ArrayTaskStarted, ArrayTasksCancelled, ArrayThrottleChanged,
                     BeginTimeChanged, DependencyChanged, Effect, Event, JobCancelled, JobChargeChanged,
                     JobHoldChanged, JobPreempted, JobRequeueRequested, JobResumed, JobStarted, JobSubmitted,
                     JobSuspended, JobTimedOut, JobsPurged, NodeCreated, NodeFailed, NodesDeleted, PartitionEdited,
                     SignalTasks, StepStarted, Terminate)
from .events import JobCpusChanged, JobPartitionChanged, JobPriorityChanged, JobTimeLimitChanged, UsageRecorded
from .job import ArrayInfo, Hold, Job, JobId, JobRequest, JobState, Reason, Step
from .fairshare import ShareRow
from .job_priorities import priority_update
from .nodes import NodeRecord
from .priority import PriorityFactors
from .limits import default_time_limit, limit_gate, submit_refusal
from .step_layout import StepShape, place_step
from .time_limit_update import new_time_limit
from .core import access
from .core.access import is_privileged, owned_job, known_job
from .core import usage
from .core.usage import node_usage, node_capacity
from .core.apply import apply
from .core.state import ClusterState

log = logging.getLogger(__name__)

UNLIMITED = -1


class JobManager(ClusterState):
    """The deciders over the cluster state, until each concern has its own module."""

    node_usage = usage.node_usage
    node_capacity = usage.node_capacity

    is_privileged = access.is_privileged

    def reconfigure(self, cfg: SlurmConfig) -> None:
        """Swap in a new slurm.conf; jobs are untouched. Raises SlurmError (and changes nothing)
        when the new configuration would strand jobs or needs a restart (see reconfigure.py)."""
        partition_jobs: dict[str, list[int]] = {}
        for job in self.jobs.values():
            if not job.state.is_finished or job.completing:
                partition_jobs.setdefault(job.request.partition, []).append(job.job_id)
        problems = reconfigure.refusals(self.cfg, cfg, self.jobs_on_nodes(), partition_jobs, self.dynamic_nodes)
        if problems:
            raise SlurmError(Strerror.INVALID_ARGUMENT, "; ".join(problems))
        self.install_config(cfg)


    # ---- dynamic nodes (decisions) ----------------------------------------------

    def node_creation(self, node: NodeConfig) -> NodeCreated | None:
        """A `pyslurmd -Z` registration: the event that adds (or redefines) the node, None when
        it is known with this very definition. A slurm.conf node cannot register as dynamic."""
        if node.name in self.nodes and node.name not in self.dynamic_nodes:
            raise SlurmError(Strerror.INVALID_NODE_NAME,
                             f"node {node.name} is in slurm.conf: start its pyslurmd without -Z")
        return None if self.dynamic_nodes.get(node.name) == node else NodeCreated(node)

    def partition_edit(self, action: str, name: str, settings: tuple[tuple[str, str], ...],
                       uid: int) -> PartitionEdited:
        """scontrol create/update/delete partition (administrators): the journaled record, or
        SlurmError (partition_admin.edit says which)."""
        if not is_privileged(self, uid):
            raise SlurmError(Strerror.ACCESS_DENIED)
        jobs_in: dict[str, list[int]] = {}
        for job in self.jobs.values():
            if not job.state.is_finished or job.completing:
                for part in {job.request.partition, *job.request.partitions}:
                    jobs_in.setdefault(part, []).append(job.job_id)
        return partition_admin.edit(action, name, settings, self.cfg, self.partition_edits, self.partitions,
                                    [*(n.name for n in self.cfg.nodes), *self.dynamic_nodes], jobs_in)

    def node_deletion(self, names: Iterable[str]) -> NodesDeleted:
        """scontrol delete nodename=...: only dynamic nodes, and only while no job holds them."""
        held = self.jobs_on_nodes()
        names = tuple(names)
        for name in names:
            if name not in self.nodes:
                raise SlurmError(Strerror.INVALID_NODE_NAME, f"Invalid node name specified: {name}")
            if name not in self.dynamic_nodes:
                raise SlurmError(Strerror.INVALID_ARGUMENT, f"Can't delete non-dynamic node '{name}'.")
            if held.get(name):
                raise SlurmError(Strerror.INVALID_ARGUMENT, f"Node '{name}' can't be delete because it's still in use.")
        return NodesDeleted(names)

    # ---- permissions --------------------------------------------------------


    # ---- decisions ----------------------------------------------------------

    def submission(self, raw: JobRequest, uid: int, gid: int, user_name: str, group_name: str,
                   hold: bool, now: int, array: str = "", dependency: str = "") -> JobSubmitted:
        """The JobSubmitted event of a new job (or job array, for a non-empty `--array` spec)."""
        array_spec = self._array_spec(array) if array else None
        depends = self._dependency_checks().parsed(dependency) if dependency else None
        part = self._resolve_partition(raw.partition)
        time_limit = raw.time_limit_min
        if time_limit == 0:
            time_limit = part.default_time_min if part.default_time_min else part.max_time_min
        nodes_in_cluster = len(self.nodes)
        if raw.min_nodes > nodes_in_cluster:
            raise SlurmError(Strerror.NODE_COUNT_INVALID)
        others = tuple(self._resolve_partition(name).name for name in raw.partitions)
        self._check_node_lists(raw, (part.name, *others))
        features.validated(raw.features, frozenset(f for p in (part.name, *others) for n in self.partitions[p].nodes
                                                   if n in self.nodes for f in self.nodes[n].config.features))
        enforce = self.cfg.accounting_storage_enforce
        charged = charge(self.associations, enforce, user_name, raw.account, raw.qos,
                         [self.partitions[name] for name in others or (part.name,)])
        if raw.time_limit_min == 0:
            time_limit = default_time_limit(self.associations, enforce, charged.qos, charged.association, time_limit)
        request = self._normalised_gpus(dataclasses.replace(raw, partition=part.name, time_limit_min=time_limit,
                                                            account=charged.account, qos=charged.qos,
                                                            partitions=others if len(others) > 1 else (),
                                                            min_nodes=max(raw.min_nodes, len(raw.required_nodes))),
                                        part)
        need = scheduler.job_need(request, self._def_mem_per_cpu(part))
        self._check_some_node_holds(need, self.nodes.values())
        new_jobs = len(array_spec.indices) if array_spec else 1
        if self._active_job_count() + new_jobs > self.cfg.max_job_count:
            raise SlurmError(Strerror.TOO_MANY_JOBS)
        submit_refusal(self.associations, enforce, self.jobs.values(), user_name, charged.association, request,
                       need.tres, new_jobs)
        job_id = JobId(self.new_job_id())
        job = Job(
            job_id=job_id, request=request, uid=uid, gid=gid, user_name=user_name,
            group_name=group_name, submit_time=now, hold=Hold.USER if hold else Hold.NONE,
            reason=Reason.HELD_USER if hold else Reason.NONE,
            eligible_time=0 if hold else max(now, request.begin_time),
            array=_array_info(job_id, array_spec.indices, array_spec.throttle) if array_spec else None,
            dependency=depends,
        )
        return JobSubmitted(dataclasses.replace(job, priority=self.priority_of(job, now)))

    @staticmethod
    def _check_some_node_holds(need: "scheduler._Need", nodes: Iterable[NodeRecord]) -> None:
        """BAD_NODE_CONFIG unless one of `nodes`, as configured, has the CPUs, memory and features
        one node of the request needs."""
        if not any(n.config.cpus >= need.cpus_per_node and n.config.real_memory_mb >= need.memory_mb_per_node
                   and features.satisfied(need.constraint, frozenset(n.config.features)) for n in nodes):
            raise SlurmError(Strerror.BAD_NODE_CONFIG)

    def _check_node_lists(self, req: JobRequest, partitions: tuple[str, ...]) -> None:
        """-w/-x name known nodes; the -w ones must all be in one of the job's partitions."""
        for name in (*req.required_nodes, *req.excluded_nodes):
            if name not in self.nodes:
                raise SlurmError(Strerror.INVALID_NODE_NAME)
        if req.required_nodes and not any(set(req.required_nodes) <= set(self.partitions[p].nodes)
                                          for p in partitions):
            raise SlurmError(Strerror.BAD_NODE_CONFIG)
        if set(req.required_nodes) & set(req.excluded_nodes):
            raise SlurmError(Strerror.BAD_NODE_CONFIG)

    def _dependency_checks(self) -> DependencyChecks:
        return DependencyChecks(self.jobs, self.array_tasks, self.slurm_uid, self.options.kill_invalid_depend)

    def dependency_change(self, job_id: int, text: str, uid: int) -> DependencyChanged:
        """`scontrol update jobid=N dependency=...` ("" clears it): the owner or an admin, pending jobs only."""
        job = owned_job(self, job_id, uid)
        if job.state is not JobState.PENDING:
            raise SlurmError(Strerror.NOT_PENDING)
        return DependencyChanged(job.job_id, self._dependency_checks().parsed(text, job.job_id) if text else None)

    def throttle_change(self, job_id: int, text: str, uid: int) -> ArrayThrottleChanged:
        """`scontrol update jobid=<array> ArrayTaskThrottle=N`: the owner or an admin, of an array id."""
        job = owned_job(self, job_id, uid)
        if job.array is None or job.array.array_job_id != job.job_id:
            raise SlurmError(Strerror.INVALID_ARGUMENT, f"Job {job_id} is not a job array")
        try:
            return ArrayThrottleChanged(job.job_id, ARRAY_THROTTLE.parse(text))
        except OutOfRange:
            raise SlurmError(Strerror.INVALID_ARGUMENT, f"Invalid ArrayTaskThrottle value: {text}") from None

    def begin_change(self, job_id: int, begin_time: int, uid: int) -> BeginTimeChanged:
        """`scontrol update jobid=N StartTime=...`: the owner or an admin, pending jobs only."""
        job = owned_job(self, job_id, uid)
        if job.state is not JobState.PENDING:
            raise SlurmError(Strerror.NOT_PENDING)
        return BeginTimeChanged(job.job_id, begin_time)

    def charge_change(self, job_id: int, account: str | None, qos: str | None, uid: int,
                      operator: bool = False) -> JobChargeChanged:
        """`scontrol update jobid=N Account=/QOS=` (None: unchanged, "" the default): the owner, root,
        SlurmUser or an `operator` (AdminLevel), pending jobs only, checked as at submission
        (association_checks.charge)."""
        job = owned_job(self, job_id, uid) if not operator else known_job(self, job_id)
        if job.state is not JobState.PENDING:
            raise SlurmError(Strerror.NOT_PENDING)
        req = job.request
        charged = charge(self.associations, self.cfg.accounting_storage_enforce, job.user_name,
                         req.account if account is None else account, req.qos if qos is None else qos,
                         [self.partitions[p] for p in req.partitions or (req.partition,) if p in self.partitions])
        return JobChargeChanged(job.job_id, charged.account, charged.qos)

    def _array_spec(self, text: str) -> ArraySpec:
        """`--array` checked against MaxArraySize (indices 0..MaxArraySize-1) and max_array_tasks."""
        try:
            spec = parse_array_spec(text)
        except ValueError:
            raise SlurmError(Strerror.INVALID_ARRAY) from None
        if spec.indices[-1] >= self.cfg.max_array_size or len(spec.indices) > self.options.max_array_tasks:
            raise SlurmError(Strerror.INVALID_ARRAY)
        return spec

    def _active_job_count(self) -> int:
        """Jobs counted against MaxJobCount: each pending array task counts as one (job_table.py)."""
        return self.jobs.active_count

    def _normalised_gpus(self, req: JobRequest, part: PartitionConfig) -> JobRequest:
        """Every GPU option as GPUs per node, checked against the partition's nodes.

        --gres=gpu[:type]:N and --gpus-per-node=N are per node already; --gpus=N is spread
        over the job's nodes, rounding up (Slurm may place it unevenly; we keep every node the
        same); --gpus-per-task=N is N times the tasks of the busiest node. Combining options,
        or asking for more GPUs (of the type) than any node of the partition has, is refused.
        """
        if sum(1 for given in (req.gpus, req.gpus_per_task, req.gpus_per_node) if given) > 1:
            raise SlurmError(Strerror.INVALID_GRES)
        nodes = max(1, req.min_nodes)
        if req.gpus:
            per_node = math.ceil(req.gpus / nodes)
        elif req.gpus_per_task:
            tasks = max(req.num_tasks, nodes) if req.ntasks_given else nodes
            per_node = req.gpus_per_task * math.ceil(tasks / nodes)
        else:
            per_node = req.gpus_per_node
        if per_node == 0:
            return dataclasses.replace(req, gpus_per_node=0, gpu_type="")
        most = max((sum(1 for kind in self.gpu_types.get(n, {}).values() if not req.gpu_type or kind == req.gpu_type)
                    for n in part.nodes), default=0)
        if per_node > most:
            raise SlurmError(Strerror.INVALID_GRES)
        return dataclasses.replace(req, gpus_per_node=per_node)

    def _resolve_partition(self, name: str) -> PartitionConfig:
        if not name:
            default = next((p for p in self.partitions.values() if p.is_default), None)
            if default is None:
                raise SlurmError(Strerror.NO_DEFAULT_PARTITION)
            part = default
        else:
            if name not in self.partitions:
                raise SlurmError(Strerror.INVALID_PARTITION, f"invalid partition specified: {name}")
            part = self.partitions[name]
        if part.state in ("DRAIN", "INACTIVE"):
            raise SlurmError(Strerror.PARTITION_NOT_AVAIL)
        return part

    def _def_mem_per_cpu(self, part: PartitionConfig | None) -> int:
        if part is not None and part.def_mem_per_cpu_mb is not None:
            return part.def_mem_per_cpu_mb
        return self.cfg.def_mem_per_cpu_mb or 0

    # ---- priority (job_priorities.py) -----------------------------------------------


    def recalculate_priorities(self, now: int) -> None:
        """Fairshare table and every pending job's priority (PriorityCalcPeriod; soft state)."""
        collections.deque(self.priority_recalculation(now), maxlen=0)

    def priority_recalculation(self, now: int) -> Iterator[int]:
        """recalculate_priorities in chunks (JobPriorities.recalculation): the caller may yield between them."""
        self.priorities.refresh_shares(self.associations)
        return self.priorities.recalculation(self.jobs, self.priority_context, now)

    def usage_update(self, now: int) -> UsageRecorded | None:
        """Fairshare usage up to `now`, to journal (priority/multifactor only)."""
        if not self.priorities.settings.multifactor:
            return None
        usage = self.priorities.usage_update(self.jobs.values(), self.associations, now)
        return UsageRecorded(usage.rows(), usage.time)

    def pending_priority_factors(self, now: int) -> list[PriorityFactors]:
        """sprio: the factors of every pending job not held (computed now for a job that has
        none yet, its priority set from them). priority/multifactor only."""
        if not self.priorities.settings.multifactor:
            raise SlurmError(Strerror.DISABLED)
        result = []
        for job in list(self.jobs.values()):
            if job.state is JobState.PENDING and job.hold is Hold.NONE:
                if job.job_id not in self.priorities.factors:
                    self.set_job(dataclasses.replace(job, priority=self.priority_of(job, now)))
                result.append(self.priorities.factors[job.job_id])
        return result

    def fairshare_rows(self, now: int) -> list[ShareRow]:
        """sshare: every association with its usage as of `now`. priority/multifactor only."""
        if not self.priorities.settings.multifactor:
            raise SlurmError(Strerror.DISABLED)
        return self.priorities.live_shares(self.jobs.values(), self.associations, now)

    def priority_change(self, job_id: int, uid: int, operator: bool, priority: str | None,
                        nice: str | None, now: int) -> JobPriorityChanged | JobHoldChanged:
        """`scontrol update jobid=N priority=X nice=Y` by the owner or an operator (rules in
        job_priorities.priority_update)."""
        return priority_update(owned_job(self, job_id, uid), operator or is_privileged(self, uid), priority, nice, now)

    def time_limit_change(self, job_id: int, uid: int, operator: bool, sign: str, text: str) -> JobTimeLimitChanged:
        """`scontrol update jobid=N TimeLimit[+-]=...` by the owner or an operator (rules in
        time_limit_update)."""
        job = owned_job(self, job_id, uid)
        return JobTimeLimitChanged(job.job_id, new_time_limit(job, sign, text, operator or is_privileged(self, uid)))

    def partition_change(self, job_id: int, uid: int, operator: bool, names: str) -> JobPartitionChanged:
        """`scontrol update jobid=N Partition=a[,b]`: the owner or an operator, pending jobs only,
        each partition checked as at submission (self, -w nodes, features, association and
        allow/deny lists, a node that could ever hold the job)."""
        job = owned_job(self, job_id, uid) if not operator else known_job(self, job_id)
        if job.state is not JobState.PENDING:
            raise SlurmError(Strerror.NOT_PENDING)
        parts = [self._resolve_partition(name) for name in names.split(",") if name] or [self._resolve_partition("")]
        req = dataclasses.replace(job.request, partition=parts[0].name,
                                  partitions=tuple(p.name for p in parts) if len(parts) > 1 else ())
        self._check_node_lists(req, tuple(p.name for p in parts))
        features.validated(req.features, frozenset(f for p in parts for n in p.nodes
                                                   if n in self.nodes for f in self.nodes[n].config.features))
        charge(self.associations, self.cfg.accounting_storage_enforce, job.user_name, req.account, req.qos, parts)
        need = scheduler.job_need(req, self._def_mem_per_cpu(parts[0]))
        self._check_some_node_holds(need, (self.nodes[name] for p in parts for name in p.nodes if name in self.nodes))
        return JobPartitionChanged(job.job_id, req.partition, req.partitions)

    def cpu_count_change(self, job_id: int, uid: int, operator: bool, text: str) -> JobCpusChanged:
        """`scontrol update jobid=N NumCPUs=N` of a pending job (owner or operator): N CPUs in all,
        spread evenly over its tasks, on nodes that could hold them."""
        job = owned_job(self, job_id, uid) if not operator else known_job(self, job_id)
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
        part = self.partitions.get(req.partition)
        need = scheduler.job_need(req, self._def_mem_per_cpu(part))
        self._check_some_node_holds(need, (n for n in self.nodes.values()
                                           if part is None or n.config.name in part.nodes))
        return JobCpusChanged(job.job_id, req.cpus_per_task)

    def cancellation(self, job_id: int, uid: int, now: int) -> JobCancelled:
        job = owned_job(self, job_id, uid)
        if job.state.is_finished:
            raise SlurmError(Strerror.ALREADY_DONE)
        pending_reason = str(job.reason) if job.state is JobState.PENDING and job.reason is not Reason.NONE else ""
        return JobCancelled(job.job_id, by_uid=uid, time=now, reason=pending_reason)

    def named_records(self, spec: JobSpec, uid: int) -> tuple[list[Job], tuple[int, ...]]:
        """The records a command-line job id names, and the still-pending array indices it names.

        `123` names job 123, or every record of array 123 when 123 is an array id; `123_5`
        and `123_[1-3]` name tasks of array 123: the records of those that started, the
        indices of those still pending in the master. Raises INVALID_JOB_ID when nothing matches.
        """
        job = owned_job(self, spec.job_id, uid)
        array = job.array
        if array is None or array.array_job_id != job.job_id:
            if spec.tasks is not None:
                raise SlurmError(Strerror.INVALID_JOB_ID)
            return [job], ()
        members = self.array_tasks.get(job.job_id, {})
        if spec.tasks is None:
            records = [self.jobs[j] for j in set(members.values()) | {job.job_id} if j in self.jobs]
            return sorted(records, key=lambda r: r.job_id), ()
        pending = set(array.pending) if array.is_remainder and job.state is JobState.PENDING else set()
        records = [self.jobs[members[t]] for t in spec.tasks if t in members and members[t] in self.jobs]
        named_pending = tuple(t for t in spec.tasks if t in pending)
        if not records and not named_pending:
            raise SlurmError(Strerror.INVALID_JOB_ID)
        return records, named_pending

    def cancellations(self, spec: JobSpec, uid: int, now: int) -> list[Event]:
        """scancel of one command-line id (see `named_records`): one event per record, plus one
        for the pending array indices it names. Raises like `cancellation` when nothing is left to cancel."""
        records, pending = self.named_records(spec, uid)
        active = [r for r in records if not r.state.is_finished]
        if not active and not pending:
            return [self.cancellation(records[0].job_id, uid, now)]   # raises: already done
        events: list[Event] = [self.cancellation(r.job_id, uid, now) for r in active]
        if pending:
            master = self.jobs[JobId(spec.job_id)]
            assert master.array is not None
            # When every pending index goes, the master itself is cancelled as the highest one.
            takes_all = len(pending) == len(master.array.pending)
            ids = [JobId(self.new_job_id()) for _ in pending[:-1]]
            ids.append(master.job_id if takes_all else JobId(self.new_job_id()))
            reason = str(master.reason) if master.reason is not Reason.NONE else ""
            events.append(ArrayTasksCancelled(master.job_id, pending, tuple(ids), uid, now, reason))
        return events


    def signalling(self, job_id: int, uid: int, signal: int, batch_only: bool, full: bool) -> list[Effect]:
        job = owned_job(self, job_id, uid)
        if job.state is not JobState.RUNNING or job.allocation is None:
            raise SlurmError(Strerror.ALREADY_DONE if job.state.is_finished else Strerror.JOB_PENDING)
        return [SignalTasks(job.job_id, job.allocation.nodes, signal, batch_only, full)]

    def step_usage_hosts(self, job_id: int, step_id: str, uid: int) -> tuple[str, ...]:
        """The nodes to ask for the live usage of the job's steps (sstat): the batch host for the
        batch step, a step's nodes for that step, every node of the job for all of its steps;
        none when the job is not running. Only the owner or a privileged user may look."""
        job = owned_job(self, job_id, uid)
        if job.state is not JobState.RUNNING or job.allocation is None:
            return ()
        if step_id == "batch":
            return () if job.request.interactive else (job.allocation.batch_host,)
        if step_id:
            step = job.step(int(step_id)) if step_id.isdigit() else None
            return step.nodes if step is not None and step.running else ()
        return job.allocation.nodes

    def hold_change(self, job_id: int, action: str, uid: int, now: int) -> JobHoldChanged:
        job = owned_job(self, job_id, uid)
        if job.state is not JobState.PENDING:
            raise SlurmError(Strerror.NOT_PENDING)
        privileged = is_privileged(self, uid)
        if action not in ("hold", "uhold", "release"):
            raise SlurmError(Strerror.INVALID_ARGUMENT, f"unknown job action {action}")
        if not privileged and (job.hold is Hold.ADMIN or action == "uhold"):
            raise SlurmError(Strerror.ACCESS_DENIED)  # admin holds and uhold are the admins'
        if action == "release":
            return JobHoldChanged(job.job_id, Hold.NONE, now)
        if action == "uhold" or not privileged:
            return JobHoldChanged(job.job_id, Hold.USER, now)
        return JobHoldChanged(job.job_id, Hold.ADMIN, now)

    def requeue_request(self, job_id: int, uid: int, hold: bool, operator: bool, incomplete: bool,
                        now: int) -> JobRequeueRequested:
        """`scontrol requeue[hold] [Incomplete]`: the owner or an operator (see job_control)."""
        job = owned_job(self, job_id, uid) if not operator else known_job(self, job_id)
        return job_control.requeue_request(job, uid, hold, operator, incomplete, now)

    def suspension(self, job_id: int, uid: int, operator: bool, suspend: bool, now: int) -> JobSuspended | JobResumed:
        """`scontrol suspend|resume`: operators and administrators only. A job whose CPUs others took
        meanwhile (its preemptor) cannot resume: that would double-book them."""
        job = known_job(self, job_id)
        event = job_control.suspension(job, uid, operator, suspend, now)
        if isinstance(event, JobResumed) and job.allocation is not None:
            usage = node_usage(self, )
            if any(set(job.allocation.cpus_on(i)) & usage[node].cpu_ids for i, node in enumerate(job.allocation.nodes)):
                raise SlurmError(Strerror.DISABLED)
        return event


    def schedule_pass(self, now: int) -> list[Event]:
        """Run the scheduler; record pending reasons (soft state). Returns, in commit order:
        dependency parts the pass settled, cancellations of jobs whose dependency can never be
        satisfied (with kill_invalid_depend / --kill-on-invalid-dep), and starts."""
        pending: list[Job] = []
        array_running: dict[JobId, int] = {}
        active_names: set[tuple[int, str]] = set()   # (uid, name) of running jobs, for singleton
        for job in self.jobs.values():
            if job.state is JobState.PENDING:
                pending.append(job)
            elif job.state in (JobState.RUNNING, JobState.SUSPENDED):
                active_names.add((job.uid, job.request.name))
                if job.array is not None:
                    array_running[job.array.array_job_id] = array_running.get(job.array.array_job_id, 0) + 1
        # What earlier preemptions lead to comes first; the pass after those events schedules.
        follow_ups: list[Event] = [*preemption.follow_ups(self.jobs.values(), now), *self._resumes(now)]
        if follow_ups or not pending:
            return follow_ups
        events, ineligible, eligible_tasks = self._dependency_checks().eligibility(pending, active_names, now)
        usage = node_usage(self, )
        capacities = {name: node_capacity(self, name, usage[name]) for name in self.nodes}
        views = {
            p.name: scheduler.PartitionView(p.name, p.nodes, p.state, p.max_time_min, p.max_nodes,
                                            p.min_nodes, p.priority_tier, self._def_mem_per_cpu(p),
                                            p.over_subscribe.upper() == "EXCLUSIVE")
            for p in self.partitions.values()
        }
        gate = limit_gate(self.associations, self.cfg.accounting_storage_enforce, self.jobs.values(),
                          {p.name: p.qos for p in self.partitions.values() if p.qos})
        policy = self.options.backfill
        backfill = None if policy is None else Backfill(policy, capacities, running_jobs(self.jobs.values(), now), now)
        decisions = scheduler.schedule(pending, capacities, views, array_running, ineligible, eligible_tasks, gate,
                                       backfill)
        self.expected = {d.job_id: d.expected for d in decisions
                         if isinstance(d, scheduler.Pend) and d.expected is not None}
        array_starts: dict[JobId, int] = {}
        for decision in decisions:
            if isinstance(decision, scheduler.Start) and decision.array_task_id is not None:
                array_starts[decision.job_id] = array_starts.get(decision.job_id, 0) + 1
        for decision in decisions:
            if isinstance(decision, scheduler.Start) and decision.array_task_id is not None:
                events.append(self._array_task_start(decision, decision.array_task_id,
                                                     array_starts[decision.job_id], now))
            elif isinstance(decision, scheduler.Start):
                events.append(JobStarted(decision.job_id, decision.allocation, now, decision.partition or ""))
            else:
                job = self.jobs[decision.job_id]
                if job.reason is not decision.reason:
                    self.jobs[job.job_id] = dataclasses.replace(job, reason=decision.reason)
        if self.preempt_policy.config.enabled:
            policy = self.preempt_policy
            if policy.config.preempt_type == "preempt/qos":   # QOS come from accounting (soft state)
                policy = dataclasses.replace(policy, qos=preemption.qos_table(self.associations.qos))
            holding = [j for j in self.jobs.values() if j.allocation is not None
                       and (j.state is JobState.RUNNING or j.completing)]
            events += [JobPreempted(p.victim, p.preemptor, p.mode.value, now, p.grace)
                       for p in preemption.plan(decisions, {j.job_id: j for j in pending}, holding, capacities,
                                                views, policy, now)]
        return events

    def _resumes(self, now: int) -> list[JobResumed]:
        """Jobs suspended by preemption that may run again (their preemptor ended, their CPUs are free)."""
        suspended = [j for j in self.jobs.values() if j.state is JobState.SUSPENDED and j.preemption is not None]
        if not suspended:
            return []
        usage = node_usage(self, )
        capacities = {name: node_capacity(self, name, usage[name]) for name in self.nodes}
        active = {j.job_id: j for j in self.jobs.values() if j.is_active}
        return [JobResumed(r.job_id, now) for r in preemption.resumable(suspended, active, capacities)]

    def _array_task_start(self, start: scheduler.Start, task_id: int, starting: int, now: int) -> ArrayTaskStarted:
        """A task split off its array's master under a new id; the master itself runs the last
        pending index, when this pass starts all `starting` that are left."""
        master = self.jobs[start.job_id]
        assert master.array is not None
        last = task_id == master.array.pending[-1] and starting == len(master.array.pending)
        job_id = master.job_id if last else JobId(self.new_job_id())
        return ArrayTaskStarted(master.job_id, task_id, job_id, start.allocation, now, start.partition or "")

    def timeouts(self, now: int) -> list[JobTimedOut]:
        """Running jobs past TimeLimit + OverTimeLimit minutes."""
        grace = self._over_time_limit()
        if grace == UNLIMITED:
            return []
        over = []
        for job in self.jobs.values():
            limit = job.request.time_limit_min
            if (job.state is JobState.RUNNING and limit != UNLIMITED
                    and now >= job.start_time + job.suspended_secs + (limit + grace) * 60):
                over.append(JobTimedOut(job.job_id, now))
        return over

    def _over_time_limit(self) -> int:
        value = (self.cfg.value("OverTimeLimit") or "0").upper()
        if value in ("UNLIMITED", "INFINITE"):
            return UNLIMITED
        return int(value) if value.isdigit() else 0

    def signals_due(self, now: int) -> list[Effect]:
        """--signal=[B:]SIG@secs: once per run, `secs` before the time limit (soft state: a
        restarted controller may send it again, which a warning signal tolerates)."""
        effects: list[Effect] = []
        for job in self.jobs.values():
            req = job.request
            if (job.state is not JobState.RUNNING or not req.signal_number or req.time_limit_min == UNLIMITED
                    or job.allocation is None or (job.job_id, job.start_time) in self.signalled):
                continue
            if now >= job.start_time + req.time_limit_min * 60 - req.signal_seconds:
                self.signalled.add((job.job_id, job.start_time))
                effects.append(SignalTasks(job.job_id, job.allocation.nodes, req.signal_number,
                                           batch_only=req.signal_batch_only, full=False))
        return effects

    def unresponsive_nodes(self, now: float) -> list[NodeFailed]:
        timeout = self.cfg.slurmd_timeout
        if timeout <= 0:
            return []
        return [NodeFailed(rec.name, "Not responding", int(now)) for rec in self.nodes.values()
                if rec.registered and rec.responding and now - rec.last_seen > timeout]

    def purgeable(self, now: int) -> JobsPurged | None:
        age = self.cfg.min_job_age
        if age <= 0:
            return None
        old = tuple(j.job_id for j in self.jobs.values()
                    if j.state.is_finished and not j.completing and j.end_time and now - j.end_time >= age)
        return JobsPurged(old) if old else None

    # ---- interactive work (srun, salloc) ----------------------------------------

    def allocation_of(self, job_id: int, uid: int) -> Job:
        """The job srun or salloc waits for (owner or privileged only)."""
        return owned_job(self, job_id, uid)

    def step_creation(self, job_id: int, uid: int, shape: StepShape, name: str, argv: tuple[str, ...],
                      now: int) -> StepStarted:
        """A new step of a running job, placed in its allocation. Raises SlurmError when the step
        can never run, step_layout.StepBusy when other steps hold what it needs now."""
        job = owned_job(self, job_id, uid)
        if job.uid != uid and uid != 0:
            raise SlurmError(Strerror.ACCESS_DENIED)   # steps run as the job's user: only they (or root) make them
        if job.state is JobState.PENDING:
            raise SlurmError(Strerror.JOB_PENDING)
        if job.state is not JobState.RUNNING or job.allocation is None:
            raise SlurmError(Strerror.ALREADY_DONE)
        placement = place_step(job.allocation, job.running_steps, shape)
        step = Step(step_id=job.next_step_id, name=name, nodes=placement.nodes,
                    tasks_per_node=placement.tasks_per_node, cpu_ids=placement.cpu_ids, start_time=now,
                    argv=argv, waiting_on=placement.nodes)
        return StepStarted(job.job_id, step)

    def step_termination(self, job_id: int, step_id: int, uid: int) -> list[Effect]:
        """scancel J.S: end one running step (its nodes report how it ended)."""
        job, step = self._running_step(job_id, step_id, uid)
        return [Terminate(job.job_id, step.nodes, "CANCELLED", step=str(step_id))]

    def step_signalling(self, job_id: int, step_id: int, uid: int, signal: int) -> list[Effect]:
        job, step = self._running_step(job_id, step_id, uid)
        return [SignalTasks(job.job_id, step.nodes, signal, batch_only=False, full=False, step=str(step_id))]

    def _running_step(self, job_id: int, step_id: int, uid: int) -> tuple[Job, Step]:
        job = owned_job(self, job_id, uid)
        step = job.step(step_id)
        if step is None:
            raise SlurmError(Strerror.INVALID_JOB_ID)
        if not step.running:
            raise SlurmError(Strerror.ALREADY_DONE)
        return job, step

    def release(self, job_id: int, uid: int, exit_code: int, exit_signal: int, now: int) -> AllocationReleased:
        """salloc is done with its allocation (or srun could not use it)."""
        job = owned_job(self, job_id, uid)
        if job.state.is_finished:
            raise SlurmError(Strerror.ALREADY_DONE)
        return AllocationReleased(job.job_id, exit_code, exit_signal, now)

    # ---- soft state -----------------------------------------------------------

    def node_registered(self, name: str, now: float, cpus: int, real_memory_mb: int, gpus: int = 0,
                        **reported: object) -> NodeRecord:
        rec = self.nodes.get(name)
        if rec is None:
            raise SlurmError(Strerror.INVALID_NODE_NAME, f"node {name} is not in slurm.conf")
        for key, value in reported.items():
            setattr(rec, key, value)
        rec.registered = rec.responding = True
        rec.last_seen = now
        problem = _registration_problem(rec, cpus, real_memory_mb, gpus, len(self.gpu_types.get(name, {})))
        if problem:
            log.error("node=%s invalid registration: %s", name, problem)
            rec.down = True
            rec.set_reason(problem, 0, int(now))
        elif rec.down and rec.reason.startswith(_REGISTRATION_REASONS):
            rec.down = False
            rec.clear_reason()
        elif rec.down and rec.reason == "Not responding" and self._return_to_service() >= 1:
            rec.down = False
            rec.clear_reason()
        elif rec.down and self._return_to_service() >= 2:
            rec.down = False
            rec.clear_reason()
        return rec

    def _return_to_service(self) -> int:
        value = self.cfg.value("ReturnToService") or "0"
        return int(value) if value.isdigit() else 0

    def node_heartbeat(self, name: str, now: float, cpu_load: float, free_memory_mb: int) -> None:
        rec = self.nodes.get(name)
        if rec is None or not rec.registered:
            raise SlurmError(Strerror.INVALID_NODE_NAME, f"node {name} must register first")
        rec.last_seen, rec.cpu_load, rec.free_memory_mb = now, cpu_load, free_memory_mb
        rec.responding = True

    # ---- the update -------------------------------------------------------------

    def apply(self, event: Event) -> list[Effect]:
        return apply(self, event)


def _array_info(job_id: JobId, indices: tuple[int, ...], throttle: int) -> ArrayInfo:
    """The master's array record at submission: every index pending."""
    steps = {b - a for a, b in zip(indices, indices[1:])}
    return ArrayInfo(array_job_id=job_id, task_id=None, pending=indices, throttle=throttle,
                     task_count=len(indices), task_min=indices[0], task_max=indices[-1],
                     task_step=steps.pop() if len(steps) == 1 else 1)


_LOW_PREFIX = "Low "
_GRES_PREFIX = "gres/"
_REGISTRATION_REASONS = (_LOW_PREFIX, _GRES_PREFIX)   # reasons a good registration clears


def _registration_problem(rec: NodeRecord, cpus: int, real_memory_mb: int, gpus: int,
                          configured_gpus: int) -> str:
    """Slurm's check: a node must have at least what slurm.conf promises."""
    cfg = rec.config
    if gpus < configured_gpus:
        return f"{_GRES_PREFIX}gpu count reported lower than configured ({gpus} < {configured_gpus})"
    if cpus < cfg.cpus:
        return f"{_LOW_PREFIX}CPUs (reported:{cpus} < configured:{cfg.cpus})"
    if real_memory_mb < cfg.real_memory_mb:
        return (f"{_LOW_PREFIX}RealMemory (reported:{real_memory_mb} < 100.00% of "
                f"configured:{cfg.real_memory_mb})")
    return ""
