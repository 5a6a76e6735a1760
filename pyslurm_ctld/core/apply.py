"""The one mutator: `apply(state, event) -> effects`.

Every journaled event changes the cluster state only here, and returns the effects (launch,
terminate, account, ...) for the shell to perform. Replaying the journal calls the same `apply`,
so recovery has no second code path. A handler whose job has moved on since the event was decided
(cancelled, started, ended) changes nothing: decisions race with node reports.
"""
from __future__ import annotations

import dataclasses
import logging
from typing import Any

from ..sched import features
from . import node_reconcile
from ..model import preempt_transitions
from ..model.events import (Account, AllocationReleased, ArrayTasksCancelled, ArrayTaskStarted, ArrayThrottleChanged,
                            BatchFinished, BeginTimeChanged, DependencyChanged, Effect, Event, JobCancelled,
                            JobChargeChanged, JobCpusChanged, JobDeadlineMissed, JobHoldChanged, JobIdsUsed, JobLost, JobPartitionChanged,
                            JobPreempted, JobPriorityChanged, JobRequeued, JobRequeueRequested, JobResumed, JobsPurged,
                            JobStarted, JobSubmitted, JobSuspended, JobTimedOut, JobTimeLimitChanged, Launch,
                            NodeAdminChanged, NodeCreated, NodeNotesChanged, NodeFailed, NodesDeleted, PartitionEdited,
                            ReservationDeleted,
                            ReservationSaved, RecordReservation, JobReservationChanged, JobLicensesChanged, JobCommentChanged,
                            StepFinished,
                            StepStarted, TellAllocatingClient, Terminate, TriggerFired, TriggerIdsUsed, TriggersCleared,
                            TriggerSet, RunTrigger, UsageRecorded)
from ..sched.fairshare import Usage
from ..sched.preemption import requeueable
from ..model.job import Allocation, ArrayInfo, Hold, Job, JobId, JobState, Reason
from ..model.job_steps import node_gone_from_steps, settled, step_part_ended, terminate_steps
from ..model.states import transition
from .state import ClusterState

log = logging.getLogger(__name__)

OOM_EXIT_SIGNAL = 125
MAX_BATCH_REQUEUE = 5      # launch-failure requeues before the job fails (Slurm's MAX_BATCH_REQUEUE)


def apply(state: ClusterState, event: Event) -> list[Effect]:
    """The update: `event` applied to `state`, returning the effects for the shell to perform.
    Live commits and journal replay both come here, so a restart rebuilds the same state."""
    handler = _APPLY[type(event)]
    return handler(state, event)  # type: ignore[operator]


def _apply_submitted(state: ClusterState, event: JobSubmitted) -> list[Effect]:
    job = state.set_job(event.job)
    state.next_job_id = max(state.next_job_id, job.job_id + 1)
    state.stats.job_submitted()
    return [Account(job)]


def _apply_started(state: ClusterState, event: JobStarted) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None or job.state is not JobState.PENDING:
        return []
    if event.time_limit_min:   # --time-min: started with the limit backfill shortened it to
        job = dataclasses.replace(job, request=dataclasses.replace(job.request, time_limit_min=event.time_limit_min))
    job = state.set_job(transition(_in_partition(job, event.partition), JobState.RUNNING,
                               allocation=_with_batch_node(state, job, event.allocation), start_time=event.time,
                               reason=Reason.NONE))
    if job.request.interactive:   # srun / salloc take it from here
        port = job.request.alloc_resp_port
        return [Account(job), *([TellAllocatingClient(job.job_id, job.request.alloc_resp_host, port)] if port else [])]
    return [Launch(job), Account(job)]


