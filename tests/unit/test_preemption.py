"""Preemption (pyslurm_ctld/sched/preemption.py, preempt_transitions.py, the core's wiring and
pyslurm_common/preempt_conf.py).

Spec: scheduling-policy.md §6 (who preempts whom, modes, GraceTime, PreemptExemptTime, victim
selection), §1.3 (requeue: same id, Restarts, BeginTime delay), config-slurm-conf.md
(PreemptType, PreemptMode, partition PreemptMode/GraceTime, JobRequeue).
"""
from __future__ import annotations

import dataclasses
import signal
from pathlib import Path
from typing import Any

import pytest

from pyslurm_common.config import ConfigError, load_config
from pyslurm_common.errors import SlurmError
from pyslurm_common.preempt_conf import ModeSpec, PreemptConfig, PreemptMode
from pyslurm_common.rpc import types_pb2
from pyslurm_ctld.model.associations import AssociationSnapshot, Qos
from pyslurm_ctld.translate.convert import request_from_desc
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.job_updates import requeue_request, suspension
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.usage import node_usage
from pyslurm_ctld.model.events import (BatchFinished, Effect, JobPreempted, JobRequeued, JobResumed, JobSubmitted, NodeFailed,
                                       SignalTasks, SuspendTasks, Terminate, event_from_dict, event_to_dict)
from pyslurm_ctld.model.job import Allocation, Job, JobId, JobState, Preemption, Reason
from pyslurm_ctld.sched.preemption import PartitionPreempt, Policy, Preempt, QosPreempt, Resume, plan, resumable
from pyslurm_ctld.sched.scheduler import Pend, Start

from tests.builders import RAW, ROOT, SLURM_UID, USERS, register_node
from test_scheduler import job, node, partition

ALICE, BOB = 1000, 1001

# ---- victim selection (pure) --------------------------------------------------------------------

LOW, HIGH = partition("low", ["n1", "n2"], priority_tier=1), partition("high", ["n1", "n2"], priority_tier=2)
VIEWS = {"low": LOW, "high": HIGH}


def policy(mode: PreemptMode = PreemptMode.REQUEUE, exempt: int = -1, grace: int = 0,
           preempt_type: str = "preempt/partition_prio", qos: dict[str, QosPreempt] | None = None) -> Policy:
    spec = ModeSpec(mode, gang=mode is PreemptMode.SUSPEND)
    return Policy(PreemptConfig(preempt_type, spec, exempt),
                  {"low": PartitionPreempt(1, grace_time=grace), "high": PartitionPreempt(2)}, qos or {})


def running(job_id: int, node_name: str, cpu_ids: tuple[int, ...], *, partition_name: str = "low",
            start: int = 0, memory_mb: int = 0, **request: Any) -> Job:
    """A job holding `cpu_ids` of `node_name` since `start`."""
    alloc = Allocation(nodes=(node_name,), cpus_per_node=(len(cpu_ids),), memory_mb_per_node=(memory_mb,),
                       cpu_ids=(cpu_ids,))
    return dataclasses.replace(job(job_id, partition=partition_name, **request), state=JobState.RUNNING,
                               allocation=alloc, start_time=start)


def nodes_after(held: list[Job], memory_mb: int = 4000) -> dict[str, Any]:
    """n1 and n2 (4 CPUs each) with what `held` holds taken."""
    result = {}
    for name in ("n1", "n2"):
        used = {c for j in held if j.allocation and j.allocation.nodes == (name,) for c in j.allocation.cpu_ids[0]}
        mem = sum(j.allocation.memory_mb_per_node[0] for j in held if j.allocation and j.allocation.nodes == (name,))
        result[name] = node(name, 4, memory_mb, free_cpu_ids=set(range(4)) - used, free_memory_mb=memory_mb - mem)
    return result


def victims(preempts: list[Preempt]) -> dict[int, tuple[int, str]]:
    return {p.victim: (p.preemptor, str(p.mode)) for p in preempts}


