"""JobManager: the cluster state with every decider as a method, for the callers (controller,
servicer, convert, metrics, tests) written against it before the core was split by concern.

Each decider lives in its own module of core/ and is only named here; what is still written
here is the scheduling pass (to move to sched/ as a returned plan) and reconfigure. `apply`
(core/apply.py) is the update.
"""
from __future__ import annotations

import dataclasses

from pyslurm_common.config import SlurmConfig
from pyslurm_common.errors import SlurmError, Strerror

from . import preemption, reconfigure, scheduler
from .backfill import Backfill, running_jobs
from .core import access, admission, cancel, job_updates, priorities, steps, timers, topology, usage
from .core.admission import def_mem_per_cpu, dependency_checks
from .core.apply import apply
from .core.state import ClusterState
from .core.usage import node_capacity, node_usage
from .events import ArrayTaskStarted, Effect, Event, JobPreempted, JobResumed, JobStarted
from .job import Job, JobId, JobState
from .license_gate import license_gate
from .limits import limit_gate
from .reservation_fence import fences


class JobManager(ClusterState):
    """The deciders over the cluster state, by the names their callers use."""

    is_privileged = access.is_privileged
    submission = admission.submission
    node_usage = usage.node_usage
    node_capacity = usage.node_capacity

    dependency_change = job_updates.dependency_change
    throttle_change = job_updates.throttle_change
    begin_change = job_updates.begin_change
    charge_change = job_updates.charge_change
    priority_change = job_updates.priority_change
    time_limit_change = job_updates.time_limit_change
    partition_change = job_updates.partition_change
    cpu_count_change = job_updates.cpu_count_change
    hold_change = job_updates.hold_change
    requeue_request = job_updates.requeue_request
    suspension = job_updates.suspension

    cancellation = cancel.cancellation
    named_records = cancel.named_records
    cancellations = cancel.cancellations
    signalling = cancel.signalling

    allocation_of = steps.allocation_of
    step_creation = steps.step_creation
    step_termination = steps.step_termination
    step_signalling = steps.step_signalling
    release = steps.release
    step_usage_hosts = steps.step_usage_hosts
    step_attachment = steps.step_attachment

    timeouts = timers.timeouts
    signals_due = timers.signals_due
    unresponsive_nodes = timers.unresponsive_nodes
    purgeable = timers.purgeable

    node_creation = topology.node_creation
    partition_edit = topology.partition_edit
    node_deletion = topology.node_deletion
    node_registered = topology.node_registered
    node_heartbeat = topology.node_heartbeat

    recalculate_priorities = priorities.recalculate_priorities
    priority_recalculation = priorities.priority_recalculation
    usage_update = priorities.usage_update
    pending_priority_factors = priorities.pending_priority_factors
    fairshare_rows = priorities.fairshare_rows

    def apply(self, event: Event) -> list[Effect]:
        return apply(self, event)

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
        gate = license_gate(dict(self.cfg.licenses), self.jobs.values(),
                            limit_gate(self.associations, self.cfg.accounting_storage_enforce, self.jobs.values(),
                                       {p.name: p.qos for p in self.partitions.values() if p.qos}))
        policy = self.options.backfill
        backfill = None if policy is None else Backfill(policy, capacities, running_jobs(self.jobs.values(), now), now)
        fenced = fences(pending, self.reservations, self.nodes, now)
        decisions = scheduler.schedule(pending, capacities, views, array_running, ineligible, eligible_tasks, gate,
                                       backfill, fenced)
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
                events.append(JobStarted(decision.job_id, decision.allocation, now, decision.partition or "",
                                         decision.time_limit_min))
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
                                                views, policy, now, fenced)]
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
