"""Reconciling what a node agent runs with what the controller believes it runs.

Every registration and heartbeat of a node agent says which steps (job, "batch" or srun step
number) it runs and which ended without the controller acknowledging the end yet (those ends
are committed first, as if they had come by CompleteBatch/CompleteStep). What is left to
compare goes both ways:

- a step the controller expects on the node that the node does not run, past LAUNCH_GRACE
  (its launch may still be on its way), ended without the node telling how:
  * the batch script, when the node has no record of it and has not rebooted since the job
    started: the launch never reached it (a controller killed between journaling the start and
    sending it, say). Nothing ran, so the job is requeued as for a refused launch;
  * the batch script otherwise (the node rebooted, or its stepd died without a result): how it
    ended is unknown, so the job ends NODE_FAIL, as Slurm's "missing from batch node";
  * an srun step's part: it ends NODE_FAIL on that node;
- a step the node runs that the controller does not know, or knows as over (the job ended,
  was cancelled or requeued while the terminate was lost with a controller restart), is killed.

A node that never registers with a controller that (re)started while jobs ran on it is as good
as not responding once SlurmdTimeout has passed (`silent_nodes`): its node agent may never come
back, and its jobs must not wait for it for ever.

So no job stays RUNNING or COMPLETING without a live step behind it. Pure: no clock, no I/O.
"""
from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Iterable

from ..model.events import Account, Effect, Event, JobLost, JobRequeued, NodeFailed, StepFinished
from ..model.job import Hold, Job, JobId, JobState, Reason
from ..model.job_steps import settled, terminate_steps
from ..model.nodes import NodeRecord
from ..model.states import transition

log = logging.getLogger(__name__)

BATCH = "batch"
LAUNCH_GRACE = 10          # seconds a just-started step may be missing from its node's report
# gRPC outcomes of a launch that say nothing of whether the node agent took it (it may have died or
# restarted mid-call, or the call timed out): the job stays as it is until the node's next report
# says (a script the node never had is requeued, above), or the node is declared DOWN.
OUTCOME_UNKNOWN = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED", "UNKNOWN"})
StepKey = tuple[int, str]  # (job id, "batch" | "0" | "1" ...)
_LIVE = (JobState.RUNNING, JobState.SUSPENDED)


@dataclass(frozen=True, slots=True)
class Reconciliation:
    events: tuple[Event, ...]     # ends of steps the node no longer runs, to commit
    kill: tuple[StepKey, ...]     # steps the node runs that must not run


def reconcile(jobs: Iterable[Job], node: str, running: frozenset[StepKey], boot_time: int,
              now: int) -> Reconciliation:
    """Compare the node's report (`running`, after its reported ends were applied) with `jobs`: at
    least every job that may have processes on `node` (job_table.held_nodes); others change nothing."""
    by_id = {job.job_id: job for job in jobs}
    events: list[Event] = []
    for job in by_id.values():
        if job.allocation is None or node not in job.allocation.nodes:
            continue
        if (_expects_batch(job, node) and (job.job_id, BATCH) not in running
                and now - job.start_time > LAUNCH_GRACE):
            events.append(_batch_missing(job, node, boot_time, now))
        for step in job.steps:
            if (step.running and node in step.waiting_on and (job.job_id, str(step.step_id)) not in running
                    and now - step.start_time > LAUNCH_GRACE):
                log.info("job=%d step %d missing from node %s: its part ends NODE_FAIL",
                         job.job_id, step.step_id, node)
                events.append(StepFinished(job.job_id, step.step_id, node, 0, 0, now, node_failed=True))
    kill = tuple(key for key in sorted(running) if not _wanted(by_id.get(JobId(key[0])), node, key[1]))
    for job_id, step in kill:
        log.info("job=%d step %s runs on node %s but is over or unknown here: killing it", job_id, step, node)
    return Reconciliation(tuple(events), kill)


def _expects_batch(job: Job, node: str) -> bool:
    """The job's batch script should still be running (or ending) on `node`."""
    assert job.allocation is not None
    return (not job.request.interactive and job.allocation.batch_host == node and not job.batch_ended
            and (job.state in _LIVE or job.completing))


def _batch_missing(job: Job, node: str, boot_time: int, now: int) -> Event:
    if job.state in _LIVE and boot_time <= job.start_time:
        log.info("job=%d missing from batch node %s, which never had it: requeued", job.job_id, node)
        return JobRequeued(job.job_id, Hold.NONE, "", "", now)
    log.info("job=%d missing from batch node %s%s: its end is unknown", job.job_id, node,
             " (rebooted since it started)" if boot_time > job.start_time else "")
    return JobLost(job.job_id, node, now)


def _wanted(job: Job | None, node: str, step_name: str) -> bool:
    if job is None or job.state not in _LIVE or job.completing or job.allocation is None:
        return False
    if step_name == BATCH:
        return job.allocation.batch_host == node and not job.request.interactive
    step = job.step(int(step_name)) if step_name.isdigit() else None
    return step is not None and step.running and node in step.waiting_on


def batch_lost(job: Job, time: int) -> tuple[Job, list[Effect]] | None:
    """The job after its batch script ended in an unknown way (JobLost); None when that changes
    nothing. A live job ends NODE_FAIL (its other steps are killed); one already ending by
    decision (cancelled, timed out) keeps its state and stops waiting for the script."""
    if job.state in _LIVE:
        job = settled(transition(job, JobState.NODE_FAIL, reason=Reason.NODE_DOWN, end_time=time,
                                 completing=bool(job.running_steps), batch_ended=True))
        return job, [*terminate_steps(job), Account(job)]
    if job.completing and not job.batch_ended and not job.request.interactive:
        job = settled(dataclasses.replace(job, batch_ended=True))
        return job, [Account(job)]
    return None


def silent_nodes(nodes: Iterable[NodeRecord], jobs: Iterable[Job], in_charge_since: float, now: float,
                 timeout: int) -> list[NodeFailed]:
    """Nodes with running or completing jobs that have not registered in the `timeout` seconds
    (SlurmdTimeout) since this controller took charge: not responding, as Slurm sets them DOWN."""
    if timeout <= 0 or now - in_charge_since <= timeout:
        return []
    busy = {node for job in jobs if job.allocation is not None and (job.state in _LIVE or job.completing)
            for node in job.allocation.nodes}
    return [NodeFailed(rec.name, "Not responding", int(now)) for rec in nodes
            if rec.name in busy and not rec.registered and not rec.down]