def test_a_higher_tier_job_preempts_only_as_much_as_it_needs() -> None:
    # n1: a 1-CPU and a 3-CPU low job; n2: a 4-CPU low job. The pending job wants 3 CPUs: the
    # 1-CPU job (smallest, tried first) is not enough with 0 free, the 3-CPU one is, and alone.
    held = [running(1, "n1", (0,)), running(2, "n1", (1, 2, 3)), running(3, "n2", (0, 1, 2, 3))]
    pending = job(10, partition="high", num_tasks=3)
    preempts = plan([Pend(pending.job_id, Reason.RESOURCES)], {pending.job_id: pending}, held,
                    nodes_after(held), VIEWS, policy(), now=100)
    assert victims(preempts) == {2: (10, "REQUEUE")}


def test_equal_or_higher_tiers_are_never_preempted() -> None:
    held = [running(1, "n1", (0, 1, 2, 3), partition_name="high"), running(2, "n2", (0, 1, 2, 3), partition_name="high")]
    pending = job(10, partition="high", num_tasks=2)
    assert plan([Pend(pending.job_id, Reason.RESOURCES)], {pending.job_id: pending}, held,
                nodes_after(held), VIEWS, policy(), now=100) == []
    low_pending = job(11, partition="low", num_tasks=2)
    held_low = [running(1, "n1", (0, 1, 2, 3)), running(2, "n2", (0, 1, 2, 3))]
    assert plan([Pend(low_pending.job_id, Reason.RESOURCES)], {low_pending.job_id: low_pending}, held_low,
                nodes_after(held_low), VIEWS, policy(), now=100) == []


def test_preempt_type_none_and_mode_off_preempt_nobody() -> None:
    held = [running(1, "n1", (0, 1, 2, 3)), running(2, "n2", (0, 1, 2, 3))]
    pending = job(10, partition="high", num_tasks=2)
    for chosen in (policy(preempt_type="preempt/none"), policy(mode=PreemptMode.OFF)):
        assert plan([Pend(pending.job_id, Reason.RESOURCES)], {pending.job_id: pending}, held,
                    nodes_after(held), VIEWS, chosen, now=100) == []


def test_preempt_exempt_time_protects_young_jobs_but_not_from_suspend() -> None:
    held = [running(1, "n1", (0, 1, 2, 3), start=90), running(2, "n2", (0, 1, 2, 3), start=0)]
    pending = job(10, partition="high", num_tasks=4)
    decisions = [Pend(pending.job_id, Reason.RESOURCES)]
    cancel = plan(decisions, {pending.job_id: pending}, held, nodes_after(held), VIEWS,
                  policy(PreemptMode.CANCEL, exempt=60), now=100)
    assert victims(cancel) == {2: (10, "CANCEL")}        # job 1 ran only 10 s
    assert plan(decisions, {pending.job_id: pending}, held[:1], nodes_after(held), VIEWS,
                policy(PreemptMode.CANCEL, exempt=60), now=100) == []
    suspend = plan(decisions, {pending.job_id: pending}, held[:1], nodes_after(held), VIEWS,
                   policy(PreemptMode.SUSPEND, exempt=60), now=100)
    assert victims(suspend) == {1: (10, "SUSPEND")}


def test_a_job_that_cannot_be_requeued_is_cancelled_instead() -> None:
    held = [running(1, "n1", (0, 1, 2, 3), requeue=False), running(2, "n2", (0, 1, 2, 3), launcher="srun")]
    pending = job(10, partition="high", num_tasks=4, min_nodes=2)
    preempts = plan([Pend(pending.job_id, Reason.RESOURCES)], {pending.job_id: pending}, held,
                    nodes_after(held), VIEWS, policy(), now=100)
    assert victims(preempts) == {1: (10, "CANCEL"), 2: (10, "CANCEL")}


def test_jobs_already_on_their_way_out_are_counted_before_new_victims() -> None:
    leaving = dataclasses.replace(running(1, "n1", (0, 1, 2, 3)), state=JobState.PREEMPTED, completing=True)
    held = [leaving, running(2, "n2", (0, 1, 2, 3))]
    pending = job(10, partition="high", num_tasks=4)
    assert plan([Pend(pending.job_id, Reason.RESOURCES)], {pending.job_id: pending}, held,
                nodes_after(held), VIEWS, policy(), now=100) == []


