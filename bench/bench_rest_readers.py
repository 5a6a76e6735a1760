#!/usr/bin/env python3
"""Concurrent REST readers: many clients of one user asking pyslurmrestd for the job list at once
(a dashboard's workers, an operator's informers), on a cluster holding many jobs.

    /opt/pyslurm/bin/python bench/bench_rest_readers.py [--jobs 1000] [--readers 100] [--rounds 3]
                                                        [--encoding gzip|identity] [--check]

As root: starts a real two-node cluster (tests/integration's), submits `--jobs` held jobs as alice
through POST job/submit, starts pyslurmrestd as systemd runs it, then for each round opens
`--readers` connections at once, each sending GET /slurm/v0.0.44/jobs/ with alice's token, and
times every answer from its request to its last byte (decoded after the round). The readers
send `Accept-Encoding: gzip, deflate` as Python's requests (and so most REST clients) do;
`--encoding identity` asks for the plain body (5 MB for 1,000 jobs) as urllib3 alone does. Prints one JSON object per round (median,
90th percentile and slowest answer, client timeouts at 30 s, the jobs in each answer) and, with --check, exits 1 unless every round's
median is under 1 s with no timeout (issue 25's goal: 100 readers of a 1,000-job cluster).
"""
from __future__ import annotations

import argparse
import gzip
import http.client
import json
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.integration.conftest import Cluster, running_cluster, two_node_spec  # noqa: E402
from tests.integration.restd_support import RestClient, serving  # noqa: E402

TIMEOUT = 30.0
GOAL_S = 1.0


def _token(cluster: Cluster, user: str | None) -> str:
    args = ("scontrol", "token", "lifespan=3600")
    return cluster.run(*args, user=user, check=True).stdout.strip().removeprefix("SLURM_JWT=")


def _submit(client: RestClient, work: str, count: int) -> None:
    body = {"script": "#!/bin/bash\ntrue\n",
            "job": {"current_working_directory": work, "environment": ["PATH=/bin"], "hold": True}}

    def one(_: int) -> None:
        answer = client.request("POST", "/slurm/v0.0.44/job/submit", body)
        if answer.status != 200:
            raise SystemExit(f"submission failed: {answer.status} {answer.text[:300]}")

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(one, range(count)))


def _round(port: int, token: str, readers: int, encoding: str) -> dict[str, object]:
    start = threading.Barrier(readers)
    times: list[float] = []
    bodies: list[tuple[bytes, bool]] = []
    timeouts = 0
    lock = threading.Lock()

    def reader(_: int) -> None:
        nonlocal timeouts
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        start.wait()
        began = time.perf_counter()
        try:
            conn.request("GET", "/slurm/v0.0.44/jobs/", headers={"X-SLURM-USER-TOKEN": token,
                                                                 "Accept-Encoding": encoding})
            response = conn.getresponse()
            body = response.read()
        except TimeoutError:
            with lock:
                timeouts += 1
            return
        finally:
            conn.close()
        with lock:
            times.append(time.perf_counter() - began)
            zipped = response.getheader("Content-Encoding") == "gzip"
            bodies.append((body, zipped) if response.status == 200 else (b'{"jobs": null}', False))

    with ThreadPoolExecutor(readers) as pool:
        list(pool.map(reader, range(readers)))
    ordered = sorted(times)
    # parsed after the round: the readers' own JSON decoding would compete for the same CPUs
    jobs = {len(json.loads(gzip.decompress(body) if zipped else body)["jobs"] or ()) for body, zipped in bodies}
    return {"answers": len(times), "timeouts": timeouts, "jobs_per_answer": sorted(jobs),
            "answer_bytes": max((len(body) for body, _ in bodies), default=0),
            "gzip": any(zipped for _, zipped in bodies),
            "median_s": round(statistics.median(ordered), 3) if ordered else None,
            "p90_s": round(ordered[int(len(ordered) * 0.9) - 1], 3) if ordered else None,
            "max_s": round(ordered[-1], 3) if ordered else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--readers", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--encoding", default="gzip, deflate", help="the readers' Accept-Encoding")
    parser.add_argument("--check", action="store_true", help=f"exit 1 unless each median is under {GOAL_S} s")
    opts = parser.parse_args()
    held = True
    with running_cluster(two_node_spec) as cluster, serving(cluster) as port:
        alice = _token(cluster, "alice")
        began = time.perf_counter()
        _submit(RestClient(port=port).with_headers(token=alice), str(cluster.work_dir("alice")), opts.jobs)
        print(json.dumps({"bench": "rest_readers", "submitted": opts.jobs,
                          "submit_s": round(time.perf_counter() - began, 1)}), flush=True)
        for number in range(1, opts.rounds + 1):
            result = {"bench": "rest_readers", "round": number, "readers": opts.readers,
                      **_round(port, alice, opts.readers, opts.encoding)}
            print(json.dumps(result), flush=True)
            median = result["median_s"]
            held = held and result["timeouts"] == 0 and isinstance(median, float) and median < GOAL_S
    if opts.check and not held:
        raise SystemExit(f"bench_rest_readers: the goal (median under {GOAL_S} s, no timeout) was not held")


if __name__ == "__main__":
    main()
