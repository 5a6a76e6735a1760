"""QOS and association limits (pyslurm_ctld/sched/limits.py) through the pure scheduler: pending
reasons with Slurm's names, jobs started in the same pass counting, precedence of the QOS over
the association, submit-time refusals (spec scheduling-policy.md §5)."""
from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from pyslurm_common.errors import SlurmError
from pyslurm_ctld.model.associations import (AccountingUser, Association, AssociationLimits, AssociationSnapshot, Qos,
                                             QosLimits)
from pyslurm_ctld.model.job import Allocation, ArrayInfo, Job, JobId, JobState
from pyslurm_ctld.sched.limits import LimitGate, default_time_limit, limit_gate, submit_refusal
from pyslurm_ctld.sched.scheduler import schedule

from test_scheduler import BASE_REQUEST, by_name, node, outcome, partition, parts

ENFORCE = frozenset({"associations", "limits", "qos"})


def assoc(id: int, account: str, user: str = "", parent: str = "root", **limits: Any) -> Association:
    return Association(id=id, cluster="lab", account=account, user=user, partition="",
                       parent_account="" if account == "root" and not user else parent, shares=1, priority=None,
                       limits=AssociationLimits(**limits), qos=("normal", "high"), default_qos="")


def world(qos: QosLimits = QosLimits(), physics: dict[str, Any] | None = None,
          alice: dict[str, Any] | None = None, flags: frozenset[str] = frozenset()) -> AssociationSnapshot:
    return AssociationSnapshot(
        version="v", associations=(assoc(1, "root"), assoc(2, "physics", **(physics or {})),
                                   assoc(3, "physics", "alice", **(alice or {})), assoc(4, "physics", "bob")),
        qos={"normal": Qos(1, "normal", limits=qos, flags=flags), "high": Qos(2, "high")},
        users={u: AccountingUser(u, "physics", "None") for u in ("alice", "bob")})


def job(job_id: int, user: str = "alice", qos: str = "normal", state: JobState = JobState.PENDING,
        cpus: int = 1, nodes: tuple[str, ...] = (), **request: Any) -> Job:
    req = dataclasses.replace(BASE_REQUEST, account="physics", qos=qos, num_tasks=cpus, **request)
    allocation = Allocation(nodes, (cpus,) * len(nodes), (0,) * len(nodes)) if nodes else None
    return Job(job_id=JobId(job_id), request=req, uid=1000, gid=1000, user_name=user, group_name=user,
               submit_time=0, priority=1000 - job_id, state=state, allocation=allocation)


def running(job_id: int, user: str = "alice", cpus: int = 1, qos: str = "normal") -> Job:
    return job(job_id, user, qos, JobState.RUNNING, cpus, nodes=("n9",))


def run_pass(snap: AssociationSnapshot, pending: list[Job], already: list[Job] = [],  # noqa: B006
             enforce: frozenset[str] = ENFORCE, cpus: int = 8) -> dict[int, Any]:
    gate = limit_gate(snap, enforce, [*pending, *already])
    return outcome(schedule(pending, by_name(node("n1", cpus=cpus), node("n2", cpus=cpus)),
                            parts(partition("batch", ["n1", "n2"])), limits=gate))


def test_qos_max_jobs_per_user_counts_running_jobs_and_starts_of_the_same_pass() -> None:
    snap = world(QosLimits(max_jobs_per_user=2))
    assert run_pass(snap, [job(1), job(2), job(3), job(4, "bob")], [running(9)]) == {
        1: ("n1",), 2: "QOSMaxJobsPerUserLimit", 3: "QOSMaxJobsPerUserLimit", 4: ("n1",)}


def test_a_job_over_a_limit_blocks_nothing_behind_it() -> None:
    snap = world(QosLimits(max_tres_per_user={"cpu": 2}))
    result = run_pass(snap, [job(1, cpus=2), job(2, cpus=1), job(3, "bob", cpus=2)])
    assert result == {1: ("n1",), 2: "QOSMaxCpuPerUserLimit", 3: ("n1",)}