def test_two_preemptors_take_different_victims_and_starts_of_the_pass_are_respected() -> None:
    held = [running(1, "n1", (0, 1)), running(2, "n1", (2, 3)), running(3, "n2", (0, 1, 2, 3))]
    first, second = job(10, partition="high", num_tasks=2), job(11, partition="high", num_tasks=2)
    decisions = [Pend(first.job_id, Reason.RESOURCES), Pend(second.job_id, Reason.PRIORITY)]
    preempts = plan(decisions, {10: first, 11: second}, held, nodes_after(held), VIEWS, policy(), now=100)
    assert {p.preemptor for p in preempts} == {10, 11}
    assert sorted(victims(preempts)) == [1, 2]           # each takes one 2-CPU job, not the 4-CPU one
    # A start decided earlier in the pass has taken n1's two free CPUs: the preemptor needs a victim.
    held = [running(1, "n1", (0, 1))]
    starter = Start(JobId(5), Allocation(("n1",), (2,), (0,), ((2, 3),)))
    lone = job(12, partition="high", num_tasks=4)
    views = {"low": partition("low", ["n1"], priority_tier=1), "high": partition("high", ["n1"], priority_tier=2)}
    only_n1 = {"n1": nodes_after(held)["n1"]}
    preempts = plan([starter, Pend(lone.job_id, Reason.RESOURCES)], {12: lone}, held, only_n1, views, policy(), 100)
    assert preempts == []    # 2 CPUs of the victim + 0 free are not 4: nobody is preempted for nothing


def test_a_suspended_victim_keeps_its_memory() -> None:
    held = [running(1, "n1", (0, 1, 2, 3), memory_mb=3000)]
    views = {"low": partition("low", ["n1"], priority_tier=1), "high": partition("high", ["n1"], priority_tier=2)}
    only_n1 = {"n1": nodes_after(held)["n1"]}
    needs_memory = job(10, partition="high", num_tasks=1, mem_per_node_mb=2000)
    decisions = [Pend(needs_memory.job_id, Reason.RESOURCES)]
    assert plan(decisions, {10: needs_memory}, held, only_n1, views, policy(PreemptMode.SUSPEND), 100) == []
    assert victims(plan(decisions, {10: needs_memory}, held, only_n1, views, policy(PreemptMode.CANCEL), 100)) \
        == {1: (10, "CANCEL")}


def test_qos_preemption_follows_the_preempt_lists() -> None:
    qos = {"high": QosPreempt(preempt=frozenset({"scavenger"}), grace_time=0),
           "scavenger": QosPreempt(mode=ModeSpec(PreemptMode.CANCEL), grace_time=30),
           "normal": QosPreempt()}
    held = [running(1, "n1", (0, 1, 2, 3), qos="normal", partition_name="high"),
            running(2, "n2", (0, 1, 2, 3), qos="scavenger", partition_name="high")]
    pending = job(10, partition="high", qos="high", num_tasks=4)
    preempts = plan([Pend(pending.job_id, Reason.RESOURCES)], {10: pending}, held, nodes_after(held), VIEWS,
                    policy(preempt_type="preempt/qos", qos=qos), now=100)
    assert preempts == [Preempt(JobId(2), JobId(10), PreemptMode.CANCEL, grace=30)]
    normal = job(11, partition="high", qos="normal", num_tasks=4)
    assert plan([Pend(normal.job_id, Reason.RESOURCES)], {11: normal}, held, nodes_after(held), VIEWS,
                policy(preempt_type="preempt/qos", qos=qos), now=100) == []


