"""One scheduling pass as a returned plan: `plan(snapshot) -> PassPlan`, as Nomad's scheduler.

The snapshot is what the pass reads (the jobs, each node's free resources, the partitions as
the scheduler sees them, accounting's limits, licenses, reservations, the backfill and
preemption policies, `now`); the plan is what it decided, for the core to commit
(core/scheduling.py): the events in commit order and the soft state it leaves (pending
reasons, backfill's expected starts). Pure: nothing here changes the snapshot.

A pass does one of two things. When earlier preemptions have consequences due (a victim's
grace time is over, a requeued run's processes are gone, a suspended job may resume), it
returns only those: the next pass schedules on what they free. Otherwise it settles
dependencies, runs the priority walk with backfill (scheduler.py) and picks preemption
victims for the jobs still waiting (preemption.py).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Collection, Mapping, Protocol

from . import preemption, scheduler
from ..model.associations import AssociationSnapshot
from .backfill import Backfill, Reservation, running_jobs
from ..settings.sched_params import BackfillPolicy
from ..model.events import ArrayTaskStarted, Event, JobPreempted, JobResumed, JobStarted
from ..model.job import Job, JobId, JobState, Reason
from .license_gate import license_gate
from .limits import limit_gate
from .node_fit import NodeCapacity
from .reservation_fence import Fence, fences, windows_ahead
from .standing_memo import StandingMemo
from ..model.reservations import ReservationRecord


# Each pending job's standing in its partitions, from one main pass to the next (standing_memo.py).
_STANDINGS: StandingMemo[scheduler.Standing] = StandingMemo()


class Eligibility(Protocol):
    """Begin times and dependencies (the core's dependency_checks.DependencyChecks)."""

    def eligibility(self, pending: list[Job], active_names: set[tuple[int, str]],
                    now: int) -> tuple[list[Event], dict[JobId, Reason], dict[JobId, tuple[int, ...]]]:
        """Events that settle dependency parts or cancel jobs whose dependency failed, the
        reasons pending jobs may not start yet, the array indices aftercorr lets start."""


@dataclass(frozen=True, slots=True)
class PassSnapshot:
    """What one pass reads. `jobs` is read, never written; `capacities` is empty when no job
    waits (none pending, none suspended by preemption): such a pass has nothing to place.
    `in_play` is what the pass walks: `jobs` less those finished for good (job_table.in_play),
    which only dependencies look up, by id."""

    now: int
    jobs: Mapping[JobId, Job]
    in_play: Collection[Job]
    dependencies: Eligibility               # over the same jobs
    capacities: Mapping[str, NodeCapacity]  # every node, what is free on it now
    partitions: Mapping[str, scheduler.PartitionView]
    partition_qos: Mapping[str, str]        # partition -> its QOS= (limits)
    associations: AssociationSnapshot
    enforce: frozenset[str]                 # AccountingStorageEnforce
    licenses: Mapping[str, int]             # Licenses= of slurm.conf
    reservations: Mapping[str, ReservationRecord]
    backfill: BackfillPolicy | None         # None: sched/builtin without backfill
    preempt: preemption.Policy
    next_job_id: int                        # the first id a split-off array task may take


@dataclass(frozen=True, slots=True)
class PassPlan:
    """What one pass decided."""

    events: tuple[Event, ...]               # in commit order
    reasons: Mapping[JobId, Reason]         # pending jobs whose reason changed
    expected: Mapping[JobId, Reservation] | None   # backfill's expected starts; None: not scheduled, keep
    next_job_id: int                        # past the ids the array tasks started here took


def plan(snapshot: PassSnapshot) -> PassPlan:
    """Decide one pass (see the module's docstring)."""
    now, jobs, in_play = snapshot.now, snapshot.jobs, snapshot.in_play
    pending: list[Job] = []
    others: list[Job] = []                       # every job not pending: what preemption follows up
    suspended: list[Job] = []
    array_running: dict[JobId, int] = {}
    active_names: set[tuple[int, str]] = set()   # (uid, name) of running jobs, for singleton
    is_pending, running, is_suspended = JobState.PENDING, JobState.RUNNING, JobState.SUSPENDED
    for job in in_play:
        state = job.state
        if state is is_pending:
            pending.append(job)
            continue
        others.append(job)
        if state is running or state is is_suspended:
            active_names.add((job.uid, job.request.name))
            if job.array is not None:
                array_running[job.array.array_job_id] = array_running.get(job.array.array_job_id, 0) + 1
            if state is is_suspended:
                suspended.append(job)
    # What earlier preemptions lead to comes first; the pass after those events schedules.
    follow_ups: list[Event] = [*preemption.follow_ups(others, now), *_resumes(snapshot, suspended)]
    if follow_ups or not pending:
        return PassPlan(tuple(follow_ups), {}, None, snapshot.next_job_id)
    events, ineligible, eligible_tasks = snapshot.dependencies.eligibility(pending, active_names, now)
    gate = license_gate(snapshot.licenses, in_play,
                        limit_gate(snapshot.associations, snapshot.enforce, in_play, snapshot.partition_qos),
                        snapshot.reservations.values(), now)
    backfill = None if snapshot.backfill is None else \
        Backfill(snapshot.backfill, snapshot.capacities, running_jobs(in_play, now), now)
    if backfill is not None:
        for nodes, start, end in windows_ahead(snapshot.reservations, now):
            backfill.hold_for_reservation(nodes, start, end)
    fenced = fences(pending, snapshot.reservations, snapshot.capacities, now)
    decisions = scheduler.schedule(pending, snapshot.capacities, snapshot.partitions, array_running, ineligible,
                                   eligible_tasks, gate, backfill, fenced, _STANDINGS)
    # One walk over the decisions (one per pending job) for what pends; the starts are few.
    expected: dict[JobId, Reservation] = {}
    reasons: dict[JobId, Reason] = {}
    starts: list[scheduler.Start] = []
    pend = scheduler.Pend
    for decision in decisions:
        if isinstance(decision, pend):
            if decision.expected is not None:
                expected[decision.job_id] = decision.expected
            if jobs[decision.job_id].reason is not decision.reason:
                reasons[decision.job_id] = decision.reason
        else:
            starts.append(decision)
    starting: dict[JobId, int] = {}   # array -> how many of its tasks this pass starts
    for decision in starts:
        if decision.array_task_id is not None:
            starting[decision.job_id] = starting.get(decision.job_id, 0) + 1
    next_job_id = snapshot.next_job_id
    for decision in starts:
        if decision.array_task_id is not None:
            master = jobs[decision.job_id]
            assert master.array is not None
            # A task splits off its array's master under a new id; the master itself runs the
            # last pending index, when this pass starts all that are left.
            last = decision.array_task_id == master.array.pending[-1] \
                and starting[decision.job_id] == len(master.array.pending)
            job_id = master.job_id if last else JobId(next_job_id)
            next_job_id += 0 if last else 1
            events.append(ArrayTaskStarted(master.job_id, decision.array_task_id, job_id, decision.allocation, now,
                                           decision.partition or ""))
        else:
            events.append(JobStarted(decision.job_id, decision.allocation, now, decision.partition or "",
                                     decision.time_limit_min))
    events += _preemptions(snapshot, decisions, pending, fenced)
    return PassPlan(tuple(events), reasons, expected, next_job_id)


def _preemptions(snapshot: PassSnapshot, decisions: list[scheduler.Decision], pending: list[Job],
                 fenced: Mapping[JobId, Fence]) -> list[Event]:
    """Victims for the jobs this pass leaves waiting, when preemption is on."""
    policy = snapshot.preempt
    if not policy.config.enabled:
        return []
    if policy.config.preempt_type == "preempt/qos":   # QOS come from accounting (soft state)
        policy = dataclasses.replace(policy, qos=preemption.qos_table(snapshot.associations.qos))
    holding = [j for j in snapshot.in_play if j.allocation is not None
               and (j.state is JobState.RUNNING or j.completing)]
    return [JobPreempted(p.victim, p.preemptor, p.mode.value, snapshot.now, p.grace)
            for p in preemption.plan(decisions, {j.job_id: j for j in pending}, holding, snapshot.capacities,
                                     snapshot.partitions, policy, snapshot.now, fenced)]


def _resumes(snapshot: PassSnapshot, suspended_jobs: list[Job]) -> list[JobResumed]:
    """Jobs suspended by preemption that may run again (their preemptor ended, their CPUs are free)."""
    suspended = [j for j in suspended_jobs if j.preemption is not None]
    if not suspended:
        return []
    active = {j.job_id: j for j in snapshot.in_play if j.is_active}
    return [JobResumed(r.job_id, snapshot.now) for r in preemption.resumable(suspended, active, snapshot.capacities)]
