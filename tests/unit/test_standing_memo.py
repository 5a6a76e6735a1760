"""The main pass's memo of each job's standing in its partitions (sched/standing_memo.py): a pass
that uses it decides exactly what a pass that works every standing out afresh decides (the same
starts, in the same order, and the same reasons), pass after pass, while requests, holds,
dependencies, limits, fences, free resources and the static inputs (partitions, nodes'
configuration, sharing by user) change between passes."""
from __future__ import annotations

import dataclasses
import random
from typing import Mapping

import pytest

from pyslurm_ctld.model.job import ArrayInfo, Hold, Job, JobId, Reason
from pyslurm_ctld.sched.backfill import Backfill
from pyslurm_ctld.sched.node_fit import NodeCapacity
from pyslurm_ctld.sched.reservation_fence import Fence
from pyslurm_ctld.sched.scheduler import Decision, PartitionView, Pend, Standing, schedule
from pyslurm_ctld.sched.standing_memo import StandingMemo
from pyslurm_ctld.settings.sched_params import BackfillPolicy
from tests.unit.test_scheduler import BATCH, by_name, job, node, outcome, partition, parts

POLICY = BackfillPolicy(window_s=24 * 3600, resolution_s=60, max_job_test=500)
NOW = 1000


class _CountingGate:
    """An accounting gate: each user may start `per_user` jobs in the pass (limits.LimitGate's part)."""

    def __init__(self, per_user: int) -> None:
        self.per_user = per_user
        self.starts: dict[int, int] = {}

    def blocked(self, job: Job, partition: str, tres: Mapping[str, int]) -> Reason | None:
        return Reason.QOS_GRP_CPU if self.starts.get(job.uid, 0) >= self.per_user else None

    def started(self, job: Job, partition: str, tres: Mapping[str, int]) -> None:
        self.starts[job.uid] = self.starts.get(job.uid, 0) + 1


@dataclasses.dataclass
class _World:
    """One pass's inputs; `gate`, `backfill` are built afresh for each schedule (they keep state)."""

    jobs: list[Job]
    nodes: dict[str, NodeCapacity]
    partitions: dict[str, PartitionView]
    ineligible: dict[JobId, Reason]
    fences: dict[JobId, Fence]
    per_user: int | None
    backfill_tests: int     # bf_max_job_test; 0: no backfill

    def decide(self, standings: StandingMemo[Standing] | None) -> list[Decision]:
        gate = _CountingGate(self.per_user) if self.per_user is not None else None
        policy = dataclasses.replace(POLICY, max_job_test=self.backfill_tests)
        backfill = Backfill(policy, self.nodes, [], NOW) if self.backfill_tests else None
        running = {j.job_id: 1 for j in self.jobs if j.array is not None}
        return schedule(self.jobs, self.nodes, self.partitions, running, self.ineligible, None, gate, backfill,
                        self.fences, standings)


def _nodes(rng: random.Random, memory: int) -> dict[str, NodeCapacity]:
    made = []
    for i in range(1, 7):
        cpus = 8 if i > 3 else 4
        made.append(node(f"n{i}", cpus=cpus, memory_mb=memory, free_cpus=rng.choice((0, 0, 1, 2, cpus)),
                         usable=rng.random() > 0.1, gpus=2 if i == 6 else 0))
    return by_name(*made)


def _partitions(rng: random.Random) -> dict[str, PartitionView]:
    return parts(partition("a", ["n1", "n2", "n3", "n4"], priority_tier=rng.choice((1, 2))),
                 partition("b", ["n3", "n4", "n5", "n6"], max_time_min=rng.choice((60, 120)), max_nodes=3),
                 partition("c", ["n5", "n6"], state=rng.choice(("UP", "UP", "DOWN", "DRAIN")), def_mem_per_cpu_mb=500))


def _job(rng: random.Random, job_id: int) -> Job:
    names = rng.choice((("a",), ("b",), ("c",), ("a", "b"), ("b", "c"), ("gone",)))
    request = dict(partition=names[0], partitions=names if len(names) > 1 else (),
                   cpus_per_task=rng.choice((1, 1, 2, 4, 8, 16)), min_nodes=rng.choice((1, 1, 1, 2, 3, 5)),
                   time_limit_min=rng.choice((10, 90, 200, -1)), gpus_per_node=rng.choice((0, 0, 0, 1, 3)),
                   over_subscribe="USER" if rng.random() < 0.03 else "")
    if rng.random() < 0.1:
        request["required_nodes"] = (rng.choice(("n1", "n3", "n5", "n6")),)
    if rng.random() < 0.2:
        request.update(ntasks_given=True, num_tasks=rng.choice((2, 6, 12)), cpus_per_task=1, min_nodes=1)
    made = job(job_id, priority=rng.randrange(5), submit=rng.randrange(50),
               hold=Hold.USER if rng.random() < 0.05 else Hold.NONE, **request)
    array = None
    if rng.random() < 0.1:   # an array's pending remainder, some throttled (one task runs already)
        array = ArrayInfo(JobId(job_id), None, (1, 2, 3), rng.choice((0, 1, 2)), 4, 0, 3, 1)
    return dataclasses.replace(made, uid=rng.choice((1000, 1001)), array=array)


