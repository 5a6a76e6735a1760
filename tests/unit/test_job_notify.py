"""`scontrol notify`'s decider: who may write a line to a job's standard error (its owner, root,
SlurmUser, an operator, a coordinator of its account; anyone else is Slurm 22.05's `Invalid user
id`), only while it runs, and which stepd writes it: the batch step on the batch host."""
from __future__ import annotations

from pathlib import Path

from pyslurm_common.errors import Strerror
from pyslurm_ctld.core.job_notify import TEXT_LIMIT, JobMessage, notify
from tests.builders import ALICE, BOB, ROOT, SLURM_UID, error_of, finish, make_manager, run_job, submit


def test_the_owner_and_the_privileged_write_to_the_batch_step(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = run_job(mgr)
    assert job.allocation is not None
    want = [JobMessage(job.job_id, job.allocation.batch_host, "batch", "hello there")]
    for uid, operator, coordinated in ((ALICE, False, frozenset()), (ROOT, True, frozenset()),
                                       (SLURM_UID, True, frozenset()), (BOB, True, frozenset()),
                                       (BOB, False, frozenset({job.request.account}))):
        assert notify(mgr, job.job_id, "hello   there", uid, operator, coordinated) == want


def test_someone_else_unknown_jobs_and_jobs_not_running_get_slurms_words(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    running, pending = run_job(mgr), submit(mgr, hold=True)
    assert error_of(notify, mgr, running.job_id, "hi", BOB, False).strerror == Strerror.INVALID_USER_ID
    assert error_of(notify, mgr, 999999, "hi", ROOT, True).strerror == Strerror.INVALID_JOB_ID
    assert error_of(notify, mgr, pending.job_id, "hi", ROOT, True).strerror == Strerror.DISABLED
    finish(mgr, running.job_id)
    assert error_of(notify, mgr, running.job_id, "hi", ALICE, False).strerror == Strerror.DISABLED


def test_the_text_becomes_one_bounded_line(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = run_job(mgr)
    [message] = notify(mgr, job.job_id, "a\nb\r\n" + "x" * 5000, ALICE, False)
    assert message.text == ("a b " + "x" * 5000)[:TEXT_LIMIT]
