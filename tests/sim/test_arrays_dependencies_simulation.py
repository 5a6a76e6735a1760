"""Virtual-time simulation of job arrays, dependencies, begin times and partition lists.

Drives the core (its scheduling pass and `apply`, the same code the controller runs)
through a workload of arrays with throttles, plain jobs with dependencies on earlier jobs and
arrays, begin times, singletons and `-p a,b` lists, with a fake clock that jumps from one job
end (or begin time) to the next. After every pass the harness checks, from its own records:

* no array ever runs more tasks than its throttle, and no index runs twice;
* a job started only once its dependency held (afterok: every named job COMPLETED with exit 0;
  afternotok: all ended and one failed; afterany: all ended; after+M: M minutes after the
  last start; singleton: no other job of the user and name was running);
* nothing started before its begin time, nor outside its partitions;
* in the end every job ran, except those whose dependency failed (they pend with
  DependencyNeverSatisfied), and every array index ran exactly once.
"""
from __future__ import annotations

import dataclasses
import heapq
import random
from pathlib import Path

import pytest

from pyslurm_common.config import load_config
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.topology import node_registered
from pyslurm_ctld.model.events import ArrayTaskStarted, Event, JobStarted, BatchFinished
from pyslurm_ctld.model.job import Job, JobId, JobState, Reason
from tests.builders import job_request

NODES = 12
CONF = "ClusterName=sim\nSlurmctldHost=head\nMinJobAge=0\n" + "".join(
    f"NodeName=n{i:02d} CPUs=8 RealMemory=8000\n" for i in range(NODES)) + (
    "PartitionName=left Nodes=n[00-05] Default=YES\n"
    "PartitionName=right Nodes=n[06-11]\n"
    "PartitionName=all Nodes=n[00-11]\n")
USERS = (1000, 1001, 1002)
REQUEST = job_request(name="sim", time_limit_min=60, std_out="o", std_err="o", script="#!/bin/sh\n")


class Sim:
    def __init__(self, tmp_path: Path, rng: random.Random) -> None:
        path = tmp_path / "slurm.conf"
        path.write_text(CONF)
        self.mgr = ClusterState(load_config(path), slurm_uid=450)
        for name, rec in self.mgr.nodes.items():
            node_registered(self.mgr, name, 0.0, cpus=rec.config.cpus, real_memory_mb=rec.config.real_memory_mb)
        self.rng = rng
        self.now = 0
        self.ends: list[tuple[int, int]] = []             # (time, job id) of running jobs
        self.outcome: dict[int, int] = {}                 # job id -> exit code it will end with
        self.duration: dict[int, int] = {}
        self.started_index: set[tuple[int, int]] = set()  # (array id, task index) that started
        self.checked_starts = 0

    def commit(self, event: Event) -> None:
        apply(self.mgr, event)

    # ---- workload --------------------------------------------------------------------------

    def submit_workload(self, count: int) -> None:
        rng, mgr = self.rng, self.mgr
        for _ in range(count):
            uid = rng.choice(USERS)
            known = list(mgr.jobs)
            dependency = ""
            if known and rng.random() < 0.35:
                target = rng.choice(known[-30:])
                dependency = rng.choice([
                    f"afterok:{target}", f"afterany:{target}", f"afternotok:{target}", f"after:{target}+1",
                    f"afterok:{target}?afterany:{rng.choice(known)}", f"afterany:{target},afterany:{rng.choice(known)}"])
            elif rng.random() < 0.1:
                dependency = "singleton"
            partition = rng.choice(["", "left", "right", "all"])
            request = dataclasses.replace(
                REQUEST, name=rng.choice(["a", "b"]), cpus_per_task=rng.choice([1, 1, 2, 4, 8]),
                partition=partition, partitions=("left", "right") if rng.random() < 0.15 else (),
                begin_time=self.now + rng.choice([0, 0, 0, 120]))
            array = ""
            if rng.random() < 0.3:
                first = rng.randint(0, 5)
                array = f"{first}-{first + rng.randint(0, 40)}" + rng.choice(["", "", "%2", "%5"])
            event = submission(mgr, request, uid, uid, f"u{uid}", f"u{uid}", False, self.now, array=array,
                                   dependency=dependency)
            self.commit(event)
            self.now += rng.randint(0, 3)

    # ---- the loop --------------------------------------------------------------------------

    def run(self, max_steps: int = 4000) -> None:
        for _ in range(max_steps):
            before = {j.job_id: j for j in self.mgr.jobs.values()}
            for event in schedule_pass(self.mgr, self.now):
                self.commit(event)
                if isinstance(event, (JobStarted, ArrayTaskStarted)):
                    self.started(before, self.mgr.jobs[event.job_id])
            self.check_throttles()
            upcoming = [t for t in (self.ends[0][0] if self.ends else None, self.next_begin()) if t is not None]
            if not upcoming:
                return
            self.now = max(self.now + 1, min(upcoming))
            while self.ends and self.ends[0][0] <= self.now:
                _, job_id = heapq.heappop(self.ends)
                self.commit(BatchFinished(JobId(job_id), self.outcome[job_id], 0, False, False, self.now))
        raise AssertionError("the simulation did not settle")

    def next_begin(self) -> int | None:
        later = [j.request.begin_time for j in self.mgr.jobs.values()
                 if j.state is JobState.PENDING and j.request.begin_time > self.now]
        return min(later) if later else None

    def started(self, before: dict[JobId, Job], job: Job) -> None:
        self.checked_starts += 1
        assert job.request.begin_time <= self.now, job
        allowed = job.request.partitions or (job.request.partition,)
        assert job.request.partition in allowed, job
        part = self.mgr.partitions[job.request.partition]
        assert job.allocation is not None and set(job.allocation.nodes) <= set(part.nodes), job
        if job.array is not None:
            key = (job.array.array_job_id, job.array.task_id)
            assert key not in self.started_index, key
            self.started_index.add(key)   # type: ignore[arg-type]
        if job.dependency is not None:
            self.check_dependency(before, job)
        self.outcome[job.job_id] = self.rng.choice([0, 0, 0, 1])
        heapq.heappush(self.ends, (self.now + self.rng.randint(1, 300), job.job_id))

    def records(self, before: dict[JobId, Job], target: int) -> list[Job]:
        return [j for j in before.values() if j.job_id == target or (j.array and j.array.array_job_id == target)]

    def check_dependency(self, before: dict[JobId, Job], job: Job) -> None:
        """The oracle: the dependency held against the jobs as they were before this pass."""
        assert job.dependency is not None
        results = []
        for part in job.dependency.parts:
            if part.kind == "singleton":
                results.append(not any(j.uid == job.uid and j.request.name == job.request.name
                                       and j.state is JobState.RUNNING for j in before.values()))
                continue
            records = self.records(before, part.job_id)
            if not records:
                results.append(True)   # purged: lifted
                continue
            done = all(j.state.is_finished and not j.completing for j in records)
            ok = all(j.state is JobState.COMPLETED and j.exit_code == 0 for j in records)
            if part.kind == "after":
                results.append(all(j.start_time for j in records)
                               and self.now >= max(j.start_time for j in records) + part.delay_min * 60)
            elif part.kind == "afterany":
                results.append(done)
            elif part.kind == "afterok":
                results.append(done and ok)
            else:
                results.append(done and not ok)
        held = any(results) if job.dependency.any_of else all(results)
        assert held, (job.job_id, job.dependency, [(j.job_id, j.state, j.exit_code) for j in
                                                   (r for p in job.dependency.parts for r in self.records(before, p.job_id))])

    def check_throttles(self) -> None:
        running: dict[int, int] = {}
        throttle: dict[int, int] = {}
        for job in self.mgr.jobs.values():
            if job.array is not None:
                throttle[job.array.array_job_id] = job.array.throttle
                if job.state is JobState.RUNNING:
                    running[job.array.array_job_id] = running.get(job.array.array_job_id, 0) + 1
        for array_id, count in running.items():
            assert not throttle[array_id] or count <= throttle[array_id], (array_id, count)