def _changed(rng: random.Random, world: _World, step: int) -> _World:
    """The next pass's inputs: most jobs and the static inputs as they were (so the memo is used),
    some of everything changed."""
    jobs = []
    for pending in world.jobs:
        draw = rng.random()
        if draw < 0.05:
            continue                                           # started or ended meanwhile
        if draw < 0.10:
            pending = _job(rng, pending.job_id)                # updated: a new request
        elif draw < 0.13:
            pending = dataclasses.replace(pending, hold=Hold.NONE if pending.hold is not Hold.NONE else Hold.ADMIN)
        elif draw < 0.16:
            pending = dataclasses.replace(pending, priority=rng.randrange(5))
        jobs.append(pending)
    jobs += [_job(rng, 1000 + step * 10 + i) for i in range(rng.randrange(4))]
    static = rng.random() < 0.3
    return _World(
        jobs=jobs,
        nodes=_nodes(rng, rng.choice((8000, 16000)) if static else 16000),
        partitions=_partitions(rng) if static else world.partitions,
        ineligible={j.job_id: Reason.DEPENDENCY for j in jobs if rng.random() < 0.05},
        fences={j.job_id: Fence(frozenset({"n1", "n5"}), Reason.RESERVED_OTHER) for j in jobs if rng.random() < 0.05},
        per_user=rng.choice((None, None, 1, 3)),
        backfill_tests=rng.choice((0, 0, 0, 2, 5, 500)))


@pytest.mark.parametrize("seed", range(12))
def test_passes_with_the_memo_decide_as_passes_without_it(seed: int) -> None:
    rng = random.Random(seed)
    world = _World([_job(rng, i) for i in range(1, 60)], _nodes(rng, 16000), _partitions(rng), {}, {}, None, 0)
    memo: StandingMemo[Standing] = StandingMemo()
    reused = 0
    for step in range(40):
        fresh = world.decide(None)
        remembered = world.decide(memo)
        assert remembered == fresh, f"pass {step}"
        before = {id(d) for d in remembered}
        again = world.decide(memo)          # the same inputs once more: the standings now decide
        assert again == fresh, f"pass {step}, repeated"
        reused += sum(id(d) in before for d in again if isinstance(d, Pend))
        world = _changed(rng, world, step)
    assert reused > 0, "the memo was never used"


def test_an_unchanged_pass_reuses_each_standings_decision() -> None:
    busy = by_name(node("n1", free_cpus=0))
    pending = [job(i) for i in range(1, 6)] + [job(9, cpus_per_task=64)]   # the last one never fits
    memo: StandingMemo[Standing] = StandingMemo()
    first = schedule(pending, busy, BATCH, standings=memo)
    second = schedule(pending, busy, BATCH, standings=memo)
    assert outcome(second) == {1: "Resources", 2: "Priority", 3: "Priority", 4: "Priority", 5: "Priority",
                               9: "PartitionConfig"}
    assert [a is b for a, b in zip(first, second)] == [False, True, True, True, True, True]


def test_a_changed_partition_or_node_is_not_answered_from_the_memo() -> None:
    memo: StandingMemo[Standing] = StandingMemo()
    pending = [job(1, cpus_per_task=4), job(2, cpus_per_task=4)]
    busy = by_name(node("n1", free_cpus=0))
    assert outcome(schedule(pending, busy, BATCH, standings=memo)) == {1: "Resources", 2: "Priority"}
    down = parts(partition("batch", ["n1"], state="DOWN"))
    assert outcome(schedule(pending, busy, down, standings=memo)) == {1: "PartitionDown", 2: "PartitionDown"}
    small = by_name(node("n1", cpus=2, free_cpus=0))
    assert outcome(schedule(pending, small, BATCH, standings=memo)) == {1: "PartitionConfig", 2: "PartitionConfig"}
    assert outcome(schedule(pending, by_name(node("n1")), BATCH, standings=memo)) == {1: ("n1",), 2: "Resources"}


def test_an_updated_request_is_decided_again() -> None:
    memo: StandingMemo[Standing] = StandingMemo()
    busy = by_name(node("n1", free_cpus=0))
    first, second = job(1), job(2, cpus_per_task=64)
    assert outcome(schedule([first, second], busy, BATCH, standings=memo)) == {1: "Resources", 2: "PartitionConfig"}
    fixed = dataclasses.replace(second, request=dataclasses.replace(second.request, cpus_per_task=2))
    assert outcome(schedule([first, fixed], busy, BATCH, standings=memo)) == {1: "Resources", 2: "Priority"}


def test_an_entry_no_pass_used_for_a_generation_is_dropped() -> None:
    memo: StandingMemo[Standing] = StandingMemo()
    nodes = by_name(node("n1", free_cpus=0))
    gone, kept = job(1), job(2)
    schedule([gone, kept], nodes, BATCH, standings=memo)
    for _ in range(2 * StandingMemo._GENERATION_PASSES):
        schedule([kept], nodes, BATCH, standings=memo)
    assert memo.standing(gone) is None and memo.standing(kept) is not None


def test_a_queue_whose_jobs_changed_is_sorted_again() -> None:
    memo: StandingMemo[Standing] = StandingMemo()
    nodes = by_name(node("n1", free_cpus=1))
    low, high = job(1, priority=1), job(2, priority=5)
    assert outcome(schedule([low, high], nodes, BATCH, standings=memo)) == {2: ("n1",), 1: "Resources"}
    raised = dataclasses.replace(low, priority=9)
    assert outcome(schedule([raised, high], nodes, BATCH, standings=memo)) == {1: ("n1",), 2: "Resources"}
    tiered = parts(partition("batch", ["n1"], priority_tier=2), partition("other", ["n1"], priority_tier=3))
    other = job(3, priority=0, partition="other")
    assert list(outcome(schedule([raised, high, other], nodes, tiered, standings=memo))) == [3, 1, 2]
