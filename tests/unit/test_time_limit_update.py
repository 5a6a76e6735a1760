"""scontrol update jobid=N TimeLimit=: Slurm's rules (owner lowers, operator raises, +=/-=,
pending or running jobs only), the running job's timeout following the new limit, and replay."""
from __future__ import annotations

from pathlib import Path

import pytest

from pyslurm_common.errors import Strerror
from pyslurm_common.units import UNLIMITED
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.job_updates import time_limit_change
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.timers import timeouts
from pyslurm_ctld.model.events import JobTimeLimitChanged, event_from_dict, event_to_dict
from pyslurm_ctld.model.job import JobId, JobState

from tests.builders import ALICE, BOB, ROOT, error_of, finish, make_manager, run_job, submit


def change(mgr: ClusterState, job_id: int, uid: int, text: str, sign: str = "", operator: bool = False) -> int:
    event = time_limit_change(mgr, job_id, uid, operator, sign, text)
    apply(mgr, event)
    return mgr.jobs[job_id].request.time_limit_min


def test_owner_lowers_a_pending_jobs_limit_and_raises_it_within_the_partitions_max_time(tmp_path: Path) -> None:
    # debug has MaxTime=60; real Slurm 22.05 let the owner raise a pending job 10 -> 20 minutes
    mgr = make_manager(tmp_path)
    job = submit(mgr, time_limit_min=30)
    assert change(mgr, job.job_id, ALICE, "10") == 10
    assert change(mgr, job.job_id, ALICE, "20") == 20
    assert change(mgr, job.job_id, ALICE, "60") == 60
    assert error_of(time_limit_change, mgr, job.job_id, ALICE, False, "", "61").strerror == Strerror.ACCESS_DENIED
    assert error_of(time_limit_change, mgr, job.job_id, ALICE, False, "", "UNLIMITED").strerror \
        == Strerror.ACCESS_DENIED
    assert error_of(time_limit_change, mgr, job.job_id, BOB, False, "", "5").strerror == Strerror.ACCESS_DENIED


def test_operators_and_root_raise_it(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, time_limit_min=30)
    assert change(mgr, job.job_id, ALICE, "2:00:00", operator=True) == 120
    assert change(mgr, job.job_id, ROOT, "1-0") == 1440
    assert change(mgr, job.job_id, ROOT, "unlimited") == UNLIMITED


def test_relative_changes(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, time_limit_min=30)
    assert change(mgr, job.job_id, ALICE, "10", sign="-") == 20
    assert change(mgr, job.job_id, ALICE, "5", sign="+") == 25          # pending, within MaxTime=60
    assert error_of(time_limit_change, mgr, job.job_id, ALICE, False, "+", "36").strerror == Strerror.ACCESS_DENIED
    assert change(mgr, job.job_id, ROOT, "5", sign="+") == 30
    assert error_of(time_limit_change, mgr, job.job_id, ROOT, False, "-", "30").strerror == Strerror.INVALID_TIME_LIMIT
    assert error_of(time_limit_change, mgr, job.job_id, ROOT, False, "", "soon").strerror \
        == Strerror.INVALID_TIME_LIMIT


def test_the_owner_may_not_raise_a_running_jobs_limit(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = run_job(mgr, now=200, time_limit_min=30)
    assert error_of(time_limit_change, mgr, job.job_id, ALICE, False, "", "40").strerror == Strerror.ACCESS_DENIED


def test_a_running_job_times_out_at_its_new_limit(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = run_job(mgr, now=200, time_limit_min=30)
    assert timeouts(mgr, 200 + 10 * 60) == []
    change(mgr, job.job_id, ALICE, "5")
    assert [e.job_id for e in timeouts(mgr, 200 + 10 * 60)] == [job.job_id]


def test_finished_jobs_cannot_change(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = run_job(mgr, time_limit_min=30)
    finish(mgr, job.job_id)
    assert mgr.jobs[job.job_id].state is JobState.COMPLETED
    assert error_of(time_limit_change, mgr, job.job_id, ROOT, True, "", "5").strerror == Strerror.ALREADY_DONE


@pytest.mark.parametrize("minutes", [5, UNLIMITED])
def test_the_event_round_trips_through_the_journal_form(minutes: int) -> None:
    event = JobTimeLimitChanged(JobId(7), minutes)
    assert event_from_dict(event_to_dict(event)) == event
