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
from typing import Iterable, Iterator

from pyslurm_common.array_spec import JobSpec
from pyslurm_common.bounds import ARRAY_THROTTLE, CPU_COUNT, CPUS_PER_TASK, OutOfRange
from pyslurm_common.config import NodeConfig, SlurmConfig
from pyslurm_common.errors import SlurmError, Strerror

from . import features, job_control, partition_admin, preemption, reconfigure, scheduler
from .association_checks import charge
from .backfill import Backfill, running_jobs
from .events import (AllocationReleased, ArrayTaskStarted, ArrayTasksCancelled, ArrayThrottleChanged,
                     BeginTimeChanged, DependencyChanged, Effect, Event, JobCancelled, JobChargeChanged,
                     JobHoldChanged, JobPreempted, JobRequeueRequested, JobResumed, JobStarted, JobSuspended,
                     JobTimedOut, JobsPurged, NodeCreated, NodeFailed, NodesDeleted, PartitionEdited, SignalTasks,
                     StepStarted, Terminate)
from .events import JobCpusChanged, JobPartitionChanged, JobPriorityChanged, JobTimeLimitChanged, UsageRecorded
from .job import Hold, Job, JobId, JobState, Reason, Step
from .fairshare import ShareRow
from .job_priorities import priority_update
from .nodes import NodeRecord
from .priority import PriorityFactors
from .limits import limit_gate
from .step_layout import StepShape, place_step
from .time_limit_update import new_time_limit
from .core import access
from .core.access import is_privileged, owned_job, known_job
from .core import usage
from .core.usage import node_usage, node_capacity
from .core import admission
from .core.admission import check_some_node_holds, check_node_lists, dependency_checks, resolve_partition, def_mem_per_cpu
from .core.apply import apply
from .core.state import ClusterState

log = logging.getLogger(__name__)

UNLIMITED = -1


class JobManager(ClusterState):
    """The deciders over the cluster state, until each concern has its own module."""

    submission = admission.submission

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


    def dependency_change(self, job_id: int, text: str, uid: int) -> DependencyChanged:
        """`scontrol update jobid=N dependency=...` ("" clears it): the owner or an admin, pending jobs only."""
        job = owned_job(self, job_id, uid)
        if job.state is not JobState.PENDING:
            raise SlurmError(Strerror.NOT_PENDING)
        return DependencyChanged(job.job_id, dependency_checks(self).parsed(text, job.job_id) if text else None)

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
        parts = [resolve_partition(self, name) for name in names.split(",") if name] or [resolve_partition(self, "")]
        req = dataclasses.replace(job.request, partition=parts[0].name,
                                  partitions=tuple(p.name for p in parts) if len(parts) > 1 else ())
        check_node_lists(self, req, tuple(p.name for p in parts))
        features.validated(req.features, frozenset(f for p in parts for n in p.nodes
                                                   if n in self.nodes for f in self.nodes[n].config.features))
        charge(self.associations, self.cfg.accounting_storage_enforce, job.user_name, req.account, req.qos, parts)
        need = scheduler.job_need(req, def_mem_per_cpu(self, parts[0]))
        check_some_node_holds(need, (self.nodes[name] for p in parts for name in p.nodes if name in self.nodes))
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
        need = scheduler.job_need(req, def_mem_per_cpu(self, part))
        check_some_node_holds(need, (n for n in self.nodes.values()
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
            usage = node_usage(self)
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
        events, ineligible, eligible_tasks = dependency_checks(self).eligibility(pending, active_names, now)
        usage = node_usage(self)
        capacities = {name: node_capacity(self, name, usage[name]) for name in self.nodes}
        views = {
            p.name: scheduler.PartitionView(p.name, p.nodes, p.state, p.max_time_min, p.max_nodes,
                                            p.min_nodes, p.priority_tier, def_mem_per_cpu(self, p),
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
        usage = node_usage(self)
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
