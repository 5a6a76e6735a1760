"""Virtual-time simulation of the scheduler under QOS and association limits (limits.py).

Users of two accounts submit jobs in two QOS with per-user, per-account and group limits on
jobs and CPUs; a fake clock jumps from arrival to job end. After every pass the harness counts,
independently of the limit code, what is running per QOS, per (QOS, user), per (QOS, account),
per user association and per account subtree, and checks:

* no QOS or association limit is ever exceeded (QOS limits are never exceeded), and no job
  starts past its association's MaxJobs unless its QOS's MaxJobsPerUser replaces it;
* no node holds more CPUs than it has;
* a job left pending with a limit reason really was at that limit when its turn came, given
  the running jobs and those the same pass started before it;
* every job finishes: limits delay jobs, they never strand one that fits them.
"""
from __future__ import annotations

import dataclasses
import heapq
import random
from collections import Counter

import pytest

from pyslurm_ctld.model.associations import (AccountingUser, Association, AssociationLimits, AssociationSnapshot, Qos,
                                             QosLimits)
from pyslurm_ctld.model.job import Job, JobId, JobState, Reason
from pyslurm_ctld.sched.limits import limit_gate
from pyslurm_ctld.sched.node_fit import NodeCapacity
from pyslurm_ctld.sched.scheduler import PartitionView, Pend, Start, schedule
from pyslurm_ctld.model.states import transition
from tests.builders import job_request

JOBS = 800
NODES = 12
CPUS = 8
ENFORCE = frozenset({"associations", "limits", "qos"})
USERS = {"u1": "physics", "u2": "physics", "u3": "chem", "u4": "chem"}

QOS = {
    "normal": Qos(1, "normal", limits=QosLimits(max_jobs_per_user=6, max_tres_per_user={"cpu": 12},
                                                grp_tres={"cpu": 60})),
    "high": Qos(2, "high", limits=QosLimits(grp_jobs=4, max_jobs_per_account=3, max_tres_per_account={"cpu": 10})),
}
ACCOUNT_LIMITS = {"physics": AssociationLimits(grp_tres={"cpu": 40}, grp_jobs=14),
                  "chem": AssociationLimits(max_jobs=5, grp_tres={"cpu": 30})}

BASE = job_request(name="sim", partition="batch", ntasks_given=True, cpus_per_task_given=True, time_limit_min=60,
                   std_out="o", std_err="o", script="")


def snapshot() -> AssociationSnapshot:
    def assoc(id: int, account: str, user: str = "", limits: AssociationLimits = AssociationLimits()) -> Association:
        return Association(id, "sim", account, user, "", "" if account == "root" and not user else "root", 1, None,
                           limits, tuple(QOS), "")

    records = [assoc(1, "root")]
    for number, (account, limits) in enumerate(ACCOUNT_LIMITS.items(), start=2):
        records.append(assoc(number, account, limits=limits))
    for number, (user, account) in enumerate(USERS.items(), start=10):
        records.append(assoc(number, account, user))
    return AssociationSnapshot("sim:1", tuple(records), QOS,
                               {u: AccountingUser(u, a, "None") for u, a in USERS.items()})


Totals = dict[str, Counter[object]]


def running_totals(running: list[Job]) -> Totals:
    """The oracle: jobs and CPUs per scope, counted from the running jobs alone."""
    totals: Totals = {k: Counter() for k in (
        "qos_jobs", "qos_cpus", "user_jobs", "user_cpus", "acct_jobs", "acct_cpus", "sub_jobs", "sub_cpus")}
    for job in running:
        add_running(totals, job)
    return totals


