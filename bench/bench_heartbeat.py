#!/usr/bin/env python3
"""The controller's work for node agents' heartbeats against the cluster's size (issue 18: flat
up to 1,000 agents).

    /opt/pyslurm/bin/python bench/bench_heartbeat.py [--nodes 100,1000] [--pending 0,50000]

A real ClusterState (bench_schedule.manager: every node full with one running job, `--pending`
jobs queued) receives one heartbeat from each of `--nodes` agents: `node_heartbeat` plus the
step reconciliation the servicer runs on it (node_reconcile.reconcile over the jobs that may
hold the node, job_table.JobTable.on_node). Prints CPU µs per heartbeat, and what the
same reconciliation costs over every job, as each heartbeat paid before that index. The gRPC
hop and the journal are not included (the same per call at any size).
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterable

from bench_schedule import manager
from pyslurm_ctld.core import node_reconcile
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.topology import node_heartbeat
from pyslurm_ctld.model.job import Job


def _per_heartbeat_us(mgr: ClusterState, jobs_of: Callable[[str], Iterable[Job]]) -> float:
    costs = []
    for name, rec in mgr.nodes.items():
        running = frozenset((job.job_id, "batch") for job in jobs_of(name)
                            if job.allocation is not None and name in job.allocation.nodes)
        start = time.process_time()
        node_heartbeat(mgr, name, 10.0, 0.5, 1000)
        outcome = node_reconcile.reconcile(jobs_of(name), name, running, rec.boot_time, 20)
        costs.append(time.process_time() - start)
        assert not outcome.kill
    return round(statistics.median(costs) * 1e6, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", default="100,1000")
    parser.add_argument("--pending", default="0,50000")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for nodes in map(int, opts.nodes.split(",")):
            for pending in map(int, opts.pending.split(",")):
                mgr = manager(nodes, pending, Path(tmp))
                print(json.dumps({
                    "bench": "heartbeat", "agents": nodes, "pending_jobs": pending,
                    "cpu_us_per_heartbeat": _per_heartbeat_us(mgr, mgr.jobs.on_node),
                    "cpu_us_per_heartbeat_walking_every_job": _per_heartbeat_us(mgr, lambda _: mgr.jobs.values()),
                }), flush=True)


if __name__ == "__main__":
    main()
