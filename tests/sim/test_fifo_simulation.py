"""Virtual-time simulation of the FIFO scheduler (pyslurm_ctld/scheduler.py) with invariants.

A fake clock jumps from event to event (arrival, job end, hold release, node drain/resume).
At every step the harness runs `schedule` on a snapshot, applies the Start decisions and then
checks, independently of the scheduler's own code:

* no node has more CPUs or memory allocated than it has;
* no job is started twice, and only pending jobs are started, on usable nodes of their partition;
* every pending job gets one decision, in spec order (tier, priority, submit time, id: §2.1);
* strict FIFO per partition (§2.2): a job left pending for `Resources` really did not fit the
  resources left at its turn, and after it no later job of that partition starts (`Priority`);
* in the end every job has completed.
"""
from __future__ import annotations

import dataclasses
import heapq
import math
import random
from dataclasses import dataclass, field

import pytest

from pyslurm_ctld.job import Allocation, Hold, Job, JobId, JobRequest, JobState, Reason
from pyslurm_ctld.scheduler import Decision, NodeCapacity, PartitionView, Pend, Start, schedule
from pyslurm_ctld.states import transition

JOBS = 2000
NODES = 50
MAX_STEPS = 20000

BASE_REQUEST = JobRequest(
    name="sim", partition="", account="", qos="", min_nodes=1, num_tasks=1, cpus_per_task=1,
    ntasks_given=True, cpus_per_task_given=True, mem_per_node_mb=0, mem_per_cpu_mb=0,
    time_limit_min=60, work_dir="/tmp", std_out="slurm-%j.out", std_err="slurm-%j.out",
    std_in="/dev/null", script="#!/bin/sh\ntrue\n", environment=(), argv=(), command="",
    submit_host="login", umask=0o022, export_env="", append_output=False, nice=0, requeue=True,
)


class FakeClock:
    """Virtual seconds; only moves forward."""

    def __init__(self) -> None:
        self.now = 0

    def advance_to(self, when: int) -> None:
        assert when >= self.now, f"clock went back from {self.now} to {when}"
        self.now = when


@dataclass(frozen=True, slots=True)
class SimNode:
    name: str
    cpus: int
    memory_mb: int


@dataclass(frozen=True, slots=True)
class Need:
    nodes: int
    cpus_per_node: int
    memory_mb_per_node: int


def need_of(req: JobRequest) -> Need:
    """The oracle's reading of a request (spec: tasks x cpus spread evenly over min_nodes)."""
    nodes = max(1, req.min_nodes)
    cpus = math.ceil(req.num_tasks * req.cpus_per_task / nodes)
    memory = req.mem_per_node_mb or req.mem_per_cpu_mb * cpus
    return Need(nodes, cpus, memory)


@dataclass(frozen=True, slots=True)
class Arrival:
    job: Job
    duration: int
    release_after: int | None   # submitted held; released this many seconds after submission


@dataclass
class Cluster:
    nodes: dict[str, SimNode]
    partitions: dict[str, PartitionView]
    drained: set[str] = field(default_factory=set)


# ---- workload -------------------------------------------------------------------------------


def build_cluster(rng: random.Random) -> Cluster:
    nodes = {}
    for i in range(NODES):
        cpus = rng.choice([4, 8, 16, 32])
        nodes[f"n{i:02d}"] = SimNode(f"n{i:02d}", cpus, cpus * rng.choice([500, 1000, 4000]))
    names = sorted(nodes)
    partitions = {
        "batch": PartitionView("batch", tuple(names[:30]), "UP", -1, None, 0, 1),
        "gpu": PartitionView("gpu", tuple(names[30:]), "UP", 120, None, 0, 2),
        # Overlaps both others: its jobs compete with theirs for the same nodes.
        "wide": PartitionView("wide", tuple(names), "UP", -1, 4, 0, 1),
    }
    return Cluster(nodes, partitions)


def satisfiable(cluster: Cluster, req: JobRequest) -> bool:
    need = need_of(req)
    part = cluster.partitions[req.partition]
    fitting = [n for n in part.nodes if cluster.nodes[n].cpus >= need.cpus_per_node
               and cluster.nodes[n].memory_mb >= need.memory_mb_per_node]
    return len(fitting) >= need.nodes


