#!/usr/bin/env python3
"""Accounting daemon: record ingest rate, sacct query latency and the hourly roll-up, over many jobs.

    /opt/pyslurm/bin/python bench/bench_accounting.py [--jobs 100000] [--url sqlite:///...] [--repeat 5]

Fills a fresh accounting database (SQLite in a temporary directory unless ``--url``) the way
the controller does: ``JobRecord`` snapshots with a batch step, in batches of 500 (the outbox's
batch), each job sent twice (started, then finished: the second is an upsert of the first).
Jobs of 50 users over the last 24 hours, 4 per minute per user. Then times, on the store
(``AccountingStore.query``, the SQL sacct's RPC runs) and through sacct's renderer:

* ``-j <id>``: one job;
* ``-u <user> -X -n -P`` since midnight: one user's day (~1-2k jobs, the figure real Slurm's
  sacct takes 65-83 ms for); -X asks for the job records without their steps;
* ``-a -X -n -P -S now-1hours``: everyone's last hour;
* ``-s CD -S now-6hours -E now``: the state filter;

and the first roll-up of the whole history (``UsageReports.roll_up``), then a second one (the
steady state: only the current hour). Prints one JSON object per measurement.
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from cli import sacct_fields
from cli.print_fields import Parsable
from pyslurm_common.rpc.dbd_pb2 import AccountingQuery, JobRecord, NodeEventRecord
from pyslurm_common.rpc.types_pb2 import JobInfo, StepInfo
from pyslurm_dbd.daemon_stats import INTERNAL
from pyslurm_dbd.event_store import EventStore
from pyslurm_dbd.store import AccountingStore
from pyslurm_dbd.usage_reports import UsageReports

BATCH = 500
USERS = 50


def _record(job_id: int, now: int, jobs: int, finished: bool) -> JobRecord:
    submit = now - 86400 + (job_id * 86400) // jobs
    start, end = submit + 5, submit + 65
    user = f"user{job_id % USERS:02d}"
    job = JobInfo(job_id=job_id, name=f"job{job_id}", user_name=user, user_id=10000 + job_id % USERS,
                  group_name=user, account=f"acct{job_id % 5}", partition="batch", qos="normal",
                  state="COMPLETED" if finished else "RUNNING", submit_time=submit, eligible_time=submit,
                  start_time=start, end_time=end if finished else 0, num_cpus=4, num_nodes=1, num_tasks=1,
                  nodes=f"n{job_id % 100:03d}", time_limit_min=60, mem_per_node_mb=4096, work_dir="/home/x")
    batch = StepInfo(job_id=job_id, step_id="batch", name="batch", state=job.state, start_time=start,
                     end_time=job.end_time, nodes=job.nodes, num_cpus=4, num_tasks=1, max_rss_kb=123456,
                     user_cpu_usec=59_000_000, system_cpu_usec=400_000, max_rss_node=job.nodes)
    return JobRecord(cluster="bench", job=job, steps=[batch], alloc_cpus=4)


def _ingest(store: AccountingStore, jobs: int, now: int) -> dict[str, float]:
    sent = 0
    began = time.perf_counter()
    for finished in (False, True):
        for first in range(1, jobs + 1, BATCH):
            store.record([_record(i, now, jobs, finished) for i in range(first, min(first + BATCH, jobs + 1))])
            sent += min(BATCH, jobs + 1 - first)
    seconds = time.perf_counter() - began
    return {"records": sent, "seconds": round(seconds, 2), "records_per_s": round(sent / seconds)}


def _timed(run: Callable[[], int], repeat: int) -> dict[str, float]:
    times, rows = [], 0
    for _ in range(repeat):
        began = time.perf_counter()
        rows = run()
        times.append((time.perf_counter() - began) * 1000)
    return {"rows": rows, "median_ms": round(statistics.median(times), 1), "min_ms": round(min(times), 1)}


def _sacct(store: AccountingStore, query: AccountingQuery, now: int, spec: str, allocations: bool) -> Callable[[], int]:
    columns = sacct_fields.parse_fields(spec)

    def run() -> int:
        records = store.query(query, now)
        lines = sacct_fields.render_sacct(columns, sacct_fields.rows(records, allocations, now=now),
                                          parsable=Parsable.NO_TRAILING, header=False)
        return len(lines)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--url", help="an empty database (default: SQLite in a temporary directory)")
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()
    now = int(time.time())
    midnight = now - 86400 // 2          # about half of the day's jobs
    with tempfile.TemporaryDirectory() as tmp:
        store = AccountingStore(opts.url or f"sqlite:///{Path(tmp) / 'bench.sqlite'}")
        store.create_schema()
        EventStore(store.sessions).record([NodeEventRecord(cluster="bench", time=now - 2 * 86400, cpus=6400,
                                                           cluster_nodes="n[000-099]")])
        print(json.dumps({"bench": "ingest", "jobs": opts.jobs, **_ingest(store, opts.jobs, now)}))
        default = sacct_fields.DEFAULT_FIELDS
        queries = {
            "sacct -j <id>": (AccountingQuery(job_ids=[opts.jobs // 2]), default, False),
            "sacct -u user07 -X -n -P (since midnight)": (
                AccountingQuery(users=["user07"], start_time=midnight, without_steps=True), "JobID,State", True),
            "sacct -a -X -n -P -S now-1hours": (
                AccountingQuery(all_users=True, start_time=now - 3600, without_steps=True), "JobID,State", True),
            "sacct -a -s CD -S now-6hours -E now": (
                AccountingQuery(all_users=True, states=["COMPLETED"], start_time=now - 6 * 3600, end_time=now),
                default, False),
        }
        for name, (query, spec, allocations) in queries.items():
            result = _timed(_sacct(store, query, now, spec, allocations), opts.repeat)
            print(json.dumps({"bench": name, "jobs": opts.jobs, **result}))
        reports = UsageReports(store.sessions)
        for name in ("first roll-up (whole history)", "next roll-up (current hour)"):
            print(json.dumps({"bench": name, "jobs": opts.jobs, **_timed(lambda: reports.roll_up(now, INTERNAL), 1)}))
        store.close()


if __name__ == "__main__":
    main()
