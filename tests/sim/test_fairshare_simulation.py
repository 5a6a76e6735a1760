"""Virtual-time simulation of multifactor priority with fairshare (spec scheduling-policy.md §3, §4).

Two accounts with shares 2:1 (one user each) keep the cluster saturated: each always has a
backlog of one-CPU jobs of random length. The harness runs the real pure pieces the controller
runs (`fairshare.charged` and `share_table` every PriorityCalcPeriod, `priority.job_priority`
for every pending job, `scheduler.schedule` whenever CPUs free up) on a fake clock, and checks:

* no CPU is ever given to two jobs, and the cluster never idles while jobs wait;
* priority order is respected: in every pass no job starts while a job of higher priority
  (equal shape: one CPU) is left pending;
* the CPU time delivered to the accounts converges to the 2:1 share ratio, under Fair Tree and
  under the classic formula.
"""
from __future__ import annotations

import dataclasses
import heapq
import random
from dataclasses import dataclass

import pytest

from pyslurm_ctld.sched.fairshare import NO_USAGE, RunningCharge, Usage, charged, factors_by_association, share_table
from pyslurm_ctld.model.job import Allocation, Job, JobId, JobState
from pyslurm_ctld.sched.priority import PriorityContext, job_priority
from pyslurm_ctld.settings.priority_settings import PrioritySettings
from pyslurm_ctld.sched.node_fit import NodeCapacity
from pyslurm_ctld.sched.scheduler import PartitionView, Pend, Start, schedule
from tests.builders import job_request

NODES = 10
CPUS = 4
CALC_PERIOD = 300
HALF_LIFE = 6 * 3600
DURATION = 3 * 86400
BACKLOG = 60

REQUEST = job_request(name="sim", partition="batch", qos="normal", ntasks_given=True, cpus_per_task_given=True,
                      time_limit_min=60, std_out="o", std_err="e", script="")


@dataclass(frozen=True)
class Assoc:
    account: str
    user: str = ""
    parent_account: str = ""
    shares: int = 1
    partition: str = ""


TREE = (Assoc("root"), Assoc("big", parent_account="root", shares=2), Assoc("big", "ann"),
        Assoc("small", parent_account="root", shares=1), Assoc("small", "sam"))
USERS = {"ann": "big", "sam": "small"}


@dataclass
class Running:
    job: Job
    end: int
    cpus: tuple[str, int]     # (node, cpu id)