def test_qos_suspend_preempts_only_across_partitions() -> None:
    """Real Slurm 22.05.8, PreemptType=preempt/qos, PreemptMode=SUSPEND,GANG, QOS high Preempt=normal,
    one partition: a high job waits (Resources) beside the normal one filling the node, where
    preempt/partition_prio with one partition also waits. Across partitions it suspends."""
    qos = {"high": QosPreempt(preempt=frozenset({"normal"})), "normal": QosPreempt()}
    suspend = policy(PreemptMode.SUSPEND, preempt_type="preempt/qos", qos=qos)
    held = [running(1, "n1", (0, 1, 2, 3), qos="normal", partition_name="high"),
            running(2, "n2", (0, 1, 2, 3), qos="normal", partition_name="high")]
    pending = job(10, partition="high", qos="high", num_tasks=4)
    assert plan([Pend(pending.job_id, Reason.RESOURCES)], {10: pending}, held, nodes_after(held), VIEWS,
                suspend, now=100) == []
    held[1] = running(2, "n2", (0, 1, 2, 3), qos="normal", partition_name="low")
    assert victims(plan([Pend(pending.job_id, Reason.RESOURCES)], {10: pending}, held, nodes_after(held), VIEWS,
                        suspend, now=100)) == {2: (10, "SUSPEND")}
    requeue = policy(PreemptMode.REQUEUE, preempt_type="preempt/qos", qos=qos)
    held[1] = running(2, "n2", (0, 1, 2, 3), qos="normal", partition_name="high")
    assert len(plan([Pend(pending.job_id, Reason.RESOURCES)], {10: pending}, held, nodes_after(held), VIEWS,
                    requeue, now=100)) == 1   # REQUEUE (and CANCEL) do preempt within a partition


def test_grace_time_of_the_victims_partition_comes_with_the_decision() -> None:
    held = [running(1, "n1", (0, 1, 2, 3), start=10), running(2, "n2", (0, 1, 2, 3), start=20)]
    pending = job(10, partition="high", num_tasks=4)
    preempts = plan([Pend(pending.job_id, Reason.RESOURCES)], {10: pending}, held, nodes_after(held), VIEWS,
                    policy(PreemptMode.CANCEL, grace=20), now=100)
    assert preempts == [Preempt(JobId(2), JobId(10), PreemptMode.CANCEL, grace=20)]   # the youngest of equals


def test_suspended_jobs_resume_once_their_preemptor_is_gone_and_their_cpus_are_free() -> None:
    victim = dataclasses.replace(running(1, "n1", (0, 1)), state=JobState.SUSPENDED,
                                 preemption=Preemption(PreemptMode.SUSPEND, JobId(10), 50, 50))
    preemptor = running(10, "n1", (0, 1), partition_name="high")
    free_n1 = {"n1": node("n1", 4, free_cpu_ids={0, 1, 2, 3})}
    assert resumable([victim], {JobId(10): preemptor}, free_n1) == []
    assert resumable([victim], {}, free_n1) == [Resume(JobId(1))]
    assert resumable([victim], {}, {"n1": node("n1", 4, free_cpu_ids={1, 2, 3})}) == []   # CPU 0 taken since
    by_operator = dataclasses.replace(victim, preemption=None)
    assert resumable([by_operator], {}, free_n1) == []


# ---- configuration ----------------------------------------------------------------------------

CONF = """\
ClusterName=lab
SlurmctldHost=head
NodeName=n1 CPUs=4 RealMemory=4000
PartitionName=low Nodes=n1 Default=YES PriorityTier=1
PartitionName=high Nodes=n1 PriorityTier=2
"""


def load(tmp_path: Path, text: str) -> Any:
    path = tmp_path / "slurm.conf"
    path.write_text(text)
    return load_config(path)