def add_running(totals: Totals, job: Job) -> None:
    q, u, a = job.request.qos, job.user_name, job.request.account
    cpus = job.allocation.total_cpus if job.allocation else 0
    totals["qos_jobs"][q] += 1
    totals["qos_cpus"][q] += cpus
    totals["user_jobs"][(q, u)] += 1
    totals["user_cpus"][(q, u)] += cpus
    totals["acct_jobs"][(q, a)] += 1
    totals["acct_cpus"][(q, a)] += cpus
    totals["sub_jobs"][a] += 1
    totals["sub_cpus"][a] += cpus
    totals["sub_jobs"][("user", u)] += 1


def check_limits(running: list[Job]) -> None:
    t = running_totals(running)
    for name, qos in QOS.items():
        lim = qos.limits
        if lim.grp_jobs is not None:
            assert t["qos_jobs"][name] <= lim.grp_jobs, f"QOS {name} GrpJobs"
        if "cpu" in lim.grp_tres:
            assert t["qos_cpus"][name] <= lim.grp_tres["cpu"], f"QOS {name} GrpTRES"
        for user, account in USERS.items():
            if lim.max_jobs_per_user is not None:
                assert t["user_jobs"][(name, user)] <= lim.max_jobs_per_user, f"QOS {name} MaxJobsPerUser {user}"
            if "cpu" in lim.max_tres_per_user:
                assert t["user_cpus"][(name, user)] <= lim.max_tres_per_user["cpu"], f"QOS {name} MaxTRESPerUser"
            if lim.max_jobs_per_account is not None:
                assert t["acct_jobs"][(name, account)] <= lim.max_jobs_per_account, f"QOS {name} MaxJobsPerAccount"
            if "cpu" in lim.max_tres_per_account:
                assert t["acct_cpus"][(name, account)] <= lim.max_tres_per_account["cpu"]
    for account, limits in ACCOUNT_LIMITS.items():
        if limits.grp_jobs is not None:
            assert t["sub_jobs"][account] <= limits.grp_jobs, f"{account} GrpJobs"
        if "cpu" in limits.grp_tres:
            assert t["sub_cpus"][account] <= limits.grp_tres["cpu"], f"{account} GrpTRES"


def check_max_jobs(job: Job, totals: Totals) -> None:
    """The account's MaxJobs, inherited by its users, holds each start in a QOS that sets no
    MaxJobsPerUser of its own (one that does replaces it: spec §5.2)."""
    limit = ACCOUNT_LIMITS[job.request.account].max_jobs
    if limit is not None and QOS[job.request.qos].limits.max_jobs_per_user is None:
        assert totals["sub_jobs"][("user", job.user_name)] < limit, f"{job.user_name} MaxJobs"


def build_jobs(rng: random.Random) -> list[tuple[int, Job, int]]:
    """(arrival, job, run time) for every job; each fits all its limits on its own."""
    out = []
    now = 0
    for number in range(1, JOBS + 1):
        now += rng.choice((0, 0, 1, 5, 20))
        user = rng.choice(list(USERS))
        qos = rng.choice(("normal", "normal", "high"))
        cpus = rng.choice((1, 1, 2, 4, 8))
        req = dataclasses.replace(BASE, account=USERS[user], qos=qos, num_tasks=cpus)
        job = Job(job_id=JobId(number), request=req, uid=1000, gid=1000, user_name=user, group_name=user,
                  submit_time=now, priority=10_000 - number)
        out.append((now, job, rng.randint(10, 400)))
    return out


