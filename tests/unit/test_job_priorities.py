"""The controller's priorities (pyslurm_ctld/core/job_priorities.py) wired into the core:
multifactor priorities at submit and per PriorityCalcPeriod, sprio's factor records, fairshare
usage journaled and replayed, and `scontrol update priority=/nice=` permission rules
(spec scheduling-policy.md §3, cli-squeue-sinfo-scontrol-scancel.md §3.6)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pyslurm_common.errors import Strerror
from pyslurm_ctld.model.associations import Association, AssociationLimits, AssociationSnapshot, Qos
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.cancel import cancellation
from pyslurm_ctld.core.job_updates import priority_change
from pyslurm_ctld.core.priorities import fairshare_rows, pending_priority_factors, recalculate_priorities, usage_update
from pyslurm_ctld.model.events import JobHoldChanged, JobPriorityChanged, UsageRecorded, event_from_dict, event_to_dict
from pyslurm_ctld.model.job import Hold, JobState
from pyslurm_ctld.sched.priority import BASIC_PRIORITY_CEILING
from tests.builders import ALICE, BOB, error_of, finish, make_manager, run_job, submit

MULTIFACTOR = """\
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightJobSize=100
PriorityWeightQOS=2000
PriorityMaxAge=1-0
"""
DAY = 86400


def assoc(ident: int, account: str, user: str = "", parent: str = "", shares: int = 1) -> Association:
    return Association(id=ident, cluster="lab", account=account, user=user, partition="", parent_account=parent,
                       shares=shares, priority=None, limits=AssociationLimits(), qos=("normal", "high"),
                       default_qos="")


SNAPSHOT = AssociationSnapshot(
    version="1",
    associations=(assoc(1, "root"), assoc(2, "physics", parent="root", shares=2), assoc(3, "physics", "alice"),
                  assoc(4, "chem", parent="root", shares=1), assoc(5, "chem", "bob")),
    qos={"normal": Qos(1, "normal", priority=0), "high": Qos(2, "high", priority=10, usage_factor=2.0)})


def manager(tmp_path: Path):  # type: ignore[no-untyped-def]
    mgr = make_manager(tmp_path, MULTIFACTOR)
    mgr.associations = SNAPSHOT       # as the controller installs a new snapshot:
    recalculate_priorities(mgr, 0)     # the fairshare table follows
    return mgr


def test_priority_type_basic_stays_the_default(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, nice=5)
    assert job.priority == BASIC_PRIORITY_CEILING - job.job_id - 5
    assert error_of(pending_priority_factors, mgr, 100).strerror == Strerror.DISABLED


def test_multifactor_priority_at_submit_comes_from_the_factor_record(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    job = submit(mgr, now=100, account="physics", qos="high", num_tasks=3)
    (factors,) = pending_priority_factors(mgr, 100)
    # Nobody ran: Fair Tree gives every user rank 1.0. QOS 10 of max 10. Job size (1/2 + 3/12)/2.
    assert (factors.fairshare, factors.qos, factors.age) == (1.0, 1.0, 0.0)
    assert factors.job_size == pytest.approx(0.375)
    assert job.priority == factors.priority == int(10000 + 2000 + 37.5)


def test_recalculation_ages_pending_jobs(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    job = submit(mgr, now=100, account="physics", hold=True)
    assert mgr.jobs[job.job_id].priority == 0 and pending_priority_factors(mgr, 100) == []
    recalculate_priorities(mgr, 100 + DAY)
    assert mgr.jobs[job.job_id].priority == 0          # held: no priority, no age
    apply(mgr, JobHoldChanged(job.job_id, Hold.NONE, 200))
    recalculate_priorities(mgr, 200 + DAY // 2)
    (factors,) = pending_priority_factors(mgr, 200 + DAY // 2)
    assert factors.age == pytest.approx(0.5)
    assert mgr.jobs[job.job_id].priority == factors.priority


def test_usage_is_charged_journaled_and_replayed(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    running = run_job(mgr, now=200, account="physics", qos="high", num_tasks=2)
    usage = usage_update(mgr, 300)
    assert usage is not None
    # 2 CPUs x 100 s x UsageFactor 2
    assert usage.usage == (("physics", "alice", "", 400.0),)
    apply(mgr, event_from_dict(event_to_dict(usage)))
    finish(mgr, running.job_id, now=350)
    later = usage_update(mgr, 400)
    assert later is not None and later.usage[0][3] == pytest.approx(400 + 2 * 50 * 2, rel=1e-3)
    apply(mgr, later)
    rows = {(r.account, r.user): r for r in fairshare_rows(mgr, 400)}
    assert rows[("physics", "alice")].raw_usage == pytest.approx(600, rel=1e-3)
    assert rows[("root", "")].raw_usage == pytest.approx(600, rel=1e-3)
    # A restart replays the compacted journal: the usage comes back.
    (tmp_path / "again").mkdir()
    replayed = manager(tmp_path / "again")
    for event in mgr.snapshot_events():
        apply(replayed, event_from_dict(event_to_dict(event)))
    assert replayed.priorities.usage == mgr.priorities.usage


def test_users_lower_priority_operators_raise_it(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    job = submit(mgr, account="physics")
    assert error_of(priority_change, mgr, job.job_id, ALICE, False, str(job.priority + 1), None,
                    200).strerror == Strerror.ACCESS_DENIED
    assert error_of(priority_change, mgr, job.job_id, BOB, False, "1", None, 200).strerror == Strerror.ACCESS_DENIED
    lowered = priority_change(mgr, job.job_id, ALICE, False, "5", None, 200)
    assert lowered == JobPriorityChanged(job.job_id, 5, 0, 200)
    apply(mgr, lowered)
    assert mgr.jobs[job.job_id].priority == 5
    assert pending_priority_factors(mgr, 200)[0].fixed
    raised = priority_change(mgr, job.job_id, ALICE, True, "999999", None, 200)
    apply(mgr, raised)
    assert mgr.jobs[job.job_id].priority == 999999
    assert isinstance(priority_change(mgr, job.job_id, ALICE, False, "0", None, 200), JobHoldChanged)


def test_nice_rules(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    job = submit(mgr, account="physics")
    before = job.priority
    apply(mgr, priority_change(mgr, job.job_id, ALICE, False, None, "100", 100))
    assert mgr.jobs[job.job_id].request.nice == 100
    assert mgr.jobs[job.job_id].priority == before - 100
    assert error_of(priority_change, mgr, job.job_id, ALICE, False, None, "-10", 100).strerror == Strerror.ACCESS_DENIED
    assert error_of(priority_change, mgr, job.job_id, ALICE, False, None, "x", 100).strerror == Strerror.INVALID_NICE
    apply(mgr, priority_change(mgr, job.job_id, ALICE, True, None, "-10", 100))
    assert mgr.jobs[job.job_id].priority == before + 10


def test_only_pending_jobs_change_priority(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    running = run_job(mgr, account="physics")
    assert error_of(priority_change, mgr, running.job_id, ALICE, True, "5", None, 300).strerror == Strerror.NOT_PENDING
    finish(mgr, running.job_id)
    assert mgr.jobs[running.job_id].state is JobState.COMPLETED
    assert error_of(priority_change, mgr, running.job_id, ALICE, True, "5", None, 400).strerror == Strerror.ALREADY_DONE


def test_usage_event_round_trips(tmp_path: Path) -> None:
    event = UsageRecorded((("a", "u", "", 1.5),), 10)
    assert event_from_dict(event_to_dict(event)) == event
    assert dataclasses.asdict(event)["time"] == 10


def test_nice_range_and_privilege() -> None:
    from pyslurm_common.bounds import NICE_MAX as NICE_LIMIT
    from pyslurm_ctld.core.job_priorities import check_nice
    check_nice(NICE_LIMIT, False)
    check_nice(-NICE_LIMIT, True)
    assert error_of(check_nice, -1, False).strerror == Strerror.ACCESS_DENIED
    # a new job's (sbatch --nice=-5 by a user): 'Invalid --nice value', as real Slurm 22.05 answers
    assert error_of(check_nice, -1, False, Strerror.INVALID_NICE).strerror == Strerror.INVALID_NICE
    assert error_of(check_nice, NICE_LIMIT + 1, True).strerror == Strerror.INVALID_NICE


def test_recalculation_in_chunks_yields_between_them_and_leaves_jobs_that_ended_meanwhile(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    jobs = [submit(mgr, now=100, account="physics") for _ in range(5)]
    chunks = mgr.priorities.recalculation(mgr.jobs, mgr.priority_context, DAY // 2, chunk=2)
    assert next(chunks) == 2
    first_two = [mgr.jobs[j.job_id].priority for j in jobs[:2]]
    assert all(p > j.priority for p, j in zip(first_two, jobs))        # older now: the age factor grew
    apply(mgr, cancellation(mgr, jobs[2].job_id, ALICE, now=10))        # an RPC served between chunks
    cancelled = mgr.jobs[jobs[2].job_id]
    assert list(chunks) == [4, 5]
    assert mgr.jobs[jobs[2].job_id] is cancelled
    (tmp_path / "again").mkdir()
    in_one_go = manager(tmp_path / "again")
    for _ in range(5):
        submit(in_one_go, now=100, account="physics")
    recalculate_priorities(in_one_go, DAY // 2)
    assert [mgr.jobs[j.job_id].priority for j in jobs if j is not jobs[2]] == \
        [in_one_go.jobs[j.job_id].priority for j in jobs if j is not jobs[2]]
