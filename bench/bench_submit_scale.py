#!/usr/bin/env python3
"""Controller-side submission cost against the queue's length (issue 18: flat at 1k, 10k, 100k).

    /opt/pyslurm/bin/python bench/bench_submit_scale.py [--queued 1000,10000,100000] [--submits 500]

Builds a real ClusterState with `--queued` pending jobs (bench_schedule.manager: 10 full nodes,
every job pending), then times `--submits` more submissions (`submission` + `apply`, what the
servicer does for sbatch besides the journal's fsync and the RPC). Prints one JSON object per
size: CPU µs per submission (process time: less disturbed than wall time on a shared machine)
and, for comparison, the µs one walk of the job table costs, which is what counting MaxJobCount
by walking every job added to each submission before job_table.py kept a tally.
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from bench_schedule import _request, manager
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.model.job_table import active_weight


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queued", default="1000,10000,100000")
    parser.add_argument("--submits", type=int, default=500)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for queued in map(int, opts.queued.split(",")):
            mgr = manager(10, queued + opts.submits, Path(tmp))   # MaxJobCount leaves room for the submits
            for job_id in list(mgr.jobs)[10 + queued:]:
                del mgr.jobs[job_id]        # `manager` queued the submits' room too: start from `queued`
            costs = []
            for i in range(opts.submits):
                start = time.process_time()
                apply(mgr, submission(mgr, _request(1 + i % 8), 1000, 1000, "u", "u", False, 5))
                costs.append(time.process_time() - start)
            start = time.process_time()
            walked = sum(active_weight(job) for job in mgr.jobs.values())
            walk = time.process_time() - start
            assert walked == mgr.jobs.active_count
            print(json.dumps({"bench": "submit_scale", "queued": queued, "submits": opts.submits,
                              "submit_cpu_us_median": round(statistics.median(costs) * 1e6, 1),
                              "submit_cpu_us_mean": round(statistics.mean(costs) * 1e6, 1),
                              "full_count_walk_us": round(walk * 1e6, 1)}), flush=True)


if __name__ == "__main__":
    main()
