"""The scheduling pass over the cluster state: builds the scheduler's inputs (pending jobs,
free capacity, partition views, limits, backfill), runs it with preemption, records pending
reasons and backfill's expectations (soft state) and returns the events to commit.
"""
from __future__ import annotations

import dataclasses

from .. import preemption, scheduler
from ..backfill import Backfill, running_jobs
from ..events import ArrayTaskStarted, Event, JobPreempted, JobResumed, JobStarted
from ..job import Job, JobId, JobState
from ..license_gate import license_gate
from ..limits import limit_gate
from ..reservation_fence import fences
from .admission import def_mem_per_cpu, dependency_checks
from .state import ClusterState
from .usage import node_capacity, node_usage


def schedule_pass(state: ClusterState, now: int) -> list[Event]:
    """Run the scheduler; record pending reasons (soft state). Returns, in commit order:
    dependency parts the pass settled, cancellations of jobs whose dependency can never be
    satisfied (with kill_invalid_depend / --kill-on-invalid-dep), and starts."""
    pending: list[Job] = []
    array_running: dict[JobId, int] = {}
    active_names: set[tuple[int, str]] = set()   # (uid, name) of running jobs, for singleton
    for job in state.jobs.values():
        if job.state is JobState.PENDING:
            pending.append(job)
        elif job.state in (JobState.RUNNING, JobState.SUSPENDED):
            active_names.add((job.uid, job.request.name))
            if job.array is not None:
                array_running[job.array.array_job_id] = array_running.get(job.array.array_job_id, 0) + 1
    # What earlier preemptions lead to comes first; the pass after those events schedules.
    follow_ups: list[Event] = [*preemption.follow_ups(state.jobs.values(), now), *_resumes(state, now)]
    if follow_ups or not pending:
        return follow_ups
    events, ineligible, eligible_tasks = dependency_checks(state).eligibility(pending, active_names, now)
    usage = node_usage(state)
    capacities = {name: node_capacity(state, name, usage[name]) for name in state.nodes}
    views = {
        p.name: scheduler.PartitionView(p.name, p.nodes, p.state, p.max_time_min, p.max_nodes,
                                        p.min_nodes, p.priority_tier, def_mem_per_cpu(state, p),
                                        p.over_subscribe.upper() == "EXCLUSIVE")
        for p in state.partitions.values()
    }
    gate = license_gate(dict(state.cfg.licenses), state.jobs.values(),
                        limit_gate(state.associations, state.cfg.accounting_storage_enforce, state.jobs.values(),
                                   {p.name: p.qos for p in state.partitions.values() if p.qos}))
    policy = state.options.backfill
    backfill = None if policy is None else Backfill(policy, capacities, running_jobs(state.jobs.values(), now), now)
    fenced = fences(pending, state.reservations, state.nodes, now)
    decisions = scheduler.schedule(pending, capacities, views, array_running, ineligible, eligible_tasks, gate,
                                   backfill, fenced)
    state.expected = {d.job_id: d.expected for d in decisions
                     if isinstance(d, scheduler.Pend) and d.expected is not None}
    array_starts: dict[JobId, int] = {}
    for decision in decisions:
        if isinstance(decision, scheduler.Start) and decision.array_task_id is not None:
            array_starts[decision.job_id] = array_starts.get(decision.job_id, 0) + 1
    for decision in decisions:
        if isinstance(decision, scheduler.Start) and decision.array_task_id is not None:
            events.append(_array_task_start(state, decision, decision.array_task_id,
                                                 array_starts[decision.job_id], now))
        elif isinstance(decision, scheduler.Start):
            events.append(JobStarted(decision.job_id, decision.allocation, now, decision.partition or "",
                                     decision.time_limit_min))
        else:
            job = state.jobs[decision.job_id]
            if job.reason is not decision.reason:
                state.jobs[job.job_id] = dataclasses.replace(job, reason=decision.reason)
    if state.preempt_policy.config.enabled:
        policy = state.preempt_policy
        if policy.config.preempt_type == "preempt/qos":   # QOS come from accounting (soft state)
            policy = dataclasses.replace(policy, qos=preemption.qos_table(state.associations.qos))
        holding = [j for j in state.jobs.values() if j.allocation is not None
                   and (j.state is JobState.RUNNING or j.completing)]
        events += [JobPreempted(p.victim, p.preemptor, p.mode.value, now, p.grace)
                   for p in preemption.plan(decisions, {j.job_id: j for j in pending}, holding, capacities,
                                            views, policy, now, fenced)]
    return events

def _resumes(state: ClusterState, now: int) -> list[JobResumed]:
    """Jobs suspended by preemption that may run again (their preemptor ended, their CPUs are free)."""
    suspended = [j for j in state.jobs.values() if j.state is JobState.SUSPENDED and j.preemption is not None]
    if not suspended:
        return []
    usage = node_usage(state)
    capacities = {name: node_capacity(state, name, usage[name]) for name in state.nodes}
    active = {j.job_id: j for j in state.jobs.values() if j.is_active}
    return [JobResumed(r.job_id, now) for r in preemption.resumable(suspended, active, capacities)]

def _array_task_start(state: ClusterState, start: scheduler.Start, task_id: int, starting: int, now: int) -> ArrayTaskStarted:
    """A task split off its array's master under a new id; the master itself runs the last
    pending index, when this pass starts all `starting` that are left."""
    master = state.jobs[start.job_id]
    assert master.array is not None
    last = task_id == master.array.pending[-1] and starting == len(master.array.pending)
    job_id = master.job_id if last else JobId(state.new_job_id())
    return ArrayTaskStarted(master.job_id, task_id, job_id, start.allocation, now, start.partition or "")
