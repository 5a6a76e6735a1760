"""The scheduling pass over the cluster state: the snapshot a pass reads (`pass_snapshot`), and
its plan (pass_plan.py) adopted: pending reasons, backfill's expected starts and the ids array
tasks took are soft state written here; the events are for the shell to commit.
"""
from __future__ import annotations

import dataclasses

from ..sched import scheduler
from ..model.events import Event
from ..model.job import JobState
from ..sched.pass_plan import PassPlan, PassSnapshot, plan
from .admission import def_mem_per_cpu, dependency_checks
from .state import ClusterState
from .usage import node_capacity, node_usage


def pass_snapshot(state: ClusterState, now: int) -> PassSnapshot:
    """What a pass at `now` reads of the state. Node capacities are worked out only when a job
    waits for resources (pending, or suspended by preemption)."""
    in_play = state.jobs.in_play()
    waiting = any(job.state is JobState.PENDING or (job.state is JobState.SUSPENDED and job.preemption is not None)
                  for job in in_play)
    usage = node_usage(state) if waiting else {}
    return PassSnapshot(
        now=now, jobs=state.jobs, in_play=in_play, dependencies=dependency_checks(state),
        capacities={name: node_capacity(state, name, usage[name]) for name in usage},
        partitions=partition_views(state),
        partition_qos={p.name: p.qos for p in state.partitions.values() if p.qos},
        associations=state.associations, enforce=state.cfg.accounting_storage_enforce,
        licenses=dict(state.cfg.licenses), reservations=state.reservations, backfill=state.options.backfill,
        preempt=state.preempt_policy, next_job_id=state.next_job_id)


def partition_views(state: ClusterState) -> dict[str, scheduler.PartitionView]:
    """The partitions as the scheduler sees them."""
    return {p.name: scheduler.PartitionView(p.name, p.nodes, p.state, p.max_time_min, p.max_nodes, p.min_nodes,
                                            p.priority_tier, def_mem_per_cpu(state, p),
                                            p.over_subscribe.upper() == "EXCLUSIVE")
            for p in state.partitions.values()}


def adopt(state: ClusterState, decided: PassPlan) -> list[Event]:
    """Keep the plan's soft state; return its events, in commit order. The ids its array tasks
    take are held from now, so a submission before their events are applied gets another."""
    for job_id, reason in decided.reasons.items():
        state.jobs[job_id] = dataclasses.replace(state.jobs[job_id], reason=reason)
    if decided.expected is not None:
        state.expected = dict(decided.expected)
    state.next_job_id = max(state.next_job_id, decided.next_job_id)
    return list(decided.events)


def schedule_pass(state: ClusterState, now: int) -> list[Event]:
    """One pass: snapshot, plan, adopt. Returns the events to commit: what earlier preemptions
    lead to; or dependency parts settled, jobs cancelled for a dependency never satisfied
    (kill_invalid_depend / --kill-on-invalid-dep), starts and preemptions."""
    return adopt(state, plan(pass_snapshot(state, now)))