def _apply_array_task_started(state: ClusterState, event: ArrayTaskStarted) -> list[Effect]:
    master = state.jobs.get(event.array_job_id)
    if master is None or master.state is not JobState.PENDING or master.array is None \
            or event.task_id not in master.array.pending:
        return []   # cancelled, or started, since the pass decided
    array = master.array
    # Accounting sees the remainder shrink (the outbox keeps only a record's latest snapshot).
    effects: list[Effect] = []
    if event.job_id == master.job_id:
        if array.pending != (event.task_id,):
            return []   # the master runs only as the last task
        record = master
    else:
        effects.append(Account(state.set_job(dataclasses.replace(master, array=_without(array, (event.task_id,))))))
        state.next_job_id = max(state.next_job_id, event.job_id + 1)
        record = dataclasses.replace(master, job_id=event.job_id)
    task = dataclasses.replace(array, task_id=event.task_id, pending=())
    job = state.set_job(transition(_in_partition(dataclasses.replace(record, array=task), event.partition),
                               JobState.RUNNING,
                               allocation=_with_batch_node(state, record, event.allocation), start_time=event.time,
                               reason=Reason.NONE))
    return [Launch(job), Account(job), *effects]


def _with_batch_node(state: ClusterState, job: Job, alloc: Allocation) -> Allocation:
    """sbatch --batch: the script runs on the first node of the allocation with those features,
    else on its first node, as Slurm's batch host."""
    if not job.request.batch_features:
        return alloc
    wanted = features.parse(job.request.batch_features)
    node = next((name for name in alloc.nodes if name in state.nodes
                 and features.satisfied(wanted, frozenset(state.nodes[name].config.features))), "")
    return dataclasses.replace(alloc, batch_node=node)


def _apply_array_tasks_cancelled(state: ClusterState, event: ArrayTasksCancelled) -> list[Effect]:
    """As slurmctld: the indices leave the master's pending set and no record is kept of them
    (`scontrol show job <id>_7` then says not found); cancelling the last ones cancels the
    master, which then stands for no index (squeue and sacct print the bare array id).
    Journals written before this name a job id per index: those ids stay used."""
    state.next_job_id = max([state.next_job_id, *(job_id + 1 for job_id in event.job_ids)])
    master = state.jobs.get(event.array_job_id)
    if master is None or master.state is not JobState.PENDING or master.array is None:
        return []
    left = _without(master.array, tuple(t for t in event.task_ids if t in master.array.pending))
    record = state.set_job(dataclasses.replace(master, array=left))
    if not left.pending:
        reason = Reason(event.reason) if event.reason else master.reason
        record = state.set_job(transition(record, JobState.CANCELLED, start_time=event.time, end_time=event.time,
                                          cancelled_by=event.by_uid, reason=reason))
    return [Account(record)]


def _apply_dependency(state: ClusterState, event: DependencyChanged) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None or job.state is not JobState.PENDING:
        return []
    if event.settled and (job.dependency is None or event.dependency is None
                          or not job.dependency.same_parts(event.dependency)):
        return []   # replaced by scontrol update since the pass settled it
    state.set_job(dataclasses.replace(job, dependency=event.dependency))
    return []


def _apply_array_throttle(state: ClusterState, event: ArrayThrottleChanged) -> list[Effect]:
    # Every record of the array carries it (the master's is the one the scheduler reads).
    for job_id in {event.job_id, *state.array_tasks.get(event.job_id, {}).values()}:
        record = state.jobs.get(job_id)
        if record is not None and record.array is not None:
            state.set_job(dataclasses.replace(record, array=dataclasses.replace(record.array, throttle=event.throttle)))
    return []


def _apply_begin_time(state: ClusterState, event: BeginTimeChanged) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None or job.state is not JobState.PENDING:
        return []
    request = dataclasses.replace(job.request, begin_time=event.begin_time)
    eligible = max(job.submit_time, event.begin_time) if job.hold is Hold.NONE else job.eligible_time
    job = state.set_job(dataclasses.replace(job, request=request, eligible_time=eligible))
    return [Account(job)]


def _apply_charge(state: ClusterState, event: JobChargeChanged) -> list[Effect]:
    return _changed_request(state, event.job_id, account=event.account, qos=event.qos)


def _apply_hold(state: ClusterState, event: JobHoldChanged) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None or job.state.is_finished:
        return []
    if event.hold is Hold.NONE:
        job = dataclasses.replace(job, hold=Hold.NONE, reason=Reason.NONE,
                                  eligible_time=job.eligible_time or max(event.time, job.request.begin_time))
        job = dataclasses.replace(job, priority=state.priority_of(job, event.time))
    else:
        reason = Reason.HELD_USER if event.hold is Hold.USER else Reason.HELD_ADMIN
        job = dataclasses.replace(job, hold=event.hold, reason=reason, priority=0)
    state.set_job(job)
    return [Account(job)]


