#!/usr/bin/env python3
"""Victim selection of one scheduling pass (pyslurm_ctld/sched/preemption.py `plan`, issue 5 item 6).

    /opt/pyslurm/bin/python bench/bench_preemption.py [--nodes 100,200,1000] [--pending 2000] [--repeat 3]

Every CPU of every node is held by a one-CPU job of the low-tier partition (the most victims
there can be); `--pending` jobs of the high-tier partition, 16 CPUs each, wait for resources
(the first `Resources`, the others `Priority`). Times `plan` over the pass's decisions: it looks
for victims for at most MAX_PREEMPTORS_PER_PASS of them. Prints one JSON object per size.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import time

from pyslurm_common.preempt_conf import ModeSpec, PreemptConfig, PreemptMode
from pyslurm_ctld.model.job import Allocation, Job, JobId, JobRequest, JobState, Reason
from pyslurm_ctld.sched.preemption import PartitionPreempt, Policy, plan
from pyslurm_ctld.sched.node_fit import NodeCapacity
from pyslurm_ctld.sched.scheduler import UNLIMITED, PartitionView, Pend

CPUS = 32
REQUEST = JobRequest(
    name="bench", partition="low", account="", qos="", min_nodes=1, num_tasks=1, cpus_per_task=1,
    ntasks_given=True, cpus_per_task_given=False, mem_per_node_mb=0, mem_per_cpu_mb=0,
    time_limit_min=60, work_dir="/tmp", std_out="slurm-%j.out", std_err="slurm-%j.out", std_in="/dev/null",
    script="#!/bin/sh\n", environment=(), argv=(), command="", submit_host="login", umask=0o022,
    export_env="", append_output=False, nice=0, requeue=True,
)


def _job(job_id: int, **changes: object) -> Job:
    return Job(job_id=JobId(job_id), request=dataclasses.replace(REQUEST, **changes), uid=1000, gid=1000,  # type: ignore[arg-type]
               user_name="bench", group_name="bench", submit_time=0, priority=1_000_000 - job_id)


def measure(node_count: int, pending_count: int, repeat: int) -> dict[str, object]:
    names = tuple(f"n{i}" for i in range(node_count))
    views = {"low": PartitionView("low", names, "UP", UNLIMITED, None, 0, 1),
             "high": PartitionView("high", names, "UP", UNLIMITED, None, 0, 2)}
    running = []
    for index, name in enumerate(names):
        for cpu in range(CPUS):
            job_id = index * CPUS + cpu + 1
            running.append(dataclasses.replace(_job(job_id), state=JobState.RUNNING, start_time=job_id,
                                               allocation=Allocation((name,), (1,), (0,), ((cpu,),))))
    nodes = {name: NodeCapacity(name, True, CPUS, 100_000, frozenset(), 100_000) for name in names}
    pending = {JobId(10**7 + i): _job(10**7 + i, partition="high", num_tasks=16) for i in range(pending_count)}
    decisions = [Pend(job_id, Reason.RESOURCES if i == 0 else Reason.PRIORITY) for i, job_id in enumerate(pending)]
    policy = Policy(PreemptConfig("preempt/partition_prio", ModeSpec(PreemptMode.REQUEUE)),
                    {"low": PartitionPreempt(1), "high": PartitionPreempt(2)})
    times, victims = [], 0
    for _ in range(repeat):
        began = time.perf_counter()
        victims = len(plan(decisions, pending, running, nodes, views, policy, now=10**6))
        times.append(time.perf_counter() - began)
    return {"nodes": node_count, "running": len(running), "pending": pending_count, "victims": victims,
            "median_ms": round(statistics.median(times) * 1000, 1), "max_ms": round(max(times) * 1000, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="100,200,1000")
    parser.add_argument("--pending", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for count in (int(n) for n in args.nodes.split(",")):
        print(json.dumps(measure(count, args.pending, args.repeat)), flush=True)


if __name__ == "__main__":
    main()
