"""AdminLevel Operator and Administrator "can perform any slurm operation" (man sacctmgr): cancel,
signal, hold (an admin hold), release and update other users' jobs, as root can. A coordinator of
the job's account updates it as its owner could, and may raise its time limit (real Slurm 22.05
lets one; not its priority). Anyone else keeps Slurm's refusals."""
from __future__ import annotations

from pathlib import Path

from pyslurm_common.array_spec import JobSpec
from pyslurm_common.errors import Strerror
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.cancel import cancellation, cancellations, signalling
from pyslurm_ctld.core.job_updates import hold_change, job_update
from pyslurm_ctld.model.events import JobCancelled, SignalTasks
from pyslurm_ctld.model.job import Hold
from tests.builders import BOB, error_of, make_manager, run_job, submit

COORDINATES_LAB = frozenset({"lab"})


def test_an_operator_cancels_and_signals_another_users_job(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    pending, running = submit(mgr, account="lab"), run_job(mgr, account="lab")
    assert error_of(cancellation, mgr, pending.job_id, BOB, 300).strerror == Strerror.ACCESS_DENIED
    assert error_of(signalling, mgr, running.job_id, BOB, 10, False, False, 300).strerror == Strerror.ACCESS_DENIED
    assert cancellation(mgr, pending.job_id, BOB, 300, operator=True) == JobCancelled(pending.job_id, BOB, 300)
    assert [type(e) for e in cancellations(mgr, JobSpec(pending.job_id), BOB, 300, operator=True)] == [JobCancelled]
    [signal] = signalling(mgr, running.job_id, BOB, 10, False, False, 300, operator=True)
    assert isinstance(signal, SignalTasks) and signal.job_id == running.job_id


def test_an_operators_hold_is_an_admin_hold_it_may_release(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, account="lab")
    assert error_of(hold_change, mgr, job.job_id, "hold", BOB, 150).strerror == Strerror.INVALID_USER_ID
    apply(mgr, hold_change(mgr, job.job_id, "hold", BOB, 150, operator=True))
    assert mgr.jobs[job.job_id].hold is Hold.ADMIN
    # A coordinator may not release an admin hold; an operator may.
    assert error_of(hold_change, mgr, job.job_id, "release", BOB, 151, COORDINATES_LAB).strerror == \
        Strerror.ACCESS_DENIED
    apply(mgr, hold_change(mgr, job.job_id, "release", BOB, 151, operator=True))
    assert mgr.jobs[job.job_id].hold is Hold.NONE


def test_an_operator_updates_another_users_job(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, account="lab", time_limit_min=30)
    settings = ["StartTime=now+1hour", "Dependency=", "TimeLimit=60", "Priority=5000"]
    assert error_of(job_update, mgr, job.job_id, settings, BOB, False, 100).strerror == Strerror.INVALID_USER_ID
    for event in job_update(mgr, job.job_id, settings, BOB, True, 100):
        apply(mgr, event)
    updated = mgr.jobs[job.job_id]
    assert (updated.request.time_limit_min, updated.priority) == (60, 5000)


def test_a_coordinator_updates_its_accounts_jobs_as_their_owner_could(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, account="lab", time_limit_min=30)
    elsewhere = frozenset({"other"})
    assert error_of(job_update, mgr, job.job_id, ["TimeLimit=10"], BOB, False, 100, elsewhere).strerror == \
        Strerror.INVALID_USER_ID
    for event in job_update(mgr, job.job_id, ["TimeLimit=10", "StartTime=now+1hour"], BOB, False, 100,
                            COORDINATES_LAB):
        apply(mgr, event)
    assert mgr.jobs[job.job_id].request.time_limit_min == 10
    for event in job_update(mgr, job.job_id, ["TimeLimit=45"], BOB, False, 100, COORDINATES_LAB):
        apply(mgr, event)      # raised, as real Slurm 22.05 lets a coordinator
    assert mgr.jobs[job.job_id].request.time_limit_min == 45
    raised = error_of(job_update, mgr, job.job_id, [f"Priority={job.priority + 1}"], BOB, False, 100, COORDINATES_LAB)
    assert raised.strerror == Strerror.ACCESS_DENIED