def _apply_priority(state: ClusterState, event: JobPriorityChanged) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None or job.state is not JobState.PENDING:
        return []
    job = dataclasses.replace(job, admin_priority=event.admin_priority,
                              request=dataclasses.replace(job.request, nice=event.nice))
    job = state.set_job(dataclasses.replace(job, priority=state.priority_of(job, event.time)))
    return [Account(job)]


def _apply_time_limit(state: ClusterState, event: JobTimeLimitChanged) -> list[Effect]:
    return _changed_request(state, event.job_id, pending_only=False, time_limit_min=event.time_limit_min)


def _apply_partition(state: ClusterState, event: JobPartitionChanged) -> list[Effect]:
    return _changed_request(state, event.job_id, partition=event.partition, partitions=event.partitions)


def _apply_job_reservation(state: ClusterState, event: JobReservationChanged) -> list[Effect]:
    return _changed_request(state, event.job_id, reservation=event.reservation)


def _apply_job_licenses(state: ClusterState, event: JobLicensesChanged) -> list[Effect]:
    return _changed_request(state, event.job_id, licenses=event.licenses)


def _apply_job_comment(state: ClusterState, event: JobCommentChanged) -> list[Effect]:
    return _changed_request(state, event.job_id, pending_only=False, comment=event.comment)


def _apply_cpus(state: ClusterState, event: JobCpusChanged) -> list[Effect]:
    return _changed_request(state, event.job_id, cpus_per_task=event.cpus_per_task)


def _apply_usage(state: ClusterState, event: UsageRecorded) -> list[Effect]:
    state.priorities.install_usage(Usage.from_rows(event.usage, event.time), state.associations)
    return []


def _apply_cancelled(state: ClusterState, event: JobCancelled) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None or job.state.is_finished:
        return []
    if job.state is JobState.PENDING:
        reason = Reason(event.reason) if event.reason else job.reason
        job = state.set_job(transition(job, JobState.CANCELLED, start_time=event.time,
                                   end_time=event.time, cancelled_by=event.by_uid, reason=reason))
        return [Account(job)]
    return _end_running(state, job, JobState.CANCELLED, "CANCELLED", end_time=event.time,
                             cancelled_by=event.by_uid, reason=Reason(event.reason) if event.reason else job.reason)


def _apply_timeout(state: ClusterState, event: JobTimedOut) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None or job.state is not JobState.RUNNING:
        return []
    return _end_running(state, job, JobState.TIMEOUT, "TIME LIMIT", end_time=event.time,
                             reason=Reason.TIME_LIMIT)


def _apply_deadline(state: ClusterState, event: JobDeadlineMissed) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None:
        return []
    if job.state is JobState.PENDING:
        job = state.set_job(transition(job, JobState.DEADLINE, start_time=event.time, end_time=event.time,
                                       reason=Reason.DEADLINE))
        return [Account(job)]
    if job.state is JobState.RUNNING:   # killed as at its time limit (slurmd's message is the same)
        return _end_running(state, job, JobState.DEADLINE, "TIME LIMIT", end_time=event.time,
                            reason=Reason.DEADLINE)
    return []


def _apply_finished(state: ClusterState, event: BatchFinished) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None:
        return []
    # Slurm reports an OOM-killed step as 0:125, whatever signal ended the script.
    exit_info = ({"exit_code": 0, "exit_signal": OOM_EXIT_SIGNAL} if event.out_of_memory
                 else {"exit_code": event.exit_code, "exit_signal": event.exit_signal})
    exit_info["usage"] = event.usage
    node = event.node or (job.allocation.batch_host if job.allocation else "")
    if event.kill_task_failed:
        state.drain(node, "Kill task failed", event.time)
    if event.epilog_failed:
        state.drain(node, "Epilog error", event.time)
    exit_info["batch_ended"] = True
    if job.state is JobState.RUNNING:
        if event.launch_failed:
            to, reason = JobState.FAILED, Reason.LAUNCH_FAILURE
        elif event.out_of_memory:
            to, reason = JobState.OUT_OF_MEMORY, Reason.OUT_OF_MEMORY
        elif event.exit_code or event.exit_signal:
            to, reason = JobState.FAILED, Reason.NON_ZERO_EXIT
        else:
            to, reason = JobState.COMPLETED, Reason.NONE
        # Steps the script left running end with it; the job completes once they are gone.
        job = state.set_job(settled(transition(job, to, reason=reason, end_time=event.time,
                                                 completing=bool(job.running_steps), **exit_info)))
        return [*terminate_steps(job), Account(job)]
    if job.completing:
        job = state.set_job(settled(dataclasses.replace(job, **exit_info)))
        return [Account(job)]
    return []