class Simulation:
    def __init__(self, fair_tree: bool, seed: int) -> None:
        self.rng = random.Random(seed)
        self.settings = PrioritySettings(priority_type="priority/multifactor", weight_fairshare=100000,
                                         weight_age=10, max_age_s=86400,
                                         flags=frozenset() if fair_tree else frozenset({"NO_FAIR_TREE"}))
        self.now = 0
        self.next_id = 1
        self.pending: dict[JobId, Job] = {}
        self.running: dict[JobId, Running] = {}
        self.ended: list[tuple[Job, int]] = []          # since the last usage update
        self.durations: dict[JobId, int] = {}
        self.busy: set[tuple[str, int]] = set()
        self.usage: Usage = NO_USAGE
        self.fairshare: dict[tuple[str, str, str], float] = {}
        self.delivered = {"big": 0.0, "small": 0.0}     # CPU-seconds, after the warm-up
        self.partition = PartitionView("batch", tuple(f"n{i}" for i in range(NODES)), "UP", -1, None, 0, 1)

    # ---- workload ---------------------------------------------------------------------

    def top_up(self) -> None:
        for user, account in USERS.items():
            while sum(1 for j in self.pending.values() if j.user_name == user) < BACKLOG:
                job_id = JobId(self.next_id)
                self.next_id += 1
                self.pending[job_id] = Job(job_id, dataclasses.replace(REQUEST, account=account), 1000, 1000, user,
                                           user, submit_time=self.now, eligible_time=self.now)
                self.durations[job_id] = self.rng.randint(600, 3600)

    # ---- the controller's periodic work -----------------------------------------------

    def recalculate(self) -> None:
        charges = [RunningCharge((r.job.request.account, r.job.user_name, ""), 1.0, r.job.start_time)
                   for r in self.running.values()]
        charges += [RunningCharge((job.request.account, job.user_name, ""), 1.0, job.start_time, end_time=end)
                    for job, end in self.ended]
        self.ended = []
        self.usage = charged(self.usage, charges, self.now, HALF_LIFE)
        rows = share_table(TREE, self.usage, self.settings.fair_tree)
        self.fairshare = factors_by_association(rows)
        self.reprioritize()

    def reprioritize(self) -> None:
        context = PriorityContext(total_nodes=NODES, total_cpus=NODES * CPUS, partition_factors={"batch": 1},
                                  fairshare=self.fairshare)
        for job_id, job in self.pending.items():
            self.pending[job_id] = dataclasses.replace(
                job, priority=job_priority(job, self.settings, context, self.now).priority)

    def capacities(self) -> dict[str, NodeCapacity]:
        caps = {}
        for name in self.partition.nodes:
            free = frozenset(c for c in range(CPUS) if (name, c) not in self.busy)
            caps[name] = NodeCapacity(name, True, CPUS, 4000, free, 4000)
        return caps

    def schedule_pass(self) -> None:
        decisions = schedule(self.pending.values(), self.capacities(), {"batch": self.partition})
        starts = [d for d in decisions if isinstance(d, Start)]
        left = [self.pending[d.job_id].priority for d in decisions if isinstance(d, Pend)]
        if starts and left:
            lowest_started = min(self.pending[s.job_id].priority for s in starts)
            assert lowest_started >= max(left), "a job started ahead of a higher-priority one"
        for start in starts:
            self.start(start.job_id, start.allocation)
        free = sum(len(c.free_cpu_ids) for c in self.capacities().values())
        assert free == 0 or not self.pending, "CPUs idle while jobs wait"

    def start(self, job_id: JobId, allocation: Allocation) -> None:
        job = self.pending.pop(job_id)
        (node,), (cpu_ids,) = allocation.nodes, allocation.cpu_ids
        cpu = (node, cpu_ids[0])
        assert cpu not in self.busy, f"CPU {cpu} given twice"
        self.busy.add(cpu)
        job = dataclasses.replace(job, state=JobState.RUNNING, start_time=self.now, allocation=allocation)
        self.running[job_id] = Running(job, self.now + self.durations[job_id], cpu)

    def finish(self, job_id: JobId) -> None:
        run = self.running.pop(job_id)
        self.busy.discard(run.cpus)
        self.ended.append((run.job, self.now))
        warm_up = DURATION // 3
        counted = self.now - max(run.job.start_time, warm_up)
        if counted > 0:
            self.delivered[run.job.request.account] += counted

    # ---- the clock ------------------------------------------------------------------------

    def run(self) -> None:
        self.top_up()
        self.recalculate()
        self.schedule_pass()
        next_calc = CALC_PERIOD
        while self.now < DURATION:
            ends = [(r.end, job_id) for job_id, r in self.running.items()]
            heapq.heapify(ends)
            self.now = min(next_calc, ends[0][0]) if ends else next_calc
            for job_id in [j for j, r in self.running.items() if r.end <= self.now]:
                self.finish(job_id)
            self.top_up()
            if self.now >= next_calc:
                self.recalculate()
                next_calc += CALC_PERIOD
            else:
                self.reprioritize()      # new submissions get their priority at submit
            self.schedule_pass()


@pytest.mark.parametrize("fair_tree", [True, False], ids=["fair_tree", "classic"])
def test_two_accounts_with_shares_two_to_one_get_cpu_time_two_to_one(fair_tree: bool) -> None:
    sim = Simulation(fair_tree, seed=7)
    sim.run()
    ratio = sim.delivered["big"] / sim.delivered["small"]
    assert ratio == pytest.approx(2.0, rel=0.1), sim.delivered
    total = sim.delivered["big"] + sim.delivered["small"]
    assert total == pytest.approx(NODES * CPUS * (DURATION - DURATION // 3), rel=0.05)   # saturated