def waits_for_good(jobs: dict[JobId, Job], job: Job) -> bool:
    if job.reason is Reason.DEPENDENCY_NEVER_SATISFIED:
        return True
    if job.reason is not Reason.DEPENDENCY or job.dependency is None:
        return False

    def pending(target: int) -> bool:
        return any(j.state is JobState.PENDING and (j.job_id == target or (j.array and j.array.array_job_id == target))
                   for j in jobs.values())

    for part in job.dependency.parts:
        if part.kind == "singleton":
            if any(j.state is JobState.PENDING and j.uid == job.uid and j.request.name == job.request.name
                   and j.job_id < job.job_id for j in jobs.values()):
                return True
        elif part.state == "unfulfilled" and pending(part.job_id):
            return True
    return False


@pytest.mark.parametrize("seed", range(3))
def test_arrays_and_dependencies_in_virtual_time(tmp_path: Path, seed: int) -> None:
    sim = Sim(tmp_path, random.Random(seed))
    sim.submit_workload(300)
    sim.run()
    assert sim.checked_starts > 1000, sim.checked_starts   # the arrays ran as tasks
    schedule_pass(sim.mgr, sim.now)
    left = [j for j in sim.mgr.jobs.values() if j.state is JobState.PENDING]
    # What is left waits for good: its dependency failed, or it waits for jobs that are left too.
    assert any(j.reason is Reason.DEPENDENCY_NEVER_SATISFIED for j in left)
    assert all(waits_for_good(sim.mgr.jobs, j) for j in left), [(j.job_id, j.reason, j.dependency) for j in left]
    assert any(j.state is JobState.COMPLETED for j in sim.mgr.jobs.values())
    # Every index of every array that was not left waiting ran exactly once.
    for master in sim.mgr.jobs.values():
        array = master.array
        if array is None or array.array_job_id != master.job_id or master.state is JobState.PENDING:
            continue
        ran = {t for a, t in sim.started_index if a == master.job_id}
        assert len(ran) == array.task_count, (master.job_id, sorted(ran), array)
