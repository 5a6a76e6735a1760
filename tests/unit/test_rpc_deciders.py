"""The deciders the thin servicers (pyslurm_ctld/rpc/) call: each builds the events an RPC
journals, so the servicer only parses, calls, commits and replies. Spec: scontrol.md (update
job, update node), Slurm 22.05's slurmd ("Kill task failed" drains the node)."""
from __future__ import annotations

from pathlib import Path

from pyslurm_common.errors import Strerror
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.job_updates import job_update
from pyslurm_ctld.core.topology import node_admin_change, reported_end
from pyslurm_ctld.core.will_run import ids_spent
from pyslurm_ctld.model.events import (BatchFinished, BeginTimeChanged, DependencyChanged, JobCommentChanged,
                                       JobIdsUsed, NodeAdminChanged, StepFinished, event_from_dict, event_to_dict)
from pyslurm_ctld.model.job import JobId
from tests.builders import ALICE, BOB, RAW, ROOT, error_of, make_manager, run_job, submit


def test_scontrol_update_job_gives_one_event_per_key_and_refuses_an_unknown_key(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, hold=True)
    events = job_update(mgr, job.job_id, ["StartTime=now+1hour", "Dependency="], ALICE, False, 1000)
    assert [type(e) for e in events] == [DependencyChanged, BeginTimeChanged]
    assert events[1] == BeginTimeChanged(job.job_id, 1000 + 3600)
    wrong = error_of(job_update, mgr, job.job_id, ["StartTime=now", "Color=red"], ALICE, False, 1000)
    assert (wrong.strerror, wrong.detail) == (Strerror.INVALID_ARGUMENT,
                                              "Update of this job field is not supported: color")
    assert error_of(job_update, mgr, job.job_id, ["StartTime=someday"], ALICE, False, 1000).strerror \
        == Strerror.INVALID_TIME_VALUE


def test_scontrol_update_job_comment_of_a_running_job_by_its_owner(tmp_path: Path) -> None:
    """Comment= (Slurm's update_job takes it in any state but ended; 1024 characters at most)."""
    mgr = make_manager(tmp_path)
    job = run_job(mgr)
    events = job_update(mgr, job.job_id, ["Comment=checked by alice"], ALICE, False, 1000)
    assert events == [JobCommentChanged(job.job_id, "checked by alice")]
    apply(mgr, events[0])
    assert mgr.jobs[job.job_id].request.comment == "checked by alice"
    assert event_from_dict(event_to_dict(events[0])) == events[0]
    assert error_of(job_update, mgr, job.job_id, ["Comment=" + "x" * 1025], ALICE, False, 1000).strerror \
        == Strerror.PATHNAME_TOO_LONG
    assert error_of(job_update, mgr, job.job_id, ["Comment=mine"], BOB, False, 1000).strerror \
        == Strerror.INVALID_USER_ID


def test_scontrol_update_node_checks_the_state_the_reason_and_the_names(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    assert node_admin_change(mgr, "drain", "disk", ["n[1-2]"], ROOT, 50) == \
        NodeAdminChanged(("n1", "n2"), "DRAIN", "disk", ROOT, 50)
    assert error_of(node_admin_change, mgr, "BUSY", "", ["n1"], ROOT, 50).detail == "Invalid node state specified: BUSY"
    # IDLE: Slurm's update_node clears DRAIN and FAIL and brings a DOWN node up, what RESUME does
    assert node_admin_change(mgr, "idle", "", ["n1"], ROOT, 50) == NodeAdminChanged(("n1",), "RESUME", "", ROOT, 50)
    assert error_of(node_admin_change, mgr, "DOWN", "", ["n1"], ROOT, 50).detail == \
        "You must specify a reason when DOWNING or DRAINING a node. Request denied"
    unknown = error_of(node_admin_change, mgr, "RESUME", "", ["n1,n9"], ROOT, 50)
    assert (unknown.strerror, unknown.detail) == (Strerror.INVALID_NODE_NAME, "Invalid node name specified: n9")
    assert error_of(node_admin_change, mgr, "RESUME", "", ["n[1-"], ROOT, 50).strerror == Strerror.INVALID_NODE_NAME


def test_a_step_whose_tasks_could_not_be_killed_drains_its_node_before_it_ends() -> None:
    stuck = StepFinished(JobId(7), 0, "n1", 0, 9, 300, kill_task_failed=True)
    assert reported_end(stuck) == [NodeAdminChanged(("n1",), "DRAIN", "Kill task failed", 0, 300), stuck]
    ended = BatchFinished(JobId(7), 0, 0, False, False, 300)
    assert reported_end(ended) == [ended]


def test_a_test_only_submission_spends_its_job_id_across_a_restart(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    first = mgr.next_job_id
    tested = submission(mgr, RAW, ALICE, ALICE, "alice", "alice", False, 100)   # sbatch --test-only: not applied
    assert tested.job.job_id == first
    spent = ids_spent(mgr)
    assert spent == JobIdsUsed(first + 1)
    (tmp_path / "restarted").mkdir()
    restarted = make_manager(tmp_path / "restarted")
    apply(restarted, spent)                    # replayed from the journal
    assert submit(restarted).job_id == first + 1