def build_workload(rng: random.Random, cluster: Cluster) -> list[tuple[int, Arrival]]:
    arrivals = []
    now = 0
    for job_id in range(1, JOBS + 1):
        now += int(rng.expovariate(1 / 6))
        while True:
            partition = rng.choices(["batch", "gpu", "wide"], weights=[5, 3, 2])[0]
            min_nodes = 1 if rng.random() < 0.8 else rng.randint(2, 4)
            memory = rng.choice(["none", "per_cpu", "per_node"])
            req = dataclasses.replace(
                BASE_REQUEST, partition=partition, min_nodes=min_nodes,
                num_tasks=rng.randint(1, 4) * min_nodes, cpus_per_task=rng.choice([1, 1, 2, 4]),
                mem_per_cpu_mb=rng.choice([100, 500, 1000]) if memory == "per_cpu" else 0,
                mem_per_node_mb=rng.choice([500, 2000, 8000]) if memory == "per_node" else 0,
                time_limit_min=rng.choice([30, 60, 120]))
            if satisfiable(cluster, req):
                break
        held = rng.random() < 0.03
        job = Job(job_id=JobId(job_id), request=req, uid=1000 + job_id % 7, gid=1000,
                  user_name=f"u{job_id % 7}", group_name="users", submit_time=now,
                  hold=Hold.USER if held else Hold.NONE, priority=0 if held else rng.randint(1, 1000))
        arrivals.append((now, Arrival(job, rng.randint(10, 900), rng.randint(60, 3000) if held else None)))
    return arrivals


def build_drains(rng: random.Random, cluster: Cluster, horizon: int) -> list[tuple[int, str, bool]]:
    """(time, node, drained?) changes: a few nodes go away for a while and come back."""
    changes = []
    for name in rng.sample(sorted(cluster.nodes), 6):
        start = rng.randint(0, horizon)
        changes += [(start, name, True), (start + rng.randint(300, 3000), name, False)]
    return sorted(changes)


# ---- the oracle -----------------------------------------------------------------------------


def order_key(job: Job, cluster: Cluster) -> tuple[int, int, int, int]:
    return (-cluster.partitions[job.request.partition].priority_tier, -job.priority, job.submit_time,
            job.job_id)


def usage(running: dict[JobId, Job], cluster: Cluster) -> tuple[dict[str, int], dict[str, int]]:
    cpus = {n: 0 for n in cluster.nodes}
    mem = {n: 0 for n in cluster.nodes}
    for job in running.values():
        assert job.allocation is not None
        for name, c, m in zip(job.allocation.nodes, job.allocation.cpus_per_node,
                              job.allocation.memory_mb_per_node):
            cpus[name] += c
            mem[name] += m
    return cpus, mem


def snapshot(running: dict[JobId, Job], cluster: Cluster) -> dict[str, NodeCapacity]:
    cpus, mem = usage(running, cluster)
    return {n.name: NodeCapacity(n.name, n.name not in cluster.drained, n.cpus, n.memory_mb,
                                 n.cpus - cpus[n.name], n.memory_mb - mem[n.name])
            for n in cluster.nodes.values()}


def check_pass(pending: list[Job], decisions: list[Decision], nodes: dict[str, NodeCapacity],
               cluster: Cluster) -> None:
    ordered = sorted(pending, key=lambda j: order_key(j, cluster))
    assert [d.job_id for d in decisions] == [j.job_id for j in ordered], "one decision per job, in order"
    free_cpus = {n: c.free_cpus if c.usable else 0 for n, c in nodes.items()}
    free_mem = {n: c.free_memory_mb if c.usable else 0 for n, c in nodes.items()}
    blocked: set[str] = set()
    for job, decision in zip(ordered, decisions):
        part = cluster.partitions[job.request.partition]
        need = need_of(job.request)
        if job.hold is not Hold.NONE:
            assert decision == Pend(job.job_id, Reason.HELD_USER), f"job={job.job_id} is held"
            continue
        if isinstance(decision, Start):
            alloc = decision.allocation
            assert part.name not in blocked, f"job={job.job_id} started behind a blocked job of {part.name}"
            assert len(set(alloc.nodes)) == len(alloc.nodes) == need.nodes
            assert alloc.cpus_per_node == (need.cpus_per_node,) * need.nodes
            assert alloc.memory_mb_per_node == (need.memory_mb_per_node,) * need.nodes
            for name in alloc.nodes:
                assert name in part.nodes and nodes[name].usable, f"job={job.job_id} got {name}"
                assert free_cpus[name] >= need.cpus_per_node and free_mem[name] >= need.memory_mb_per_node
                free_cpus[name] -= need.cpus_per_node
                free_mem[name] -= need.memory_mb_per_node
        elif decision.reason is Reason.RESOURCES:
            assert part.name not in blocked, f"job={job.job_id}: a second Resources job in {part.name}"
            fitting = [n for n in part.nodes
                       if free_cpus[n] >= need.cpus_per_node and free_mem[n] >= need.memory_mb_per_node]
            assert len(fitting) < need.nodes, f"job={job.job_id} fits {fitting} but was left pending"
            blocked.add(part.name)
        else:
            assert decision.reason is Reason.PRIORITY, f"job={job.job_id}: unexpected {decision.reason}"
            assert part.name in blocked, f"job={job.job_id}: Priority without a blocking job"


def check_capacity(running: dict[JobId, Job], cluster: Cluster) -> None:
    cpus, mem = usage(running, cluster)
    for name, spec in cluster.nodes.items():
        assert cpus[name] <= spec.cpus, f"{name}: {cpus[name]} CPUs allocated of {spec.cpus}"
        assert mem[name] <= spec.memory_mb, f"{name}: {mem[name]} MB allocated of {spec.memory_mb}"


