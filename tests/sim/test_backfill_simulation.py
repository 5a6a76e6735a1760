"""Virtual-time simulation of backfill (pyslurm_ctld/sched/backfill.py through scheduler.schedule).

The cluster and mixed workload of the FIFO simulation (three partitions, one overlapping the
other two, GPUs of two types, multi-node jobs), without drains: a drained node may rightly
delay a reservation. Every pass runs main + backfill on a snapshot; the harness then checks,
independently of the scheduler's code:

* no CPU id, GPU index or MB of memory is booked twice at any moment: running jobs (until their
  time limit), the jobs the pass starts and the reservations it makes, checked per node at every
  time one of them begins (spec scheduling-policy.md §2.3);
* the top job (first in priority order among those that may run) is never delayed by the jobs
  behind it: once reserved, each later pass expects it no later, and it starts no later than
  first promised - with jobs that run exactly their time limit and with jobs that end early;
* every reserved job is expected within bf_window, on nodes of its partition;
* everything completes, and backfill uses the cluster better than strict priority (FIFO) does
  on the same workload: earlier makespan, shorter mean wait.
"""
from __future__ import annotations

import dataclasses
import heapq
import random
from dataclasses import dataclass

import pytest

from pyslurm_ctld.sched.backfill import FOREVER, Backfill, RunningJob
from pyslurm_ctld.settings.sched_params import BackfillPolicy
from pyslurm_ctld.model.job import Allocation, Hold, Job, JobId, JobState
from pyslurm_ctld.sched.scheduler import Pend, Start, schedule
from pyslurm_ctld.model.states import transition

from .test_fifo_simulation import Cluster, FakeClock, admit, build_cluster, build_workload, check_capacity, \
    order_key, snapshot

MAX_STEPS = 20000
JOBS = 400             # of the FIFO simulation's workload: each pass places every waiting job in time
POLICY = BackfillPolicy(window_s=1440 * 60, resolution_s=60, max_job_test=500)


@dataclass
class Outcome:
    makespan: int = 0
    total_wait: int = 0
    backfilled: int = 0           # starts of jobs behind a job waiting for resources
    reservations: int = 0
    top_checks: int = 0           # passes in which a promised top job was checked


@dataclass(frozen=True, slots=True)
class Interval:
    job_id: JobId
    start: int
    end: int
    allocation: Allocation


def check_no_double_booking(intervals: list[Interval], cluster: Cluster) -> None:
    """At every moment one of them begins, the intervals active on each node hold distinct CPU
    ids and GPU indices and no more memory than the node has."""
    per_node: dict[str, list[tuple[Interval, int]]] = {}
    for item in intervals:
        for index, name in enumerate(item.allocation.nodes):
            per_node.setdefault(name, []).append((item, index))
    for name, items in per_node.items():
        spec = cluster.nodes[name]
        for moment in {i.start for i, _ in items}:
            active = [(i, x) for i, x in items if i.start <= moment < i.end]
            cpus = [c for i, x in active for c in i.allocation.cpus_on(x)]
            gpus = [g for i, x in active for g in i.allocation.gpus_on(x)]
            memory = sum(i.allocation.memory_mb_per_node[x] for i, x in active)
            who = sorted(i.job_id for i, _ in active)
            assert len(cpus) == len(set(cpus)), f"{name} at {moment}: a CPU booked twice by {who}"
            assert len(gpus) == len(set(gpus)), f"{name} at {moment}: a GPU booked twice by {who}"
            assert memory <= spec.memory_mb, f"{name} at {moment}: {memory} MB booked of {spec.memory_mb} by {who}"