def _apply_step_started(state: ClusterState, event: StepStarted) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None or job.state is not JobState.RUNNING:
        return []
    job = state.set_job(dataclasses.replace(job, steps=(*job.steps, event.step),
                                        next_step_id=max(job.next_step_id, event.step.step_id + 1)))
    log.info("job=%d step %d started on %s", job.job_id, event.step.step_id, ",".join(event.step.nodes))
    return [Account(job)]


def _apply_step_finished(state: ClusterState, event: StepFinished) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    step = job.step(event.step_id) if job is not None else None
    if job is None or step is None or not step.running or event.node not in step.waiting_on:
        return []
    step = step_part_ended(step, event)
    job = dataclasses.replace(job, steps=tuple(step if s.step_id == step.step_id else s for s in job.steps))
    effects: list[Effect] = []
    if step.running and (event.launch_failed or event.cancelled):
        # One node's part failed to start or was killed: the rest of the step goes too.
        effects.append(Terminate(job.job_id, step.waiting_on, "CANCELLED", step=str(step.step_id)))
    if (not step.running and job.request.launcher == "srun" and step.step_id == 0
            and job.state is JobState.RUNNING):
        # srun made this job for this step: the job ends with it.
        job = transition(job, step.state, end_time=event.time, exit_code=step.exit_code,
                         exit_signal=step.exit_signal, usage=step.usage, completing=bool(job.running_steps),
                         reason=Reason.NON_ZERO_EXIT if step.state is JobState.FAILED else Reason.NONE)
        effects += terminate_steps(job)
    job = state.set_job(settled(job))
    return [*effects, Account(job)]


def _apply_released(state: ClusterState, event: AllocationReleased) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None or job.state is not JobState.RUNNING:
        return []
    to = JobState.FAILED if event.exit_code or event.exit_signal else JobState.COMPLETED
    job = state.set_job(settled(transition(
        job, to, end_time=event.time, exit_code=event.exit_code, exit_signal=event.exit_signal,
        completing=bool(job.running_steps),
        reason=Reason.NON_ZERO_EXIT if to is JobState.FAILED else Reason.NONE)))
    return [*terminate_steps(job), Account(job)]


def _apply_requeued(state: ClusterState, event: JobRequeued) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is not None and preempt_transitions.awaiting_requeue(job):
        return _store_requeued(state, preempt_transitions.requeued(job, event.time, state.requeue_delay, 0),
                                    event.time)
    if job is None or job.state is not JobState.RUNNING:
        return []
    if event.node:
        state.drain(event.node, event.reason, event.time)
    if job.restarts >= MAX_BATCH_REQUEUE or not job.request.requeue:
        # Launched too often, or not requeueable: the run ends here.
        job = state.set_job(transition(job, JobState.FAILED, reason=Reason.LAUNCH_FAILURE, end_time=event.time))
        return [Account(job)]
    hold = event.hold if event.hold is not Hold.NONE else job.hold   # a hold set while it ran stays
    job = state.set_job(transition(
        job, JobState.PENDING, allocation=None, start_time=0, end_time=0, restarts=job.restarts + 1,
        hold=hold, priority=0,
        reason=Reason.HELD_ADMIN if hold is Hold.ADMIN else Reason.HELD_USER if hold is Hold.USER else Reason.NONE))
    job = state.set_job(dataclasses.replace(job, priority=state.priority_of(job, event.time)))
    return [Account(job)]


def _apply_preempted(state: ClusterState, event: JobPreempted) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None or job.state is not JobState.RUNNING:
        return []   # ended, or suspended, since the pass chose it
    return _store(state, preempt_transitions.preempted(job, event))