# ---- the run --------------------------------------------------------------------------------


@dataclass
class Stats:
    steps: int = 0
    passes: int = 0
    max_pending: int = 0
    resources_waits: int = 0
    multi_node_starts: int = 0


def simulate(seed: int) -> Stats:
    rng = random.Random(seed)
    cluster = build_cluster(rng)
    workload = build_workload(rng, cluster)
    drains = build_drains(rng, cluster, workload[-1][0])
    clock = FakeClock()
    stats = Stats()

    arrivals = list(reversed(workload))               # pop() gives the next one
    changes = list(reversed(drains))
    ends: list[tuple[int, JobId]] = []                # heap of (end time, job)
    releases: list[tuple[int, JobId]] = []            # heap of (release time, job)
    pending: dict[JobId, Job] = {}
    running: dict[JobId, Job] = {}
    durations: dict[JobId, int] = {}
    done: dict[JobId, Job] = {}
    ever_started: set[JobId] = set()

    while arrivals or pending or running:
        stats.steps += 1
        assert stats.steps < MAX_STEPS, "the simulation does not converge"
        upcoming = [t for t in (arrivals[-1][0] if arrivals else None, ends[0][0] if ends else None,
                                releases[0][0] if releases else None, changes[-1][0] if changes else None)
                    if t is not None]
        assert upcoming, f"stuck at {clock.now}: pending {sorted(pending)} can never start"
        clock.advance_to(max(clock.now, min(upcoming)))
        now = clock.now

        while ends and ends[0][0] <= now:
            _, job_id = heapq.heappop(ends)
            job = running.pop(job_id)
            assert now - job.start_time == durations[job_id]
            done[job_id] = transition(job, JobState.COMPLETED, end_time=now)
        while arrivals and arrivals[-1][0] <= now:
            _, arrival = arrivals.pop()
            pending[arrival.job.job_id] = arrival.job
            durations[arrival.job.job_id] = arrival.duration
            if arrival.release_after is not None:
                heapq.heappush(releases, (now + arrival.release_after, arrival.job.job_id))
        while releases and releases[0][0] <= now:
            _, job_id = heapq.heappop(releases)
            pending[job_id] = dataclasses.replace(pending[job_id], hold=Hold.NONE, priority=500)
        while changes and changes[-1][0] <= now:
            _, name, drained = changes.pop()
            (cluster.drained.add if drained else cluster.drained.discard)(name)

        if pending:
            stats.passes += 1
            stats.max_pending = max(stats.max_pending, len(pending))
            nodes = snapshot(running, cluster)
            queue = list(pending.values())
            decisions = schedule(queue, nodes, cluster.partitions)
            check_pass(queue, decisions, nodes, cluster)
            for decision in decisions:
                if isinstance(decision, Pend):
                    stats.resources_waits += decision.reason is Reason.RESOURCES
                    continue
                assert decision.job_id not in ever_started, f"job={decision.job_id} started twice"
                ever_started.add(decision.job_id)
                job = transition(pending.pop(decision.job_id), JobState.RUNNING,
                                 allocation=decision.allocation, start_time=now)
                running[job.job_id] = job
                stats.multi_node_starts += len(decision.allocation.nodes) > 1
                heapq.heappush(ends, (now + durations[job.job_id], job.job_id))
        check_capacity(running, cluster)

    assert len(done) == JOBS and all(j.state is JobState.COMPLETED for j in done.values())
    assert ever_started == set(done)
    return stats


@pytest.mark.parametrize("seed", [1, 7])
def test_fifo_simulation_keeps_its_invariants(seed: int) -> None:
    stats = simulate(seed)
    # The workload must actually exercise the interesting paths, or the invariants prove little.
    assert stats.resources_waits > 100, stats
    assert stats.max_pending > 20, stats
    assert stats.multi_node_starts > 100, stats


def test_oracle_catches_an_out_of_order_start() -> None:
    """The checker itself: a start behind a job waiting for resources is reported."""
    cluster = Cluster({"n1": SimNode("n1", 4, 4000)},
                      {"p": PartitionView("p", ("n1",), "UP", -1, None, 0, 1)})
    big = Job(JobId(1), dataclasses.replace(BASE_REQUEST, partition="p", num_tasks=8), 1, 1, "a", "a",
              0, priority=10)
    small = Job(JobId(2), dataclasses.replace(BASE_REQUEST, partition="p"), 1, 1, "a", "a", 0, priority=5)
    nodes = snapshot({}, cluster)
    wrong: list[Decision] = [Pend(big.job_id, Reason.RESOURCES),
                             Start(small.job_id, Allocation(("n1",), (1,), (0,)))]
    with pytest.raises(AssertionError, match="started behind a blocked job"):
        check_pass([big, small], wrong, nodes, cluster)