def test_preemption_settings_are_read_and_checked(tmp_path: Path) -> None:
    cfg = load(tmp_path, CONF.replace("PriorityTier=1", "PriorityTier=1 PreemptMode=CANCEL GraceTime=15")
               + "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\nPreemptExemptTime=1:30\n")
    assert cfg.preempt == PreemptConfig("preempt/partition_prio", ModeSpec(PreemptMode.REQUEUE), 90)
    low = cfg.partitions[0]
    assert (low.preempt_mode, low.grace_time) == (ModeSpec(PreemptMode.CANCEL), 15)
    assert load(tmp_path, CONF + "PreemptMode=SUSPEND,GANG\n").preempt.mode == ModeSpec(PreemptMode.SUSPEND, gang=True)
    for bad, words in (("PreemptMode=SUSPEND", "PreemptMode=SUSPEND requires GANG too"),
                       ("PreemptMode=KILL", "invalid PreemptMode value 'KILL'"),
                       # real Slurm 22.05.8 refuses these too: "PreemptMode=REQUEUE,GANG,WITHIN invalid"
                       ("PreemptMode=REQUEUE,GANG,WITHIN", "PreemptMode=REQUEUE,GANG,WITHIN invalid"),
                       ("PreemptMode=SUSPEND,GANG,WITHIN", "PreemptMode=SUSPEND,GANG,WITHIN invalid"),
                       ("PreemptType=preempt/random", "invalid PreemptType value 'preempt/random'"),
                       ("PreemptExemptTime=soon", "invalid PreemptExemptTime value 'soon'")):
        with pytest.raises(ConfigError, match=words):
            load(tmp_path, CONF + bad + "\n")


# ---- the core: events, states, replay ------------------------------------------------------

MANAGER_CONF = CONF + "PreemptType=preempt/partition_prio\nAuthInfo=cred_expire=10\n"


def manager(tmp_path: Path, mode: str) -> ClusterState:
    path = tmp_path / "slurm.conf"
    path.write_text(MANAGER_CONF + f"PreemptMode={mode}\n")
    mgr = ClusterState(load_config(path), slurm_uid=SLURM_UID)
    register_node(mgr, "n1", now=0.0)
    return mgr


def submit(mgr: ClusterState, now: int, **request: Any) -> Job:
    event = submission(mgr, dataclasses.replace(RAW, **request), ALICE, ALICE, USERS[ALICE], USERS[ALICE], False, now)
    apply(mgr, event)
    return mgr.jobs[event.job.job_id]


def run_pass(mgr: ClusterState, now: int, log: list[Any]) -> list[Effect]:
    effects: list[Effect] = []
    for event in schedule_pass(mgr, now):
        log.append(event)
        effects += apply(mgr, event)
    return effects


def replayed(mgr: ClusterState, log: list[Any], tmp_path: Path) -> ClusterState:
    """A fresh manager fed the journaled events (through their dict form)."""
    fresh = ClusterState(mgr.cfg, slurm_uid=SLURM_UID)
    for event in log:
        apply(fresh, event_from_dict(event_to_dict(event)))
    return fresh


def test_requeue_preemption_ends_the_run_then_requeues_the_same_id(tmp_path: Path) -> None:
    mgr = manager(tmp_path, "REQUEUE")
    log: list[Any] = []
    low = submit(mgr, 100, partition="low", num_tasks=4)
    log.append(JobSubmitted(low))
    run_pass(mgr, 101, log)
    assert mgr.jobs[low.job_id].state is JobState.RUNNING
    high = submit(mgr, 200, partition="high", num_tasks=4)
    log.append(JobSubmitted(high))
    effects = run_pass(mgr, 201, log)
    victim = mgr.jobs[low.job_id]
    assert (victim.state, victim.completing) == (JobState.PREEMPTED, True)
    assert Terminate(low.job_id, ("n1",), "PREEMPTION") in effects
    assert mgr.jobs[high.job_id].state is JobState.PENDING
    assert run_pass(mgr, 202, log) == []                   # waits for the victim; no second victim
    assert node_usage(mgr)["n1"].cpus == 4                # the completing run still holds its CPUs
    finished = BatchFinished(low.job_id, 0, signal.SIGTERM, False, False, 203)
    log.append(finished)
    apply(mgr, finished)
    run_pass(mgr, 204, log)                                # the run is over: requeued
    again = mgr.jobs[low.job_id]
    assert (again.state, again.restarts, again.submit_time, again.reason) == (JobState.PENDING, 1, 204,
                                                                             Reason.BEGIN_TIME)
    assert (again.allocation, again.request.begin_time, again.batch_ended) == (None, 204 + 11, False)
    assert isinstance(log[-1], JobRequeued)
    run_pass(mgr, 205, log)
    assert mgr.jobs[high.job_id].state is JobState.RUNNING
    assert replayed(mgr, log, tmp_path).jobs == mgr.jobs


