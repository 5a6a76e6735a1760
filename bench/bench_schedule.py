#!/usr/bin/env python3
"""One full scheduling pass of the controller over many pending jobs (issue 5: main pass and
main + backfill pass).

    /opt/pyslurm/bin/python bench/bench_schedule.py [--jobs 1000,10000,50000] [--nodes 100,1000] [--repeat 5]
                                                    [--limits] [--multifactor]

Builds a real ClusterState from a generated slurm.conf (nodes with 64 CPUs, one partition),
submits the pending jobs through `submission` + `apply` as the controller does, registers
every node, fills the cluster so every job is left pending (the worst case: each pass looks at
every job, and backfill reserves bf_max_job_test=500 of them), and times `schedule_pass` with
sched/builtin (`main`) and with sched/backfill (`main+backfill`). Prints one JSON object per
size and scheduler. `--limits` runs with AccountingStorageEnforce=associations,limits,qos and
QOS and association limits that every job is checked against but none reaches (the cost of
the limit checks on top of the pass). With --multifactor the cluster uses
PriorityType=priority/multifactor and the periodic recalculation of every pending job's
priority is timed too (`recalculate_ms`, and its longest chunk: what an RPC may wait behind).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import tempfile
import time
from pathlib import Path

from pyslurm_common.config import load_config
from pyslurm_ctld.model.associations import (AccountingUser, Association, AssociationLimits, AssociationSnapshot, Qos,
                                             QosLimits)
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.priorities import priority_recalculation
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.topology import node_registered
from pyslurm_ctld.model.job import JobRequest

CPUS = 64
MEMORY_MB = 256_000


def _request(cpus: int) -> JobRequest:
    fields = {f.name: f.default for f in dataclasses.fields(JobRequest)
              if f.default is not dataclasses.MISSING}
    base = dict(name="bench", partition="", account="", qos="", min_nodes=1, num_tasks=1,
                cpus_per_task=cpus, ntasks_given=False, cpus_per_task_given=True, mem_per_node_mb=0,
                mem_per_cpu_mb=0, time_limit_min=60, work_dir="/tmp", std_out="/dev/null",
                std_err="/dev/null", std_in="/dev/null", script="#!/bin/sh\ntrue\n", environment=(),
                argv=(), command="", submit_host="bench", umask=0o22, export_env="", append_output=False,
                nice=0, requeue=True)
    return JobRequest(**{**fields, **base})


MULTIFACTOR = ("PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightFairshare=10000\n"
               "PriorityWeightJobSize=1000\nPriorityWeightPartition=1000\nPriorityWeightQOS=1000\n"
               "PriorityWeightTRES=CPU=1000,Mem=500\n")


def _limits_not_reached() -> AssociationSnapshot:
    """User u in account bench: QOS and association limits set high enough never to bind."""
    many = 10**9
    limits = AssociationLimits(grp_jobs=many, grp_tres={"cpu": many}, max_jobs=many, max_wall=many)
    records = tuple(Association(i, "bench", account, user, "", parent, 1, None, limits, ("normal",), "")
                    for i, (account, user, parent) in enumerate((("root", "", ""), ("bench", "", "root"),
                                                                 ("bench", "u", "root")), start=1))
    qos = Qos(1, "normal", limits=QosLimits(max_jobs_per_user=many, max_tres_per_user={"cpu": many},
                                            grp_tres={"cpu": many}, max_wall=many))
    return AssociationSnapshot("bench:1", records, {"normal": qos}, {"u": AccountingUser("u", "bench", "None")})


def manager(nodes: int, jobs: int, workdir: Path, limits: bool = False,
            multifactor: bool = False) -> ClusterState:
    conf = workdir / f"slurm-{nodes}.conf"
    conf.write_text(f"ClusterName=bench\nSlurmctldHost=localhost\n{MULTIFACTOR if multifactor else ''}"
                    f"NodeName=n[1-{nodes}] CPUs={CPUS} RealMemory={MEMORY_MB}\n"
                    f"MaxJobCount={jobs + nodes + 10}\n"
                    f"PartitionName=batch Nodes=n[1-{nodes}] Default=YES\n"
                    + ("AccountingStorageEnforce=associations,limits,qos\n" if limits else ""))
    mgr = ClusterState(load_config(conf), slurm_uid=0)
    if limits:
        mgr.associations = _limits_not_reached()
    for name, rec in mgr.nodes.items():
        node_registered(mgr, name, 0.0, cpus=rec.config.cpus, real_memory_mb=rec.config.real_memory_mb)
    # Occupy every CPU first so that the measured pass keeps all `jobs` pending.
    for _ in range(nodes):
        apply(mgr, submission(mgr, _request(CPUS), 1000, 1000, "u", "u", False, 1))
    for event in schedule_pass(mgr, 2):
        apply(mgr, event)
    for i in range(jobs):
        apply(mgr, submission(mgr, _request(1 + i % 8), 1000, 1000, "u", "u", False, 3))
    return mgr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", default="1000,10000,50000")
    parser.add_argument("--nodes", default="100,1000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--limits", action="store_true", help="enforce QOS and association limits")
    parser.add_argument("--multifactor", action="store_true", help="priority/multifactor; time its recalculation")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for nodes in map(int, opts.nodes.split(",")):
            for jobs in map(int, opts.jobs.split(",")):
                mgr = manager(nodes, jobs, Path(tmp), opts.limits, opts.multifactor)
                extra = {}
                if opts.multifactor:
                    began, chunks = time.perf_counter(), []
                    for _ in priority_recalculation(mgr, 3600):   # the controller serves RPCs between chunks
                        chunks.append(time.perf_counter() - began - sum(chunks))
                    extra["recalculate_ms"] = round((time.perf_counter() - began) * 1000, 2)
                    extra["recalculate_longest_chunk_ms"] = round(max(chunks, default=0) * 1000, 2)
                with_backfill = mgr.options
                for label, options in (("main", dataclasses.replace(with_backfill, backfill=None)),
                                       ("main+backfill", with_backfill)):
                    label += "+limits" if opts.limits else ""
                    mgr.options = options
                    times, cpu_times = [], []
                    for _ in range(opts.repeat):
                        start, cpu_start = time.perf_counter(), time.process_time()
                        started = schedule_pass(mgr, 4)
                        times.append(time.perf_counter() - start)
                        cpu_times.append(time.process_time() - cpu_start)
                        assert not started, "the cluster was meant to be full"
                    # CPU time as well: on a loaded shared machine wall time measures the load.
                    print(json.dumps({"bench": "schedule_pass", "scheduler": label, "nodes": nodes,
                                      "pending_jobs": jobs, "reserved": len(mgr.expected),
                                      "median_ms": round(statistics.median(times) * 1000, 2),
                                      "min_ms": round(min(times) * 1000, 2),
                                      "median_cpu_ms": round(statistics.median(cpu_times) * 1000, 2),
                                      **extra}), flush=True)


if __name__ == "__main__":
    main()