def _apply_requeue_requested(state: ClusterState, event: JobRequeueRequested) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None or job.state is JobState.PENDING or job.completing:
        return []
    return _store_requeued(state, preempt_transitions.requeue_requested(job, event, state.requeue_delay, 0),
                                event.time)


def _apply_suspended(state: ClusterState, event: JobSuspended) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None or job.state is not JobState.RUNNING:
        return []
    return _store(state, preempt_transitions.suspended(job, event.time))


def _apply_resumed(state: ClusterState, event: JobResumed) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    if job is None or job.state is not JobState.SUSPENDED:
        return []
    return _store(state, preempt_transitions.resumed(job, event))


def _apply_lost(state: ClusterState, event: JobLost) -> list[Effect]:
    job = state.jobs.get(event.job_id)
    changed = node_reconcile.batch_lost(job, event.time) if job is not None else None
    return _store(state, changed) if changed is not None else []


def _apply_node_failed(state: ClusterState, event: NodeFailed) -> list[Effect]:
    rec = state.nodes.get(event.node)
    if rec is None:
        return []
    rec.responding = False
    rec.down = True
    rec.set_reason(event.reason, 0, event.time)
    return _fail_jobs_on(state, event.node, event.time, reachable=False)


def _apply_node_admin(state: ClusterState, event: NodeAdminChanged) -> list[Effect]:
    effects: list[Effect] = []
    for name in event.nodes:
        rec = state.nodes.get(name)
        if rec is None:
            continue
        if event.state == "DRAIN":
            rec.drain = True
            rec.set_reason(event.reason, event.uid, event.time)
        elif event.state == "DOWN":
            rec.down = True
            rec.set_reason(event.reason, event.uid, event.time)
            effects += _fail_jobs_on(state, name, event.time, reachable=True)
        elif event.state in ("RESUME", "UNDRAIN"):
            rec.drain = False
            if event.state == "RESUME":
                rec.down = False
            rec.clear_reason()
    return effects


def _apply_node_notes(state: ClusterState, event: NodeNotesChanged) -> list[Effect]:
    for name in event.nodes:
        rec = state.nodes.get(name)
        if rec is None:
            continue
        if event.comment is not None:
            rec.comment = event.comment
        if event.extra is not None:
            rec.extra = event.extra
    return []


def _apply_node_created(state: ClusterState, event: NodeCreated) -> list[Effect]:
    if any(n.name == event.node.name for n in state.cfg.nodes):
        # Replayed after the node was added to slurm.conf: the configured definition wins.
        log.warning("node=%s is in slurm.conf now; its dynamic definition is dropped", event.node.name)
        return []
    state.dynamic_nodes[event.node.name] = event.node
    state.install_config(state.cfg)
    return []


def _apply_partition_edited(state: ClusterState, event: PartitionEdited) -> list[Effect]:
    state.partition_edits.pop(event.name, None)   # re-inserted last: the newest edit wins Default=YES
    state.partition_edits[event.name] = event
    state.install_config(state.cfg)
    return []


def _apply_nodes_deleted(state: ClusterState, event: NodesDeleted) -> list[Effect]:
    for name in event.nodes:
        state.dynamic_nodes.pop(name, None)
    state.install_config(state.cfg)
    return []


def _apply_ids_used(state: ClusterState, event: JobIdsUsed) -> list[Effect]:
    state.next_job_id = max(state.next_job_id, event.next_job_id)
    return []


def _apply_purged(state: ClusterState, event: JobsPurged) -> list[Effect]:
    for job_id in event.job_ids:
        job = state.jobs.pop(job_id, None)
        if job is not None and job.array is not None and job.array.task_id is not None:
            members = state.array_tasks.get(job.array.array_job_id, {})
            members.pop(job.array.task_id, None)
            if not members:
                state.array_tasks.pop(job.array.array_job_id, None)
    return []