def simulate(seed: int, backfill: bool, exact: bool) -> Outcome:
    rng = random.Random(seed)
    cluster = build_cluster(rng)
    workload = build_workload(rng, cluster)[:JOBS]
    if exact:       # every job runs exactly its time limit
        workload = [(t, dataclasses.replace(a, duration=a.job.request.time_limit_min * 60)) for t, a in workload]
    clock = FakeClock()
    outcome = Outcome()
    arrivals = list(reversed(workload))
    ends: list[tuple[int, JobId]] = []
    releases: list[tuple[int, JobId]] = []
    pending: dict[JobId, Job] = {}
    running: dict[JobId, Job] = {}
    durations: dict[JobId, int] = {}
    done = 0
    promised: dict[JobId, int] = {}       # the top job -> the latest start it was promised
    steps = 0

    while arrivals or pending or running:
        steps += 1
        assert steps < MAX_STEPS, "the simulation does not converge"
        upcoming = [t for t in (arrivals[-1][0] if arrivals else None, ends[0][0] if ends else None,
                                releases[0][0] if releases else None) if t is not None]
        assert upcoming, f"stuck at {clock.now}: pending {sorted(pending)} can never start"
        clock.advance_to(max(clock.now, min(upcoming)))
        now = clock.now
        while ends and ends[0][0] <= now:
            _, job_id = heapq.heappop(ends)
            running.pop(job_id)
            done += 1
            outcome.makespan = max(outcome.makespan, now)
        admit(now, arrivals, releases, pending, durations)
        if not pending:
            continue

        nodes = snapshot(running, cluster)
        queue = sorted(pending.values(), key=lambda j: order_key(j, cluster))
        bf = Backfill(POLICY, nodes, [RunningJob(j.job_id, j.allocation, j.start_time + j.request.time_limit_min * 60)
                                      for j in running.values() if j.allocation], now) if backfill else None
        decisions = schedule(queue, nodes, cluster.partitions, backfill=bf)
        assert [d.job_id for d in decisions if isinstance(d, Pend)] == \
            [j.job_id for j in queue if j.job_id not in {d.job_id for d in decisions if isinstance(d, Start)}]

        intervals = [Interval(j.job_id, j.start_time, j.start_time + j.request.time_limit_min * 60, j.allocation)
                     for j in running.values() if j.allocation]
        blocked_seen = False
        top = next((j for j in queue if j.hold is Hold.NONE), None)
        for decision in decisions:
            job = pending[decision.job_id]
            if isinstance(decision, Pend):
                blocked_seen = blocked_seen or decision.expected is not None
                if decision.expected is None:
                    continue
                expected = decision.expected
                outcome.reservations += 1
                assert now < expected.start_time <= now + POLICY.window_s
                assert expected.end_time == FOREVER or expected.end_time >= expected.start_time + \
                    job.request.time_limit_min * 60
                assert set(expected.nodes) <= set(cluster.partitions[expected.partition].nodes)
                intervals.append(Interval(job.job_id, expected.start_time, expected.end_time, expected.allocation))
                continue
            outcome.backfilled += blocked_seen
            intervals.append(Interval(job.job_id, now, now + job.request.time_limit_min * 60, decision.allocation))
        check_no_double_booking(intervals, cluster)

        if top is not None:
            verdict = next(d for d in decisions if d.job_id == top.job_id)
            for job_id in list(promised):
                if job_id != top.job_id:       # a job of higher priority arrived: no promise to keep
                    del promised[job_id]
            if isinstance(verdict, Start):
                if top.job_id in promised:
                    outcome.top_checks += 1
                    assert now <= promised.pop(top.job_id), f"job={top.job_id} started later than promised"
            elif verdict.expected is not None:
                if top.job_id in promised:
                    outcome.top_checks += 1
                    assert verdict.expected.start_time <= promised[top.job_id], \
                        f"job={top.job_id} delayed from {promised[top.job_id]} to {verdict.expected.start_time}"
                promised[top.job_id] = verdict.expected.start_time

        for decision in decisions:
            if isinstance(decision, Start):
                job = transition(pending.pop(decision.job_id), JobState.RUNNING,
                                 allocation=decision.allocation, start_time=now)
                running[job.job_id] = job
                outcome.total_wait += now - job.submit_time
                heapq.heappush(ends, (now + durations[job.job_id], job.job_id))
        check_capacity(running, cluster)

    assert done == len(workload)
    return outcome


@pytest.mark.parametrize("exact", [True, False], ids=["jobs-run-their-limit", "jobs-end-early"])
def test_backfill_never_delays_the_top_job_and_never_double_books(exact: bool) -> None:
    outcome = simulate(3, backfill=True, exact=exact)
    # The workload must exercise what is checked, or the checks prove little.
    assert outcome.reservations > 500 and outcome.backfilled > 100 and outcome.top_checks > 100, outcome


@pytest.mark.parametrize("exact", [True, False], ids=["jobs-run-their-limit", "jobs-end-early"])
def test_backfill_uses_the_cluster_better_than_strict_priority(exact: bool) -> None:
    fifo = simulate(5, backfill=False, exact=exact)
    backfilled = simulate(5, backfill=True, exact=exact)
    assert backfilled.makespan < fifo.makespan, (backfilled, fifo)
    assert backfilled.total_wait < fifo.total_wait * 0.9, (backfilled, fifo)
