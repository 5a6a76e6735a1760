"""Virtual-time simulation of the FIFO scheduler (pyslurm_ctld/sched/scheduler.py) with invariants.

A fake clock jumps from event to event (arrival, job end, hold release, node drain/resume).
At every step the harness runs `schedule` on a snapshot, applies the Start decisions and then
checks, independently of the scheduler's own code:

* no node has more CPUs or memory allocated than it has, and no CPU id or GPU index is held by
  two running jobs at once;
* a start takes the lowest free CPU ids and the lowest free GPU indices of the requested type;
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

from pyslurm_ctld.model.job import Allocation, Hold, Job, JobId, JobRequest, JobState, Reason
from pyslurm_ctld.sched.node_fit import NodeCapacity
from pyslurm_ctld.sched.scheduler import Decision, PartitionView, Pend, Start, schedule
from pyslurm_ctld.model.states import transition
from tests.builders import job_request

JOBS = 2000
NODES = 50
MAX_STEPS = 20000

BASE_REQUEST = job_request(name="sim", ntasks_given=True, cpus_per_task_given=True, time_limit_min=60)


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
    gpus: tuple[str, ...] = ()     # type of each GPU, by global index


@dataclass(frozen=True, slots=True)
class Need:
    nodes: int
    cpus_per_node: int
    memory_mb_per_node: int
    gpus_per_node: int = 0
    gpu_type: str = ""


def need_of(req: JobRequest) -> Need:
    """The oracle's reading of a request (spec: tasks x cpus spread evenly over min_nodes)."""
    nodes = max(1, req.min_nodes)
    cpus = math.ceil(req.num_tasks * req.cpus_per_task / nodes)
    memory = req.mem_per_node_mb or req.mem_per_cpu_mb * cpus
    return Need(nodes, cpus, memory, req.gpus_per_node, req.gpu_type)


def usable_gpus(node: SimNode, need: Need) -> list[int]:
    return [i for i, kind in enumerate(node.gpus) if not need.gpu_type or kind == need.gpu_type]


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
        # The `gpu` partition's nodes (the last 20) carry GPUs of one or two types.
        gpus = rng.choice([("a100",) * 2, ("a100",) * 4, ("v100",) * 4, ("a100", "a100", "v100", "v100"),
                           ("",) * 8]) if i >= 30 else ()
        nodes[f"n{i:02d}"] = SimNode(f"n{i:02d}", cpus, cpus * rng.choice([500, 1000, 4000]), gpus)
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
               and cluster.nodes[n].memory_mb >= need.memory_mb_per_node
               and len(usable_gpus(cluster.nodes[n], need)) >= need.gpus_per_node]
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
            gpus = rng.choice([0, 0, 1, 1, 2, 4]) if partition == "gpu" else 0
            req = dataclasses.replace(
                BASE_REQUEST, partition=partition, min_nodes=min_nodes,
                num_tasks=rng.randint(1, 4) * min_nodes, cpus_per_task=rng.choice([1, 1, 2, 4]),
                mem_per_cpu_mb=rng.choice([100, 500, 1000]) if memory == "per_cpu" else 0,
                mem_per_node_mb=rng.choice([500, 2000, 8000]) if memory == "per_node" else 0,
                time_limit_min=rng.choice([30, 60, 120]), gpus_per_node=gpus,
                gpu_type=rng.choice(["", "", "a100", "v100"]) if gpus else "")
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


@dataclass
class Usage:
    """Per node: CPU count and memory allocated, and the CPU ids / GPU indices held.

    `*_claims` count every id each job names: more claims than distinct ids means an id is
    held by two jobs.
    """

    cpus: dict[str, int]
    mem: dict[str, int]
    cpu_ids: dict[str, set[int]]
    gpu_ids: dict[str, set[int]]
    cpu_claims: dict[str, int]
    gpu_claims: dict[str, int]


def usage(running: dict[JobId, Job], cluster: Cluster) -> Usage:
    names = list(cluster.nodes)
    used = Usage(dict.fromkeys(names, 0), dict.fromkeys(names, 0), {n: set() for n in names},
                 {n: set() for n in names}, dict.fromkeys(names, 0), dict.fromkeys(names, 0))
    for job in running.values():
        alloc = job.allocation
        assert alloc is not None
        for index, (name, c, m) in enumerate(zip(alloc.nodes, alloc.cpus_per_node, alloc.memory_mb_per_node)):
            used.cpus[name] += c
            used.mem[name] += m
            cpu_ids, gpu_ids = alloc.cpus_on(index), alloc.gpus_on(index)
            used.cpu_ids[name].update(cpu_ids)
            used.gpu_ids[name].update(gpu_ids)
            used.cpu_claims[name] += len(cpu_ids)
            used.gpu_claims[name] += len(gpu_ids)
    return used


def snapshot(running: dict[JobId, Job], cluster: Cluster) -> dict[str, NodeCapacity]:
    used = usage(running, cluster)
    return {n.name: NodeCapacity(n.name, n.name not in cluster.drained, n.cpus, n.memory_mb,
                                 frozenset(range(n.cpus)) - used.cpu_ids[n.name],
                                 n.memory_mb - used.mem[n.name], dict(enumerate(n.gpus)),
                                 frozenset(range(len(n.gpus))) - used.gpu_ids[n.name])
            for n in cluster.nodes.values()}