def _changed_request(state: ClusterState, job_id: JobId, pending_only: bool = True, **fields: Any) -> list[Effect]:
    """An `scontrol update` of a pending job's request (or, with `pending_only` False, of
    any unfinished job's): `fields` replaced; nothing when the job has moved on since."""
    job = state.jobs.get(job_id)
    if job is None or (job.state is not JobState.PENDING if pending_only else job.state.is_finished):
        return []
    return [Account(state.set_job(dataclasses.replace(job, request=dataclasses.replace(job.request, **fields))))]


def _end_running(state: ClusterState, job: Job, to: JobState, cause: str, **changes: Any) -> list[Effect]:
    """A running job ends by decision: final state now, COMPLETING until its processes are gone."""
    assert job.allocation is not None
    job = state.set_job(settled(transition(job, to, completing=True, **changes)))
    return [Terminate(job.job_id, job.allocation.nodes, cause), Account(job)]


def _store_requeued(state: ClusterState, changed: tuple[Job, list[Effect]], time: int) -> list[Effect]:
    """A record back in the queue (or still ending first), with the priority PriorityType gives
    it when pending (0 while held)."""
    job, effects = changed
    if job.state is JobState.PENDING:
        job = dataclasses.replace(job, priority=state.priority_of(job, time))
    state.set_job(job)
    return [Account(job) if isinstance(effect, Account) else effect for effect in effects]


def _store(state: ClusterState, changed: tuple[Job, list[Effect]]) -> list[Effect]:
    state.set_job(changed[0])
    return changed[1]


def _fail_jobs_on(state: ClusterState, node: str, time: int, reachable: bool) -> list[Effect]:
    """NODE_FAIL for the jobs running on `node`; what still runs elsewhere is terminated.

    A job stays COMPLETING while its batch host can still report the end of the
    batch step: always when the node is only marked DOWN by an admin (it is still
    there to be killed), otherwise when the failed node was not the batch host.
    A batch job that may be requeued (--requeue, or slurm.conf's JobRequeue=1 without
    --no-requeue) pends again once nothing of it runs, as Slurm's: accounting keeps the run
    as a NODE_FAIL record and the job is a new record, pending (BeginTime), one restart more.
    """
    effects: list[Effect] = []
    for job in list(state.jobs.values()):
        alloc = job.allocation
        if alloc is None or node not in alloc.nodes:
            continue
        survivors = alloc.nodes if reachable else tuple(n for n in alloc.nodes if n != node)
        batch_host_alive = alloc.batch_host in survivors and not job.request.interactive
        if not reachable:
            job = node_gone_from_steps(job, node, time)
        if job.request.no_kill and job.state is JobState.RUNNING and len(alloc.nodes) > 1 and (
                node != alloc.batch_host or job.request.interactive):
            # -k: the job goes on without the node (a batch job's first node, where its script
            # runs, still lives; srun's and salloc's jobs have no script there); what of it still
            # runs there, if the node is reachable, is ended.
            job = state.set_job(dataclasses.replace(job, allocation=alloc.without(node)))
            effects += [*([Terminate(job.job_id, (node,), "NODE FAILURE")] if reachable else []), Account(job)]
            continue
        if job.state in (JobState.RUNNING, JobState.SUSPENDED):   # a suspended job dies with its node too
            job = state.set_job(settled(transition(
                job, JobState.NODE_FAIL, reason=Reason.NODE_DOWN, end_time=time,
                completing=batch_host_alive or bool(job.running_steps),
                batch_ended=job.batch_ended or not batch_host_alive, requeue_on_end=requeueable(job))))
            if survivors:
                effects.append(Terminate(job.job_id, survivors, "NODE FAILURE"))
            if preempt_transitions.awaiting_requeue(job):   # nothing of it left to wait for
                effects.append(Account(job))
                effects += _store_requeued(state, preempt_transitions.requeued(job, time, state.requeue_delay, 0), time)
                continue
        elif job.completing:
            job = state.set_job(settled(dataclasses.replace(
                job, batch_ended=job.batch_ended or not batch_host_alive)))
        else:
            continue
        effects.append(Account(job))
    return effects


def _in_partition(job: Job, partition: str) -> Job:
    """The job as it starts in `partition` (one of its -p list); unchanged for "" (one partition)."""
    if not partition or partition == job.request.partition:
        return job
    return dataclasses.replace(job, request=dataclasses.replace(job.request, partition=partition))