@pytest.mark.parametrize(("qos", "physics", "alice", "pending", "reason"), [
    (QosLimits(grp_tres={"cpu": 3}), None, None, job(1, cpus=4), "QOSGrpCpuLimit"),
    (QosLimits(grp_jobs=1), None, None, job(1), "QOSGrpJobsLimit"),
    (QosLimits(max_wall=5), None, None, job(1, time_limit_min=10), "QOSMaxWallDurationPerJobLimit"),
    (QosLimits(max_wall=5), None, None, job(1, time_limit_min=-1), "QOSMaxWallDurationPerJobLimit"),
    (QosLimits(max_tres_per_job={"cpu": 2}), None, None, job(1, cpus=3), "QOSMaxCpuPerJobLimit"),
    (QosLimits(max_tres_per_job={"node": 1}), None, None, job(1, min_nodes=2), "QOSMaxNodePerJobLimit"),
    (QosLimits(max_jobs_per_account=1), None, None, job(1), "MaxJobsPerAccount"),
    (QosLimits(min_tres_per_job={"cpu": 2}), None, None, job(1), "QOSMinCpuNotSatisfied"),
    (QosLimits(), {"grp_tres": {"cpu": 4}}, None, job(1, cpus=4), "AssocGrpCpuLimit"),
    (QosLimits(), {"grp_jobs": 1}, None, job(1), "AssocGrpJobsLimit"),
    (QosLimits(), {"max_jobs": 0}, None, job(1), "AssocMaxJobsLimit"),            # inherited from the account
    (QosLimits(), None, {"max_wall": 5}, job(1, time_limit_min=6), "AssocMaxWallDurationPerJobLimit"),
    (QosLimits(), None, {"max_tres": {"cpu": 1}}, job(1, cpus=2), "AssocMaxCpuPerJobLimit"),
])
def test_each_limit_has_its_reason(qos: QosLimits, physics: dict[str, Any] | None, alice: dict[str, Any] | None,
                                   pending: Job, reason: str) -> None:
    assert run_pass(world(qos, physics, alice), [pending], [running(9, "bob")]) == {1: reason}


def test_the_qos_limit_replaces_the_associations_limit_of_the_same_kind() -> None:
    snap = world(QosLimits(max_jobs_per_user=3, max_wall=100), alice={"max_jobs": 1, "max_wall": 5})
    assert run_pass(snap, [job(1, time_limit_min=50), job(2, time_limit_min=50)]) == {1: ("n1",), 2: ("n1",)}


def test_association_limits_bind_users_of_the_whole_subtree() -> None:
    snap = world(physics={"grp_tres": {"cpu": 3}})
    assert run_pass(snap, [job(1, cpus=2), job(2, "bob", cpus=2), job(3, "bob", cpus=1)]) == {
        1: ("n1",), 2: "AssocGrpCpuLimit", 3: ("n1",)}


def test_without_limits_enforced_only_the_association_itself_is_checked() -> None:
    snap = world(QosLimits(max_jobs_per_user=0))
    assert run_pass(snap, [job(1)], enforce=frozenset({"associations"})) == {1: ("n1",)}
    assert limit_gate(snap, frozenset(), []) is None
    gone = dataclasses.replace(snap, associations=snap.associations[:2])
    assert run_pass(gone, [job(1)]) == {1: "InvalidAccount"}
    assert run_pass(snap, [job(1, qos="nosuch")]) == {1: "InvalidQOS"}


def test_array_tasks_stop_at_the_limit_and_the_rest_waits_with_its_reason() -> None:
    array = dataclasses.replace(job(1), array=ArrayInfo(JobId(1), None, (0, 1, 2, 3), 0, 4, 0, 3, 1))
    decisions = schedule([array, job(2, "bob")], by_name(node("n1", cpus=8)), parts(partition("batch", ["n1"])),
                         limits=LimitGate(world(QosLimits(max_jobs_per_user=2)), ENFORCE, []))
    assert [(d.job_id, getattr(d, "array_task_id", None) if hasattr(d, "allocation") else str(d.reason))
            for d in decisions] == [(1, 0), (1, 1), (1, "QOSMaxJobsPerUserLimit"), (2, None)]