def test_cancel_preemption_ends_preempted(tmp_path: Path) -> None:
    mgr = manager(tmp_path, "CANCEL")
    low = submit(mgr, 100, partition="low", num_tasks=4)
    run_pass(mgr, 101, [])
    high = submit(mgr, 200, partition="high", num_tasks=2)
    run_pass(mgr, 201, [])
    apply(mgr, BatchFinished(low.job_id, 0, signal.SIGTERM, False, False, 203))
    run_pass(mgr, 204, [])
    ended = mgr.jobs[low.job_id]
    assert (ended.state, ended.completing, ended.end_time) == (JobState.PREEMPTED, False, 201)
    assert mgr.jobs[high.job_id].state is JobState.RUNNING


def test_grace_time_warns_first_and_preempts_at_the_deadline(tmp_path: Path) -> None:
    path = tmp_path / "slurm.conf"
    path.write_text(MANAGER_CONF.replace("PriorityTier=1", "PriorityTier=1 GraceTime=30") + "PreemptMode=CANCEL\n")
    mgr = ClusterState(load_config(path), slurm_uid=SLURM_UID)
    register_node(mgr, "n1", now=0.0)
    low = submit(mgr, 100, partition="low", num_tasks=4)
    run_pass(mgr, 101, [])
    submit(mgr, 200, partition="high", num_tasks=4)
    effects = run_pass(mgr, 201, [])
    assert [e.signal for e in effects if isinstance(e, SignalTasks)] == [signal.SIGCONT, signal.SIGTERM]
    assert mgr.jobs[low.job_id].state is JobState.RUNNING
    assert run_pass(mgr, 220, []) == []                    # in its grace time: nothing more
    effects = run_pass(mgr, 231, [])
    assert mgr.jobs[low.job_id].state is JobState.PREEMPTED
    assert Terminate(low.job_id, ("n1",), "PREEMPTION") in effects


def test_suspend_preemption_frees_cpus_and_resumes_after_the_preemptor(tmp_path: Path) -> None:
    mgr = manager(tmp_path, "SUSPEND,GANG")
    log: list[Any] = []
    low = submit(mgr, 100, partition="low", num_tasks=4, mem_per_node_mb=1000)
    run_pass(mgr, 101, log)
    high = submit(mgr, 200, partition="high", num_tasks=4, mem_per_node_mb=1000)
    effects = run_pass(mgr, 201, log)
    assert SuspendTasks(low.job_id, ("n1",), True) in effects
    assert mgr.jobs[low.job_id].state is JobState.SUSPENDED
    assert (node_usage(mgr)["n1"].cpus, node_usage(mgr)["n1"].memory_mb) == (0, 1000)
    run_pass(mgr, 202, log)
    assert mgr.jobs[high.job_id].state is JobState.RUNNING
    assert run_pass(mgr, 203, log) == []                   # preemptor runs: the victim stays suspended
    apply(mgr, BatchFinished(high.job_id, 0, 0, False, False, 250))
    effects = run_pass(mgr, 251, log)
    assert SuspendTasks(low.job_id, ("n1",), False) in effects
    resumed = mgr.jobs[low.job_id]
    assert (resumed.state, resumed.suspended_secs, resumed.preemption) == (JobState.RUNNING, 50, None)
    assert isinstance(log[-1], JobResumed)


def test_job_requeue_zero_makes_jobs_not_requeueable() -> None:
    desc = types_pb2.JobDesc(script="#!/bin/sh\n")
    assert request_from_desc(desc).requeue and not request_from_desc(desc, requeue_default=False).requeue
    assert request_from_desc(types_pb2.JobDesc(requeue=True, requeue_set=True), requeue_default=False).requeue


