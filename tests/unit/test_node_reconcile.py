"""Reconciling a node agent's report with the controller's jobs (pyslurm_ctld/core/node_reconcile.py):
steps the node no longer runs end (requeued when the node never had them, NODE_FAIL when their end
is unknown), steps it runs that are over or unknown are killed, and after that no job is left
RUNNING or COMPLETING without a live step behind it.
"""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pyslurm_common.auth import Identity
from pyslurm_common.rpc import ctld_pb2
from pyslurm_common.rpc_auth import Serving, _caller
from pyslurm_ctld.translate import convert
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.cancel import cancellation
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.model.events import JobLost, JobRequeued, NodeFailed, StepFinished, Terminate
from pyslurm_ctld.model.job import Hold, Job, JobId, JobState, Reason
from pyslurm_ctld.core.node_reconcile import LAUNCH_GRACE, Reconciliation, reconcile, silent_nodes
from pyslurm_ctld.rpc.servicer import ControllerServicer

from tests.builders import ALICE, finish, make_manager, run_job
from test_job_steps import interactive_job, start_step, step_ended

START = 200
LATER = START + LAUNCH_GRACE + 1


def check(mgr: ClusterState, node: str, running: set[tuple[int, str]], now: int = LATER,
          boot_time: int = 0) -> Reconciliation:
    return reconcile(mgr.jobs.values(), node, frozenset(running), boot_time, now)


def apply_all(mgr: ClusterState, outcome: Reconciliation) -> None:
    for event in outcome.events:
        apply(mgr, event)


