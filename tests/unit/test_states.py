"""The job state machine (pyslurm_ctld/model/states.py): the transition table and its one setter."""
from __future__ import annotations

import logging

import pytest

from pyslurm_ctld.model.job import Job, JobId, JobState, Reason
from pyslurm_ctld.model.states import TRANSITIONS, IllegalTransition, transition
from tests.builders import job_request

S = JobState


def make_job(state: JobState, job_id: int = 7) -> Job:
    request = job_request(partition="batch", time_limit_min=10, work_dir="/home/alice")
    return Job(job_id=JobId(job_id), request=request, uid=1000, gid=1000, user_name="alice",
               group_name="alice", submit_time=100, state=state)


@pytest.mark.parametrize(("source", "target"), sorted(TRANSITIONS), ids=lambda s: str(s))
def test_every_pair_in_the_table_is_accepted(source: JobState, target: JobState) -> None:
    job = make_job(source)
    moved = transition(job, target)
    assert moved.state is target
    assert job.state is source  # records are immutable: the old version is untouched


ILLEGAL = [
    (S.COMPLETED, S.RUNNING),
    (S.CANCELLED, S.RUNNING),
    (S.REQUEUED, S.RUNNING),
    (S.PENDING, S.COMPLETED),
    (S.PENDING, S.TIMEOUT),
    (S.FAILED, S.COMPLETED),
    (S.RUNNING, S.RUNNING),
    (S.SUSPENDED, S.COMPLETED),
]


@pytest.mark.parametrize(("source", "target"), ILLEGAL, ids=lambda s: str(s))
def test_illegal_pairs_raise(source: JobState, target: JobState) -> None:
    assert (source, target) not in TRANSITIONS
    with pytest.raises(IllegalTransition, match=f"job=7 {source} -> {target}"):
        transition(make_job(source), target)


def test_only_requeue_leaves_a_finished_state() -> None:
    finished = [s for s in JobState if s.is_finished]
    assert finished  # the enum has terminal states at all
    # Requeue (scontrol requeue, REQUEUE preemption): the ended run's job pends again, same id.
    assert {target for source, target in TRANSITIONS if source in finished} == {S.PENDING}


def test_every_state_is_reachable_from_pending() -> None:
    reached = {S.PENDING}
    frontier = [S.PENDING]
    while frontier:
        source = frontier.pop()
        for a, b in TRANSITIONS:
            if a is source and b not in reached:
                reached.add(b)
                frontier.append(b)
    assert reached == set(JobState)


def test_transition_applies_changes_and_logs_the_change(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="pyslurm_ctld.model.states")
    moved = transition(make_job(S.RUNNING), S.FAILED, reason=Reason.NON_ZERO_EXIT, exit_code=3, end_time=200)
    assert (moved.state, moved.reason, moved.exit_code, moved.end_time) == (
        S.FAILED, Reason.NON_ZERO_EXIT, 3, 200)
    assert "job=7 RUNNING -> FAILED (NonZeroExitCode)" in caplog.messages


def test_an_illegal_transition_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="pyslurm_ctld.model.states")
    with pytest.raises(IllegalTransition):
        transition(make_job(S.COMPLETED), S.RUNNING)
    assert caplog.messages == []


def test_finished_and_active() -> None:
    assert {s for s in JobState if not s.is_finished} == {S.PENDING, S.RUNNING, S.SUSPENDED}
    completing = transition(make_job(S.RUNNING), S.CANCELLED, completing=True)
    assert completing.is_active  # COMPLETING is a flag on a terminal state: still shown by squeue
    assert not transition(make_job(S.RUNNING), S.COMPLETED).is_active
    assert make_job(S.PENDING).is_active
