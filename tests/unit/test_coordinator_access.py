"""A coordinator of a job's account (or of an account above it: accounting sends the list with
the sub-accounts) may cancel, hold, release and requeue the job, as Slurm's
assoc_mgr_is_user_acct_coord allows; anyone else keeps Slurm's refusals."""
from __future__ import annotations

from pathlib import Path

from pyslurm_common.errors import Strerror
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.cancel import cancellation
from pyslurm_ctld.core.job_updates import hold_change, requeue_request
from pyslurm_ctld.model.events import JobCancelled
from pyslurm_ctld.model.job import Hold
from tests.builders import BOB, error_of, make_manager, run_job, submit

COORDINATES_LAB = frozenset({"lab", "labsub"})


def test_a_coordinator_of_the_jobs_account_may_hold_release_and_cancel_it(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, account="labsub")
    assert error_of(hold_change, mgr, job.job_id, "hold", BOB, 150).strerror == Strerror.INVALID_USER_ID
    assert error_of(hold_change, mgr, job.job_id, "hold", BOB, 150, frozenset({"other"})).strerror == \
        Strerror.INVALID_USER_ID
    apply(mgr, hold_change(mgr, job.job_id, "hold", BOB, 150, COORDINATES_LAB))
    assert mgr.jobs[job.job_id].hold is Hold.USER        # a coordinator's hold is a user hold, as Slurm
    apply(mgr, hold_change(mgr, job.job_id, "release", BOB, 151, COORDINATES_LAB))
    assert mgr.jobs[job.job_id].hold is Hold.NONE
    assert error_of(cancellation, mgr, job.job_id, BOB, 152).strerror == Strerror.ACCESS_DENIED
    assert isinstance(cancellation(mgr, job.job_id, BOB, 152, COORDINATES_LAB), JobCancelled)


def test_a_coordinator_may_requeue_a_running_job_of_its_account(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = run_job(mgr, account="lab")
    assert error_of(requeue_request, mgr, job.job_id, BOB, False, False, False, 300).strerror == \
        Strerror.ACCESS_DENIED
    assert requeue_request(mgr, job.job_id, BOB, False, False, False, 300, COORDINATES_LAB).job_id == job.job_id
