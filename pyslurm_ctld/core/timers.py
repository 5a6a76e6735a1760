"""What time decides: jobs past their time limit, --signal warnings due, nodes silent past
SlurmdTimeout, finished records older than MinJobAge. The controller's loops call these with `now`.
"""
from __future__ import annotations

from ..model.events import JobDeadlineMissed, JobTimedOut, JobsPurged, NodeFailed, SignalTasks
from ..model.job import JobState
from . import reservations
from .deadlines import deadlines_missed
from .state import ClusterState


UNLIMITED = -1
# slurmctld's PERIODIC_TIMEOUT: its time-limit pass, which sends --signal warnings, runs this often
# and sends each warning that falls due before its next run, so up to this much early.
WARNING_PASS_S = 30


def timeouts(state: ClusterState, now: int) -> list[JobTimedOut | JobDeadlineMissed]:
    """Running jobs past TimeLimit + OverTimeLimit minutes, jobs past their --deadline
    (core/deadlines.py) and jobs whose reservation ended (core/reservations.py)."""
    over: list[JobTimedOut | JobDeadlineMissed] = [*deadlines_missed(state, now),
                                                   *reservations.ended_under(state, now)]
    grace = state.cfg.ctld_settings.over_time_limit_min
    if grace == UNLIMITED:
        return over
    timed_out = {event.job_id for event in over}
    for job in state.jobs.values():
        if job.job_id in timed_out:
            continue
        limit = job.request.time_limit_min
        if (job.state is JobState.RUNNING and limit != UNLIMITED
                and now >= job.start_time + job.suspended_secs + (limit + grace) * 60):
            over.append(JobTimedOut(job.job_id, now))
    return over


def signals_due(state: ClusterState, now: int) -> list[SignalTasks]:
    """--signal=[B:]SIG@secs: once per run, `secs` before the job's end (its time limit moved on
    by the time it was suspended, as in `timeouts`), or up to WARNING_PASS_S earlier, as Slurm's
    send_job_warn_signal (warn_time + PERIODIC_TIMEOUT + now >= end_time); the controller calls
    this every WARNING_PASS_S, so a warning due at once reaches the job at the next pass, not at
    its start (real Slurm 22.05: -t 1 --signal=USR2@90 arrived 8 s after the start). As Slurm,
    to the processes there when it is sent: a step that starts later does not get it. Soft
    state: a restarted controller may send it again, which a warning signal tolerates."""
    effects: list[SignalTasks] = []
    for job in state.jobs.values():
        req = job.request
        if (job.state is not JobState.RUNNING or not req.signal_number or req.time_limit_min == UNLIMITED
                or job.allocation is None or job.job_id in state.signalled):
            continue
        if now + WARNING_PASS_S >= job.start_time + job.suspended_secs + req.time_limit_min * 60 - req.signal_seconds:
            state.signalled.add(job.job_id)
            effects.append(SignalTasks(job.job_id, job.allocation.nodes, req.signal_number,
                                       batch_only=req.signal_batch_only, full=False))
    return effects


def unresponsive_nodes(state: ClusterState, now: float) -> list[NodeFailed]:
    timeout = state.cfg.slurmd_timeout
    if timeout <= 0:
        return []
    return [NodeFailed(rec.name, "Not responding", int(now)) for rec in state.nodes.values()
            if rec.registered and rec.responding and now - rec.last_seen > timeout]


def purgeable(state: ClusterState, now: int) -> JobsPurged | None:
    age = state.cfg.min_job_age
    if age <= 0:
        return None
    old = tuple(j.job_id for j in state.jobs.values()
                if j.state.is_finished and not j.completing and j.end_time and now - j.end_time >= age)
    return JobsPurged(old) if old else None