def check_pass(pending: list[Job], decisions: list[Decision], nodes: dict[str, NodeCapacity],
               cluster: Cluster) -> None:
    ordered = sorted(pending, key=lambda j: order_key(j, cluster))
    assert [d.job_id for d in decisions] == [j.job_id for j in ordered], "one decision per job, in order"
    free_cpus = {n: set(c.free_cpu_ids) if c.usable else set() for n, c in nodes.items()}
    free_mem = {n: c.free_memory_mb if c.usable else 0 for n, c in nodes.items()}
    free_gpus = {n: set(c.free_gpus) if c.usable else set() for n, c in nodes.items()}

    def gpus_left(name: str, need: Need) -> list[int]:
        return sorted(set(usable_gpus(cluster.nodes[name], need)) & free_gpus[name])

    def fits(name: str, need: Need) -> bool:
        return (len(free_cpus[name]) >= need.cpus_per_node and free_mem[name] >= need.memory_mb_per_node
                and len(gpus_left(name, need)) >= need.gpus_per_node)

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
            for index, name in enumerate(alloc.nodes):
                assert name in part.nodes and nodes[name].usable, f"job={job.job_id} got {name}"
                assert fits(name, need), f"job={job.job_id} does not fit {name}"
                cpu_ids, gpu_ids = alloc.cpus_on(index), alloc.gpus_on(index)
                assert cpu_ids == tuple(sorted(free_cpus[name])[:need.cpus_per_node]), \
                    f"job={job.job_id} on {name}: CPUs {cpu_ids} are not the lowest free ones"
                assert gpu_ids == tuple(gpus_left(name, need)[:need.gpus_per_node]), \
                    f"job={job.job_id} on {name}: GPUs {gpu_ids} are not the lowest free ones of its type"
                free_cpus[name] -= set(cpu_ids)
                free_gpus[name] -= set(gpu_ids)
                free_mem[name] -= need.memory_mb_per_node
        elif decision.reason is Reason.RESOURCES:
            assert part.name not in blocked, f"job={job.job_id}: a second Resources job in {part.name}"
            fitting = [n for n in part.nodes if fits(n, need)]
            assert len(fitting) < need.nodes, f"job={job.job_id} fits {fitting} but was left pending"
            blocked.add(part.name)
        else:
            assert decision.reason is Reason.PRIORITY, f"job={job.job_id}: unexpected {decision.reason}"
            assert part.name in blocked, f"job={job.job_id}: Priority without a blocking job"


def check_capacity(running: dict[JobId, Job], cluster: Cluster) -> None:
    used = usage(running, cluster)
    for name, spec in cluster.nodes.items():
        assert used.cpus[name] <= spec.cpus, f"{name}: {used.cpus[name]} CPUs allocated of {spec.cpus}"
        assert used.mem[name] <= spec.memory_mb, f"{name}: {used.mem[name]} MB allocated of {spec.memory_mb}"
        # Ids are what stepd pins the job to: each must exist and belong to one job only.
        assert used.cpu_claims[name] == used.cpus[name], f"{name}: a job's CPU ids do not match its count"
        assert len(used.cpu_ids[name]) == used.cpu_claims[name], f"{name}: a CPU id is held by two jobs"
        assert len(used.gpu_ids[name]) == used.gpu_claims[name], f"{name}: a GPU is held by two jobs"
        assert used.cpu_ids[name] <= set(range(spec.cpus)), f"{name}: CPU ids {used.cpu_ids[name]}"
        assert used.gpu_ids[name] <= set(range(len(spec.gpus))), f"{name}: GPU ids {used.gpu_ids[name]}"
    for job in running.values():
        assert job.allocation is not None
        for index, name in enumerate(job.allocation.nodes):
            gpus = job.allocation.gpus_on(index)
            assert len(gpus) == job.request.gpus_per_node, f"job={job.job_id}: {gpus} on {name}"
            assert all(cluster.nodes[name].gpus[g] == job.request.gpu_type for g in gpus if job.request.gpu_type)


# ---- the run --------------------------------------------------------------------------------


def admit(now: int, arrivals: list[tuple[int, Arrival]], releases: list[tuple[int, JobId]],
          pending: dict[JobId, Job], durations: dict[JobId, int]) -> None:
    """Queue the jobs submitted by `now` (remembering how long each will run) and release the
    held ones whose time has come (they come back with a priority of 500)."""
    while arrivals and arrivals[-1][0] <= now:
        _, arrival = arrivals.pop()
        pending[arrival.job.job_id] = arrival.job
        durations[arrival.job.job_id] = arrival.duration
        if arrival.release_after is not None:
            heapq.heappush(releases, (now + arrival.release_after, arrival.job.job_id))
    while releases and releases[0][0] <= now:
        _, job_id = heapq.heappop(releases)
        pending[job_id] = dataclasses.replace(pending[job_id], hold=Hold.NONE, priority=500)


@dataclass
class Stats:
    steps: int = 0
    passes: int = 0
    max_pending: int = 0
    resources_waits: int = 0
    multi_node_starts: int = 0
    gpu_starts: int = 0
    gpu_waits: int = 0            # Resources waits of GPU jobs


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
        admit(now, arrivals, releases, pending, durations)
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
                    stats.gpu_waits += (decision.reason is Reason.RESOURCES
                                        and pending[decision.job_id].request.gpus_per_node > 0)
                    continue
                assert decision.job_id not in ever_started, f"job={decision.job_id} started twice"
                ever_started.add(decision.job_id)
                job = transition(pending.pop(decision.job_id), JobState.RUNNING,
                                 allocation=decision.allocation, start_time=now)
                running[job.job_id] = job
                stats.multi_node_starts += len(decision.allocation.nodes) > 1
                stats.gpu_starts += decision.allocation.total_gpus > 0
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
    assert stats.gpu_starts > 200 and stats.gpu_waits > 20, stats


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