def test_events_round_trip() -> None:
    for event in (JobPreempted(JobId(3), JobId(4), "SUSPEND", 10, 5), JobResumed(JobId(3), 11)):
        assert event_from_dict(event_to_dict(event)) == event


def test_preempt_qos_reads_accountings_qos(tmp_path: Path) -> None:
    path = tmp_path / "slurm.conf"
    path.write_text(CONF.replace("PriorityTier=2", "PriorityTier=1")
                    + "PreemptType=preempt/qos\nPreemptMode=REQUEUE\nAuthInfo=cred_expire=10\n")
    mgr = ClusterState(load_config(path), slurm_uid=SLURM_UID)
    register_node(mgr, "n1", now=0.0)
    mgr.associations = AssociationSnapshot("1", qos={
        "normal": Qos(1, "normal"),
        "scavenger": Qos(2, "scavenger", preempt_mode="cancel"),
        "urgent": Qos(3, "urgent", preempt=("scavenger",)),
    })
    normal = submit(mgr, 100, partition="low", num_tasks=2, qos="normal")
    scavenger = submit(mgr, 100, partition="low", num_tasks=2, qos="scavenger")
    run_pass(mgr, 101, [])
    assert {mgr.jobs[normal.job_id].state, mgr.jobs[scavenger.job_id].state} == {JobState.RUNNING}
    submit(mgr, 200, partition="low", num_tasks=2, qos="normal")
    assert not any(isinstance(e, Terminate) for e in run_pass(mgr, 201, []))   # normal preempts nobody
    submit(mgr, 200, partition="low", num_tasks=2, qos="urgent")
    effects = run_pass(mgr, 202, [])
    assert Terminate(scavenger.job_id, ("n1",), "PREEMPTION") in effects
    assert mgr.jobs[scavenger.job_id].state is JobState.PREEMPTED      # its QOS says CANCEL
    assert mgr.jobs[normal.job_id].state is JobState.RUNNING


# ---- scontrol requeue / requeuehold / suspend / resume --------------------------------------------


def plain_manager(tmp_path: Path) -> ClusterState:
    path = tmp_path / "slurm.conf"
    path.write_text(CONF + "AuthInfo=cred_expire=10\n")
    mgr = ClusterState(load_config(path), slurm_uid=SLURM_UID)
    register_node(mgr, "n1", now=0.0)
    return mgr


def test_scontrol_requeue_kills_the_run_then_requeues_it(tmp_path: Path) -> None:
    mgr = plain_manager(tmp_path)
    job = submit(mgr, 100, partition="low", num_tasks=2)
    run_pass(mgr, 101, [])
    with pytest.raises(SlurmError, match="Access/permission denied"):
        requeue_request(mgr, job.job_id, BOB, hold=False, operator=False, incomplete=False, now=150)
    effects = apply(mgr, requeue_request(mgr, job.job_id, ALICE, hold=False, operator=False, incomplete=False, now=150))
    ended = mgr.jobs[job.job_id]
    assert (ended.state, ended.completing) == (JobState.REQUEUED, True)
    assert Terminate(job.job_id, ("n1",), "JOB REQUEUE") in effects
    with pytest.raises(SlurmError, match="Job/step already completing or completed"):
        requeue_request(mgr, job.job_id, ALICE, hold=False, operator=False, incomplete=False, now=151)
    apply(mgr, BatchFinished(job.job_id, 0, signal.SIGTERM, False, False, 152))
    run_pass(mgr, 153, [])
    again = mgr.jobs[job.job_id]
    assert (again.state, again.restarts, again.reason) == (JobState.PENDING, 1, Reason.BEGIN_TIME)
    with pytest.raises(SlurmError, match="Job is pending execution"):
        requeue_request(mgr, job.job_id, ALICE, hold=False, operator=False, incomplete=False, now=154)


