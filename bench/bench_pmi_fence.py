#!/usr/bin/env python3
"""PMI fence latency on one node: 2, 8 and 32 tasks (srun --mpi=pmi2).

    /opt/pyslurm/bin/python bench/bench_pmi_fence.py [--tasks 2,8,32] [--fences 200]

One stepd's side as it runs in a step (pyslurm_common/pmi2.py's PmiNode behind one socket pair
per task, served from a selector loop), and forked clients speaking the PMI-2 wire protocol as
MPICH's pmi2 client does: each round every task puts one key (an MPI business card of 64 bytes),
enters kvs-fence and, once released, reads its neighbour's key. The node's fence payload goes
through srun's merge (FenceRound) in-process here: a one-node step's round trip to srun adds a
loopback TCP exchange, not measured. Prints one JSON object per task count: median and 95th
percentile of a round, in microseconds, seen by task 0.
"""
from __future__ import annotations

import argparse
import json
import os
import selectors
import socket
import statistics
import struct
import time

from pyslurm_common import pmi2


def client(sock: socket.socket, rank: int, size: int, fences: int, report: int) -> None:
    def call(command: str, **pairs: str) -> dict[str, str]:
        sock.sendall(pmi2.encode_v2(command, list(pairs.items())))
        length = int(sock.recv(pmi2.LENGTH_FIELD, socket.MSG_WAITALL))
        return pmi2.decode_v2(sock.recv(length, socket.MSG_WAITALL))[1]

    sock.sendall(b"cmd=init pmi_version=2 pmi_subversion=0\n")
    sock.recv(200)
    call("fullinit", pmirank=str(rank), threaded="FALSE")
    times = []
    for round_number in range(fences):
        start = time.perf_counter()
        call("kvs-put", key=f"card-{round_number}-{rank}", value="x" * 64)
        call("kvs-fence")
        call("kvs-get", key=f"card-{round_number}-{(rank + 1) % size}")
        times.append(time.perf_counter() - start)
    if rank == 0:
        os.write(report, struct.pack(f"!{fences}d", *times))
    os._exit(0)


def measure(tasks: int, fences: int) -> dict[str, object]:
    job = pmi2.PmiJob("1.0", tasks, pmi2.process_mapping([tasks]))
    node, fence = pmi2.PmiNode(job, list(range(tasks))), pmi2.FenceRound(1)
    selector = selectors.DefaultSelector()
    servers, pids = {}, []
    report_read, report_write = os.pipe()
    for rank in range(tasks):
        server, task_end = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            server.close()
            client(task_end, rank, tasks, fences, report_write)
        task_end.close()
        servers[rank] = server
        pids.append(pid)
        selector.register(server, selectors.EVENT_READ, rank)
    os.close(report_write)
    open_clients = tasks
    while open_clients:
        for key, _ in selector.select():
            data = servers[key.data].recv(65536)
            if not data:
                selector.unregister(key.fileobj)
                open_clients -= 1
                continue
            for reply in node.receive(key.data, data):
                assert isinstance(reply, pmi2.Reply)
                servers[reply.rank].sendall(reply.data)
            if node.fence_ready:
                merged = fence.add(0, node.fence_payload())
                assert merged is not None
                for reply in node.fence_done(merged):
                    servers[reply.rank].sendall(reply.data)
    with os.fdopen(report_read, "rb") as report:   # task 0's round times
        results = report.read()
    for pid in pids:
        os.waitpid(pid, 0)
    for server in servers.values():
        server.close()
    rounds = sorted(t * 1e6 for t in struct.unpack(f"!{fences}d", results))
    return {"tasks": tasks, "fences": fences, "median_us": round(statistics.median(rounds), 1),
            "p95_us": round(rounds[int(len(rounds) * 0.95) - 1], 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="2,8,32")
    parser.add_argument("--fences", type=int, default=200)
    args = parser.parse_args()
    for tasks in (int(t) for t in args.tasks.split(",")):
        print(json.dumps(measure(tasks, args.fences)), flush=True)


if __name__ == "__main__":
    main()