def _without(array: ArrayInfo, task_ids: tuple[int, ...]) -> ArrayInfo:
    """The master's array record less some pending indices (tasks start lowest first: usually the head)."""
    if len(task_ids) == 1 and array.pending and array.pending[0] == task_ids[0]:
        return dataclasses.replace(array, pending=array.pending[1:])
    gone = set(task_ids)
    return dataclasses.replace(array, pending=tuple(i for i in array.pending if i not in gone))


def _apply_reservation_saved(state: ClusterState, event: ReservationSaved) -> list[Effect]:
    state.reservations[event.record.name] = event.record
    return [RecordReservation(event.record, False, event.time)]


def _apply_reservation_deleted(state: ClusterState, event: ReservationDeleted) -> list[Effect]:
    record = state.reservations.pop(event.name, None)
    return [] if record is None else [RecordReservation(record, True, event.time)]


def _apply_trigger_set(state: ClusterState, event: TriggerSet) -> list[Effect]:
    trigger = event.trigger
    state.triggers[trigger.trig_id] = trigger
    state.next_trigger_id = max(state.next_trigger_id, trigger.trig_id + 1)
    return []


def _apply_triggers_cleared(state: ClusterState, event: TriggersCleared) -> list[Effect]:
    for trig_id in event.trig_ids:
        state.triggers.pop(trig_id, None)
    return []


def _apply_trigger_ids_used(state: ClusterState, event: TriggerIdsUsed) -> list[Effect]:
    state.next_trigger_id = max(state.next_trigger_id, event.next_trigger_id)
    return []


def _apply_trigger_fired(state: ClusterState, event: TriggerFired) -> list[Effect]:
    trigger = state.triggers.get(event.trig_id)
    if trigger is None:
        return []
    if not trigger.perm:
        del state.triggers[event.trig_id]
    log.info("trigger %d (%s %s %s) fired for %s", trigger.trig_id, trigger.res_type, trigger.res_id,
             trigger.type_word, event.argument)
    return [RunTrigger(trigger, event.argument)]


_APPLY = {
    JobSubmitted: _apply_submitted,
    JobStarted: _apply_started,
    ArrayTaskStarted: _apply_array_task_started,
    ArrayTasksCancelled: _apply_array_tasks_cancelled,
    DependencyChanged: _apply_dependency,
    ArrayThrottleChanged: _apply_array_throttle,
    BeginTimeChanged: _apply_begin_time,
    JobChargeChanged: _apply_charge,
    JobPriorityChanged: _apply_priority,
    JobTimeLimitChanged: _apply_time_limit,
    JobPartitionChanged: _apply_partition,
    JobCpusChanged: _apply_cpus,
    UsageRecorded: _apply_usage,
    JobHoldChanged: _apply_hold,
    JobCancelled: _apply_cancelled,
    JobTimedOut: _apply_timeout,
    JobDeadlineMissed: _apply_deadline,
    BatchFinished: _apply_finished,
    JobRequeued: _apply_requeued,
    JobLost: _apply_lost,
    NodeFailed: _apply_node_failed,
    NodeAdminChanged: _apply_node_admin,
    NodeNotesChanged: _apply_node_notes,
    NodeCreated: _apply_node_created,
    NodesDeleted: _apply_nodes_deleted,
    PartitionEdited: _apply_partition_edited,
    ReservationSaved: _apply_reservation_saved,
    JobReservationChanged: _apply_job_reservation,
    JobLicensesChanged: _apply_job_licenses,
    JobCommentChanged: _apply_job_comment,
    ReservationDeleted: _apply_reservation_deleted,
    JobIdsUsed: _apply_ids_used,
    JobsPurged: _apply_purged,
    StepStarted: _apply_step_started,
    StepFinished: _apply_step_finished,
    AllocationReleased: _apply_released,
    JobPreempted: _apply_preempted,
    JobRequeueRequested: _apply_requeue_requested,
    JobSuspended: _apply_suspended,
    JobResumed: _apply_resumed,
    TriggerSet: _apply_trigger_set,
    TriggersCleared: _apply_triggers_cleared,
    TriggerFired: _apply_trigger_fired,
    TriggerIdsUsed: _apply_trigger_ids_used,
}
