#!/usr/bin/env python3
"""OpenMetrics scrapes (pyslurmrestd's /metrics/*): how long one scrape holds the controller's
event loop, next to one scheduling pass, so a scrape every 30 s (Slinky's) cannot stall it.

    /opt/pyslurm/bin/python bench/bench_metrics.py [--jobs 5000] [--nodes 100] [--repeat 20]

Builds the same controller state as bench_schedule.py (a real ClusterState, every node busy with a
running job, `--jobs` pending jobs), then times `metrics.collect` for each set (what the
GetMetrics RPC runs on the loop) and the protobuf size of its reply (what one scrape ships
instead of the job list), plus one `schedule_pass` for scale. Prints one JSON object per set.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pyslurm_common.rpc import ctld_pb2
from pyslurm_ctld.rpc import metrics
from pyslurm_ctld.core.scheduling import schedule_pass

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_schedule import manager  # noqa: E402  (bench/ is not a package)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=5000)
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=20)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mgr = manager(opts.nodes, opts.jobs, Path(tmp))
        diag = ctld_pb2.DiagReply
        began = time.perf_counter()
        schedule_pass(mgr, 4)
        pass_ms = (time.perf_counter() - began) * 1000
        for name in metrics.SETS:
            times = []
            for _ in range(opts.repeat):
                start = time.perf_counter()
                gauges = metrics.collect(name, mgr, diag)
                times.append(time.perf_counter() - start)
            size = ctld_pb2.MetricsReply(gauges=gauges).ByteSize()
            print(json.dumps({"bench": "metrics", "set": name, "nodes": opts.nodes, "jobs": len(mgr.jobs),
                              "gauges": len(gauges), "reply_bytes": size,
                              "median_ms": round(statistics.median(times) * 1000, 2),
                              "max_ms": round(max(times) * 1000, 2), "schedule_pass_ms": round(pass_ms, 2)}),
                  flush=True)


if __name__ == "__main__":
    main()