def test_requeue_of_finished_jobs_and_requeuehold(tmp_path: Path) -> None:
    mgr = plain_manager(tmp_path)
    job = submit(mgr, 100, partition="low")
    run_pass(mgr, 101, [])
    apply(mgr, BatchFinished(job.job_id, 0, 0, False, False, 120))
    with pytest.raises(SlurmError, match="Job/step already completing or completed"):
        requeue_request(mgr, job.job_id, ALICE, hold=False, operator=False, incomplete=True, now=130)
    apply(mgr, requeue_request(mgr, job.job_id, ROOT, hold=True, operator=True, incomplete=False, now=130))
    held = mgr.jobs[job.job_id]
    assert (held.state, held.restarts, held.reason, held.priority) == (JobState.PENDING, 1, Reason.HELD_ADMIN, 0)
    no_requeue = submit(mgr, 140, partition="low", requeue=False)
    interactive = submit(mgr, 140, partition="low", launcher="salloc")
    run_pass(mgr, 141, [])
    with pytest.raises(SlurmError, match="Requested operation is presently disabled"):
        requeue_request(mgr, no_requeue.job_id, ALICE, hold=False, operator=False, incomplete=False, now=150)
    with pytest.raises(SlurmError, match="Only batch jobs are accepted or processed"):
        requeue_request(mgr, interactive.job_id, ALICE, hold=False, operator=False, incomplete=False, now=150)


def test_scontrol_suspend_and_resume_are_for_operators(tmp_path: Path) -> None:
    mgr = plain_manager(tmp_path)
    job = submit(mgr, 100, partition="low", num_tasks=4)
    run_pass(mgr, 101, [])
    with pytest.raises(SlurmError, match="Access/permission denied"):
        suspension(mgr, job.job_id, ALICE, operator=False, suspend=True, now=110)
    with pytest.raises(SlurmError, match="Job is not suspended"):
        suspension(mgr, job.job_id, ROOT, operator=True, suspend=False, now=110)
    assert SuspendTasks(job.job_id, ("n1",), True) in apply(mgr, suspension(mgr, job.job_id, ROOT, True, True, 110))
    with pytest.raises(SlurmError, match="Job is not running"):
        suspension(mgr, job.job_id, ROOT, operator=True, suspend=True, now=111)
    other = submit(mgr, 112, partition="low", num_tasks=4)
    run_pass(mgr, 113, [])
    assert mgr.jobs[other.job_id].state is JobState.RUNNING     # the suspended job's CPUs were free
    assert run_pass(mgr, 114, []) == []                          # an operator's suspend: no automatic resume
    with pytest.raises(SlurmError, match="Requested operation is presently disabled"):
        suspension(mgr, job.job_id, ROOT, operator=True, suspend=False, now=115)
    apply(mgr, BatchFinished(other.job_id, 0, 0, False, False, 120))
    apply(mgr, suspension(mgr, job.job_id, ROOT, operator=True, suspend=False, now=130))
    assert (mgr.jobs[job.job_id].state, mgr.jobs[job.job_id].suspended_secs) == (JobState.RUNNING, 20)
    # As Slurm's record, SuspendTime is now the resume (scontrol show job: SuspendTime=<resume>).
    assert mgr.jobs[job.job_id].suspend_time == 130


@pytest.mark.parametrize("requeue", [False, True])
def test_a_suspended_job_fails_with_its_node(tmp_path: Path, requeue: bool) -> None:
    """--no-requeue: NODE_FAIL; otherwise requeued, as a running job (Slurm's
    kill_running_job_by_node_name treats a suspended job as a running one)."""
    mgr = plain_manager(tmp_path)
    job = submit(mgr, 100, partition="low", num_tasks=2, mem_per_node_mb=500, requeue=requeue)
    run_pass(mgr, 101, [])
    apply(mgr, suspension(mgr, job.job_id, ROOT, operator=True, suspend=True, now=110))
    apply(mgr, NodeFailed("n1", "Not responding", 120))
    failed = mgr.jobs[job.job_id]
    if requeue:
        assert (failed.state, failed.restarts, failed.suspend_time) == (JobState.PENDING, 1, 0)
    else:
        assert (failed.state, failed.completing) == (JobState.NODE_FAIL, False)
    assert node_usage(mgr)["n1"].memory_mb == 0