def at_limit(reason: Reason, job: Job, t: Totals) -> bool:
    """Whether the running jobs (including this pass's starts) really hold ``job`` back."""
    q, u, a = job.request.qos, job.user_name, job.request.account
    cpus = job.request.total_cpus
    lim = QOS[q].limits
    account = ACCOUNT_LIMITS[a]
    checks = {
        Reason.QOS_MAX_JOBS_PER_USER: lambda: t["user_jobs"][(q, u)] + 1 > (lim.max_jobs_per_user or 0),
        Reason.QOS_MAX_CPU_PER_USER: lambda: t["user_cpus"][(q, u)] + cpus > lim.max_tres_per_user["cpu"],
        Reason.QOS_GRP_CPU: lambda: t["qos_cpus"][q] + cpus > lim.grp_tres["cpu"],
        Reason.QOS_GRP_JOBS: lambda: t["qos_jobs"][q] + 1 > (lim.grp_jobs or 0),
        Reason.MAX_JOBS_PER_ACCOUNT: lambda: t["acct_jobs"][(q, a)] + 1 > (lim.max_jobs_per_account or 0),
        Reason.MAX_CPU_PER_ACCOUNT: lambda: t["acct_cpus"][(q, a)] + cpus > lim.max_tres_per_account["cpu"],
        Reason.ASSOC_GRP_CPU: lambda: t["sub_cpus"][a] + cpus > account.grp_tres["cpu"],
        Reason.ASSOC_GRP_JOBS: lambda: t["sub_jobs"][a] + 1 > (account.grp_jobs or 0),
        Reason.ASSOC_MAX_JOBS: lambda: t["sub_jobs"][("user", u)] + 1 > (account.max_jobs or 0),
    }
    return reason in checks and checks[reason]()


def simulate(seed: int) -> int:
    rng = random.Random(seed)
    snap = snapshot()
    arrivals = build_jobs(rng)
    run_time = {job.job_id: seconds for _, job, seconds in arrivals}
    nodes = [f"n{i}" for i in range(NODES)]
    view = {"batch": PartitionView("batch", tuple(nodes), "UP", -1, None, 0, 1)}
    pending: dict[JobId, Job] = {}
    running: dict[JobId, Job] = {}
    ends: list[tuple[int, int]] = []
    finished = 0
    clock = 0
    index = 0
    limit_pends = 0
    while finished < JOBS:
        upcoming = [t for t in (arrivals[index][0] if index < len(arrivals) else None, ends[0][0] if ends else None)
                    if t is not None]
        assert upcoming, "jobs left pending with nothing running and nothing to come"
        clock = min(upcoming)
        while index < len(arrivals) and arrivals[index][0] == clock:
            job = arrivals[index][1]
            pending[job.job_id] = job
            index += 1
        while ends and ends[0][0] == clock:
            _, job_id = heapq.heappop(ends)
            del running[JobId(job_id)]
            finished += 1
        used = {n: 0 for n in nodes}
        for job in running.values():
            assert job.allocation is not None
            for node, cpus in zip(job.allocation.nodes, job.allocation.cpus_per_node, strict=True):
                used[node] += cpus
        capacities = {n: NodeCapacity(n, True, CPUS, 10_000, frozenset(range(used[n], CPUS)), 10_000) for n in nodes}
        gate = limit_gate(snap, ENFORCE, running.values())
        in_pass = running_totals(list(running.values()))
        for decision in schedule(pending.values(), capacities, view, limits=gate):
            job = pending[decision.job_id]
            if isinstance(decision, Start):
                check_max_jobs(job, in_pass)
                started = transition(job, JobState.RUNNING, allocation=decision.allocation, start_time=clock)
                del pending[job.job_id]
                running[job.job_id] = started
                add_running(in_pass, started)
                heapq.heappush(ends, (clock + run_time[job.job_id], job.job_id))
            elif isinstance(decision, Pend) and decision.reason not in (Reason.RESOURCES, Reason.PRIORITY):
                limit_pends += 1
                assert at_limit(decision.reason, job, in_pass), f"job {job.job_id}: {decision.reason} not at limit"
        check_limits(list(running.values()))
        held = Counter[str]()
        for job in running.values():
            assert job.allocation is not None
            held.update(dict(zip(job.allocation.nodes, job.allocation.cpus_per_node, strict=True)))
        assert all(cpus <= CPUS for cpus in held.values())
    assert not pending and not running
    return limit_pends


@pytest.mark.parametrize("seed", [1, 2])
def test_qos_and_association_limits_are_never_exceeded(seed: int) -> None:
    assert simulate(seed) > 100     # the workload really runs into its limits