def test_a_job_its_node_holds_is_left_alone(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = run_job(mgr, now=START, partition="long")
    assert check(mgr, "n1", {(job.job_id, "batch")}) == Reconciliation((), ())


def test_a_launch_that_never_reached_the_node_is_requeued_after_the_grace(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = run_job(mgr, now=START, partition="long")
    assert check(mgr, "n1", set(), now=START + LAUNCH_GRACE) == Reconciliation((), ())   # still on its way
    outcome = check(mgr, "n1", set())
    assert outcome.events == (JobRequeued(job.job_id, Hold.NONE, "", "", LATER),)
    apply_all(mgr, outcome)
    again = mgr.jobs[job.job_id]
    assert (again.state, again.restarts, again.allocation) == (JobState.PENDING, 1, None)
    assert check(mgr, "n1", set()) == Reconciliation((), ())


def test_a_job_on_a_node_rebooted_since_it_started_ends_node_fail(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = run_job(mgr, now=START, partition="long")
    outcome = check(mgr, "n1", set(), boot_time=START + 5)
    assert outcome.events == (JobLost(job.job_id, "n1", LATER),)
    apply_all(mgr, outcome)
    lost = mgr.jobs[job.job_id]
    assert (lost.state, lost.reason, lost.completing, lost.end_time) == (JobState.NODE_FAIL, Reason.NODE_DOWN,
                                                                         False, LATER)


def test_a_stepd_that_died_without_a_result_ends_its_job_node_fail(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = run_job(mgr, now=START, partition="long")
    event = convert.batch_end(ctld_pb2.BatchCompletion(node="n1", job_id=job.job_id, exit_signal=9,
                                                       stepd_lost=True, end_time=250), now=260)
    assert event == JobLost(job.job_id, "n1", 250)
    apply(mgr, event)
    assert mgr.jobs[job.job_id].state is JobState.NODE_FAIL
    assert check(mgr, "n1", set()) == Reconciliation((), ())


def test_a_cancelled_job_whose_script_is_gone_stops_completing(tmp_path: Path) -> None:
    """The controller restarted after scancel: the terminate was lost, the script ended meanwhile."""
    mgr = make_manager(tmp_path)
    job = run_job(mgr, now=START, partition="long")
    apply(mgr, cancellation(mgr, job.job_id, ALICE, now=START + 1))
    assert mgr.jobs[job.job_id].completing
    outcome = check(mgr, "n1", set())
    assert outcome.events == (JobLost(job.job_id, "n1", LATER),)
    apply_all(mgr, outcome)
    done = mgr.jobs[job.job_id]
    assert (done.state, done.completing) == (JobState.CANCELLED, False)


def test_steps_that_are_over_or_unknown_are_killed(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    here = run_job(mgr, now=START, partition="long")                     # n1
    elsewhere = run_job(mgr, now=START, cpus_per_task=8)                 # n2
    completing = run_job(mgr, now=START, partition="long")
    apply(mgr, cancellation(mgr, completing.job_id, ALICE, now=START + 1))
    finished = run_job(mgr, now=START, partition="long")
    finish(mgr, finished.job_id)
    running = {(here.job_id, "batch"), (here.job_id, "7"), (elsewhere.job_id, "batch"),
               (completing.job_id, "batch"), (finished.job_id, "batch"), (999, "batch"), (here.job_id, "x")}
    outcome = check(mgr, "n1", running)
    assert outcome.events == ()
    assert outcome.kill == tuple(sorted(running - {(here.job_id, "batch")}))


def test_an_srun_step_part_the_node_lost_ends_node_fail(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = interactive_job(mgr, "srun", min_nodes=2)
    step = start_step(mgr, job.job_id, now=START)
    key = (job.job_id, str(step.step_id))
    assert check(mgr, "n1", {key}) == Reconciliation((), ())
    outcome = check(mgr, "n1", set())
    assert outcome.events == (StepFinished(JobId(job.job_id), step.step_id, "n1", 0, 0, LATER, node_failed=True),)
    apply_all(mgr, outcome)
    step_ended(mgr, job.job_id, step, "n2", now=LATER)
    ended = mgr.jobs[job.job_id]
    assert ended.steps[0].state is JobState.NODE_FAIL
    assert ended.state.is_finished and not ended.completing     # srun made the job for step 0: it ends with it


def test_salloc_allocations_hold_no_step_and_are_not_lost(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = interactive_job(mgr, "salloc")
    assert check(mgr, "n1", set(), now=10_000) == Reconciliation((), ())
    assert mgr.jobs[job.job_id].state is JobState.RUNNING


def test_no_job_is_left_running_or_completing_without_a_live_step(tmp_path: Path) -> None:
    """Whatever mix the controller holds, one reconciliation with a node that runs nothing leaves
    no job expecting something of that node (and a second one finds nothing to do)."""
    mgr = make_manager(tmp_path)
    jobs = [run_job(mgr, now=START, partition="long") for _ in range(3)]
    apply(mgr, cancellation(mgr, jobs[1].job_id, ALICE, now=START + 1))
    srun = interactive_job(mgr, "srun")
    start_step(mgr, srun.job_id, now=START)
    effects = []
    for event in check(mgr, "n1", set()).events:
        effects += apply(mgr, event)
    assert check(mgr, "n1", set()) == Reconciliation((), ())

    def waits_on_n1(job: Job) -> bool:
        return job.allocation is not None and "n1" in job.allocation.nodes and (
            job.state is JobState.RUNNING or job.completing)

    assert [job.job_id for job in mgr.jobs.values() if waits_on_n1(job)] == []
    assert all(not isinstance(e, Terminate) or "n1" not in e.nodes for e in effects)


def test_a_busy_node_silent_since_the_controller_took_charge_is_not_responding(tmp_path: Path) -> None:
    """After a controller restart no node is registered; one whose agent never comes back must not
    keep its jobs RUNNING for ever."""
    mgr = make_manager(tmp_path)
    job = run_job(mgr, now=START, partition="long")           # on n1; n2 runs nothing
    for rec in mgr.nodes.values():
        rec.registered = False                                # as after a restart
    in_charge = 1000

    def silent(now: int) -> list[NodeFailed]:
        return silent_nodes(mgr.nodes.values(), mgr.jobs.values(), in_charge, now, timeout=300)
    assert silent(in_charge + 300) == []                      # SlurmdTimeout not over yet
    assert silent(in_charge + 301) == [NodeFailed("n1", "Not responding", in_charge + 301)]
    apply(mgr, silent(in_charge + 301)[0])
    # A batch job (JobRequeue=1) is requeued, as Slurm's: pending again, one restart more.
    requeued = mgr.jobs[job.job_id]
    assert requeued.state is JobState.PENDING and requeued.restarts == 1 and mgr.nodes["n1"].down
    assert silent(in_charge + 302) == []


# ---- the controller servicer: a node's heartbeat ------------------------------------------------------


class ApplyingController:
    """The controller shell as far as the servicer needs it: commit applies at once."""

    def __init__(self, mgr: ClusterState) -> None:
        self.state = mgr
        self.committed: list[object] = []
        self.gpu_idle = self

    def report(self, *activity: object) -> None:
        """GPU activity (not this test's subject)."""

    async def commit(self, event: Any) -> None:
        self.committed.append(event)
        apply(self.state, event)


class NoContext:
    def peer(self) -> str:
        return "ipv4:127.0.0.1:1"


def _heartbeat(ctl: ApplyingController, request: ctld_pb2.Heartbeat) -> ctld_pb2.StepReconciliation:
    token = _caller.set(Identity(uid=0, gid=0, host="n1"))
    try:
        return asyncio.run(ControllerServicer(ctl, Serving()).NodeHeartbeat(request, NoContext()))  # type: ignore[arg-type]
    finally:
        _caller.reset(token)


def test_a_heartbeat_records_the_ends_first_then_settles_the_rest(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    ended = run_job(mgr, now=START, partition="long")
    running = run_job(mgr, now=START, partition="long")
    ctl = ApplyingController(mgr)
    steps = ctld_pb2.NodeSteps(
        running=[ctld_pb2.NodeStep(job_id=running.job_id, step="batch"), ctld_pb2.NodeStep(job_id=777, step="0")],
        batch_ends=[ctld_pb2.BatchCompletion(node="n1", job_id=ended.job_id, exit_code=3, end_time=250)])
    reply = _heartbeat(ctl, ctld_pb2.Heartbeat(name="n1", steps=steps))
    assert [(k.job_id, k.step) for k in reply.acknowledged] == [(ended.job_id, "batch")]
    assert [(k.job_id, k.step) for k in reply.kill] == [(777, "0")]
    assert (mgr.jobs[ended.job_id].state, mgr.jobs[ended.job_id].exit_code) == (JobState.FAILED, 3)
    assert mgr.jobs[running.job_id].state is JobState.RUNNING


def test_an_agent_that_sends_no_step_report_is_not_reconciled(tmp_path: Path) -> None:
    """An agent from before these reports (a rolling upgrade) must not have its jobs requeued."""
    mgr = make_manager(tmp_path)
    job = run_job(mgr, now=0, partition="long")
    ctl = ApplyingController(mgr)
    assert _heartbeat(ctl, ctld_pb2.Heartbeat(name="n1")) == ctld_pb2.StepReconciliation()
    assert ctl.committed == [] and mgr.jobs[job.job_id].state is JobState.RUNNING
    _heartbeat(ctl, ctld_pb2.Heartbeat(name="n1", steps=ctld_pb2.NodeSteps()))   # an empty report is one
    assert mgr.jobs[job.job_id].state is JobState.PENDING
