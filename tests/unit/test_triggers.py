"""strigger's deciders and what fires (pyslurm_ctld/core/triggers.py), over a real ClusterState:
Slurm 22.05's trigger_set/trigger_clear rules and _trigger_job_event/_trigger_node_event."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from pyslurm_common.errors import Strerror
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.triggers import NodeWatch, TriggerRequest, clearing, due, reconfigured, setting
from pyslurm_ctld.model.events import RunTrigger, TriggerFired, TriggersCleared
from pyslurm_ctld.model.triggers import Trigger

from tests.builders import ALICE, BOB, ROOT, SLURM_UID, error_of, finish, make_manager, run_job, submit


def _request(res_type: str = "job", res_id: str = "", events: tuple[str, ...] = ("fini",), offset: int = 0,
             perm: bool = False) -> TriggerRequest:
    return TriggerRequest(res_type, res_id, events, offset, "/bin/echo hi", perm)


def _set(mgr: ClusterState, request: TriggerRequest, uid: int = ROOT) -> Trigger:
    event = setting(mgr, request, uid, uid, 100)
    apply(mgr, event)
    return event.trigger


def _root_slurm_user(mgr: ClusterState) -> ClusterState:
    mgr.slurm_uid = ROOT
    return mgr


def test_only_slurm_user_may_set_a_trigger_unless_slurm_user_is_root(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)           # SlurmUser is uid 450
    job = submit(mgr, hold=True)
    for uid in (ROOT, ALICE):
        assert error_of(setting, mgr, _request(res_id=str(job.job_id)), uid, uid, 100).strerror == Strerror.ACCESS_DENIED
    assert setting(mgr, _request(res_id=str(job.job_id)), SLURM_UID, SLURM_UID, 100).trigger.uid == SLURM_UID
    _root_slurm_user(mgr)
    assert setting(mgr, _request("node", "", ("down",)), BOB, BOB, 100).trigger.res_id == "*"   # anyone, any node


def test_a_trigger_needs_a_job_not_finished_and_no_twin(tmp_path: Path) -> None:
    mgr = _root_slurm_user(make_manager(tmp_path))
    assert error_of(setting, mgr, _request(res_id="999"), ALICE, ALICE, 100).strerror == Strerror.INVALID_JOB_ID
    job = run_job(mgr)
    first = _set(mgr, _request(res_id=str(job.job_id)), ALICE)
    assert (first.trig_id, mgr.next_trigger_id) == (1, 2)
    assert error_of(setting, mgr, _request(res_id=str(job.job_id)), ALICE, ALICE, 100).strerror == Strerror.TRIGGER_DUP
    assert _set(mgr, _request(res_id=str(job.job_id)), BOB).trig_id == 2      # another user's is no twin
    finish(mgr, job.job_id)
    assert error_of(setting, mgr, _request(res_id=str(job.job_id), events=("time",)), ALICE, ALICE,
                    100).strerror == Strerror.ALREADY_DONE


def test_only_root_or_the_owner_clears_and_nothing_matching_is_esrch(tmp_path: Path) -> None:
    mgr = _root_slurm_user(make_manager(tmp_path))
    job = submit(mgr, hold=True)
    mine = _set(mgr, _request(res_id=str(job.job_id)), ALICE)
    assert error_of(clearing, mgr, mine.trig_id, 0, None, BOB, 100).strerror == Strerror.ACCESS_DENIED
    assert error_of(clearing, mgr, 99, 0, None, BOB, 100).strerror == Strerror.NO_SUCH_PROCESS
    assert error_of(clearing, mgr, 0, 0, None, ALICE, 100).strerror == Strerror.INVALID_ARGUMENT
    assert clearing(mgr, 0, job.job_id, None, ROOT, 100) == TriggersCleared((mine.trig_id,), 100)


def test_a_fini_trigger_fires_once_its_job_ended_and_runs_its_program(tmp_path: Path) -> None:
    mgr = _root_slurm_user(make_manager(tmp_path))
    job = run_job(mgr)
    trigger = _set(mgr, _request(res_id=str(job.job_id)), ALICE)
    events, watch = due(mgr, NodeWatch(), 250)
    assert events == []
    finish(mgr, job.job_id, now=300)
    events, watch = due(mgr, watch, 310)
    assert events == [TriggerFired(trigger.trig_id, str(job.job_id), 310)]
    assert apply(mgr, events[0]) == [RunTrigger(trigger, str(job.job_id))]
    assert mgr.triggers == {}                 # no PERM: gone once fired
    assert trigger.argv(str(job.job_id)) == ["echo", "hi", str(job.job_id)]


def test_a_time_trigger_fires_offset_seconds_before_the_limit(tmp_path: Path) -> None:
    mgr = _root_slurm_user(make_manager(tmp_path))
    job = run_job(mgr, now=200, time_limit_min=10)     # ends at 800
    trigger = _set(mgr, _request(res_id=str(job.job_id), events=("time",), offset=-120))
    assert due(mgr, NodeWatch(), 679)[0] == []
    assert due(mgr, NodeWatch(), 680)[0] == [TriggerFired(trigger.trig_id, str(job.job_id), 680)]


def test_node_down_fires_for_the_nodes_that_went_down_after_the_offset_and_perm_stays(tmp_path: Path) -> None:
    mgr = _root_slurm_user(make_manager(tmp_path))
    trigger = _set(mgr, _request("node", "n1,n2", ("down",), offset=30, perm=True))
    events, watch = due(mgr, NodeWatch(), 100)
    assert events == []
    mgr.nodes["n2"].down = True
    events, watch = due(mgr, watch, 110)
    assert events == [] and watch.armed == {trigger.trig_id: (140, "n2")}
    events, watch = due(mgr, watch, 140)
    assert events == [TriggerFired(trigger.trig_id, "n2", 140)]
    apply(mgr, events[0])
    assert mgr.triggers == {trigger.trig_id: trigger}      # PERM
    assert due(mgr, watch, 150)[0] == []                   # still down: no new event


def test_idle_and_reconfig_triggers(tmp_path: Path) -> None:
    mgr = _root_slurm_user(make_manager(tmp_path))
    job = run_job(mgr, now=200)
    busy = job.allocation.nodes[0] if job.allocation else ""
    idle = _set(mgr, _request("node", busy, ("idle",), offset=60))
    reconfig = _set(mgr, _request("node", "", ("reconfig",)))
    events, watch = due(mgr, NodeWatch(), 210)
    assert events == []
    finish(mgr, job.job_id, now=220)
    events, watch = due(mgr, watch, 230)
    assert events == []                                    # idle since 220 (busy at the pass at 210)
    events, watch = due(mgr, reconfigured(watch), 280)
    assert sorted(events, key=lambda e: e.trig_id) == [TriggerFired(idle.trig_id, busy, 280),  # type: ignore[union-attr]
                                                       TriggerFired(reconfig.trig_id, "reconfig", 280)]


def test_a_trigger_on_a_job_gone_without_fini_is_dropped(tmp_path: Path) -> None:
    mgr = _root_slurm_user(make_manager(tmp_path))
    job = submit(mgr, hold=True)
    trigger = _set(mgr, _request(res_id=str(job.job_id), events=("down",)))
    del mgr.jobs[job.job_id]
    assert due(mgr, NodeWatch(), 100)[0] == [TriggersCleared((trigger.trig_id,), 100)]


def test_a_trigger_survives_its_journal_record(tmp_path: Path) -> None:
    from pyslurm_ctld.model.events import TriggerSet, event_from_dict, event_to_dict

    trigger = Trigger(7, "node", "n[1-2]", ("up", "down"), -5, ALICE, ALICE, "/bin/x a", True)
    assert event_from_dict(event_to_dict(TriggerSet(trigger, 9))) == TriggerSet(trigger, 9)
    assert dataclasses.replace(trigger, trig_id=8).same_as(trigger) and trigger.type_word == "unknown"


def test_trigger_ids_go_on_after_a_compaction_with_no_trigger_left(tmp_path: Path) -> None:
    from pyslurm_ctld.core.triggers import clearing as clear

    mgr = _root_slurm_user(make_manager(tmp_path))
    job = submit(mgr, hold=True)
    first = _set(mgr, _request(res_id=str(job.job_id)))
    apply(mgr, clear(mgr, first.trig_id, 0, None, ROOT, 100))
    (tmp_path / "again").mkdir()
    rebuilt = make_manager(tmp_path / "again")
    for event in mgr.snapshot_events():
        apply(rebuilt, event)
    assert rebuilt.next_trigger_id == first.trig_id + 1 and rebuilt.triggers == {}