def test_submit_limits_refuse_with_the_reason_as_detail() -> None:
    snap = world(QosLimits(max_submit_per_user=2))
    alice = snap.user_association("alice", "physics", "")
    queued = [job(1), running(2)]
    req = dataclasses.replace(BASE_REQUEST, account="physics", qos="normal")
    submit_refusal(snap, ENFORCE, [job(1)], "alice", alice, req, {"cpu": 1}, 1)
    with pytest.raises(SlurmError) as exc:
        submit_refusal(snap, ENFORCE, queued, "alice", alice, req, {"cpu": 1}, 1)
    assert (exc.value.detail, exc.value.strerror) == (
        "QOSMaxSubmitJobPerUserLimit",
        "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)")
    with pytest.raises(SlurmError, match="policy") as exc:        # an array counts each task
        submit_refusal(snap, ENFORCE, [], "alice", alice, req, {"cpu": 1}, 3)
    submit_refusal(snap, frozenset({"associations", "qos"}), queued, "alice", alice, req, {"cpu": 1}, 1)
    inherited = world(physics={"max_submit": 1})
    with pytest.raises(SlurmError) as exc:
        submit_refusal(inherited, ENFORCE, [job(1, "bob")], "bob", inherited.user_association("bob", "physics", ""),
                       req, {"cpu": 1}, 1)
    assert exc.value.detail == "AssocMaxSubmitJobLimit"


def test_deny_on_limit_refuses_what_would_pend_forever() -> None:
    limits = QosLimits(max_wall=30, max_tres_per_job={"cpu": 4})
    snap, plain = world(limits, flags=frozenset({"DenyOnLimit"})), world(limits)
    alice = snap.user_association("alice", "physics", "")
    req = dataclasses.replace(BASE_REQUEST, account="physics", qos="normal", time_limit_min=60)
    for request, tres, reason in ((req, {"cpu": 1}, "QOSMaxWallDurationPerJobLimit"),
                                  (dataclasses.replace(req, time_limit_min=10), {"cpu": 8}, "QOSMaxCpuPerJobLimit")):
        with pytest.raises(SlurmError) as exc:
            submit_refusal(snap, ENFORCE, [], "alice", alice, request, tres, 1)
        assert exc.value.detail == reason
        submit_refusal(plain, ENFORCE, [], "alice", alice, request, tres, 1)   # without the flag: it pends


def test_a_job_without_time_limit_gets_the_max_wall() -> None:
    snap = world(QosLimits(max_wall=30), alice={"max_wall": 10})
    alice = snap.user_association("alice", "physics", "")
    assert default_time_limit(snap, ENFORCE, "normal", alice, -1) == 30
    assert default_time_limit(snap, ENFORCE, "high", alice, -1) == 10
    assert default_time_limit(snap, ENFORCE, "high", alice, 5) == 5
    assert default_time_limit(snap, frozenset({"associations"}), "normal", alice, -1) == -1


def test_the_partition_qos_binds_every_job_of_the_partition_first() -> None:
    snap = dataclasses.replace(world(), qos={**world().qos, "part": Qos(3, "part", limits=QosLimits(
        grp_jobs=2, max_wall=30))})
    gate = limit_gate(snap, ENFORCE, [running(9, "bob")], {"batch": "part"})
    decisions = schedule([job(1), job(2, "bob"), job(3, time_limit_min=60, qos="high")],
                         by_name(node("n1", cpus=8)), parts(partition("batch", ["n1"])), limits=gate)
    assert outcome(decisions) == {1: ("n1",), 2: "QOSGrpJobsLimit", 3: "QOSMaxWallDurationPerJobLimit"}
    assert limit_gate(snap, ENFORCE, [], {"batch": "nosuch"}).blocked(job(1), "batch", {"cpu": 1}) is None  # type: ignore[union-attr]
