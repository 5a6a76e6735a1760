"""The stepd's PMI-2 service (pyslurm_d/pmi_service.py) never blocks the stepd: a task that asks
and never reads its answers loses its PMI connection once HIGH_WATER behind, each serve() returns
at once meanwhile; a task that reads gets every answer. Real socket pairs, the stepd's selector."""
from __future__ import annotations

import os
import selectors
import socket
import time

from pyslurm_common import pmi2
from pyslurm_d.launch import Launch
from pyslurm_d.pmi_service import HIGH_WATER, PMI, PmiService


def service_for_two_tasks() -> tuple[PmiService, selectors.BaseSelector, dict[int, socket.socket]]:
    launch = Launch(job_id=7, uid=1000, gid=1000, user_name="u", node_name="n1", script_path="", argv=["app"],
                    environment=["SLURM_MPI_TYPE=pmi2", "SLURM_STEP_TASKS_PER_NODE=2"], work_dir="/tmp",
                    std_out="", std_err="", std_in="", append=False, umask=0o22, kill_wait=3, step="0",
                    task_ids=[0, 1], num_tasks=2)
    service = PmiService.for_launch(launch)
    assert service is not None
    tasks = {rank: socket.socket(fileno=os.dup(service.task_fd(rank))) for rank in (0, 1)}   # as forked
    selector = selectors.DefaultSelector()
    service.serve_in(selector)
    return service, selector, tasks


def serve_ready(service: PmiService, selector: selectors.BaseSelector) -> None:
    for key, events in selector.select(0):
        if isinstance(key.data, tuple) and key.data[0] == PMI:
            service.serve(key.data[1], events)


def test_a_task_that_never_reads_its_answers_is_cut_off_without_stalling_the_stepd() -> None:
    service, selector, tasks = service_for_two_tasks()
    greedy = tasks[0]
    greedy.setblocking(False)
    requests = pmi2.encode_v1("get_maxes", []) * 4096
    slowest, sent = 0.0, 0
    while 0 in service.servers:
        try:
            sent += greedy.send(requests)
        except BlockingIOError:
            pass
        started = time.monotonic()
        serve_ready(service, selector)
        slowest = max(slowest, time.monotonic() - started)
        assert sent < 100 * HIGH_WATER, "never cut off"
    # A blocking send would stall 2 s per answer (the socket timeout it had); a serve of 4096
    # queued requests takes well under that even on a loaded 2-core box (0.65 s seen at load 20).
    assert slowest < 1.5
    greedy.setblocking(True)
    while greedy.recv(1 << 16):   # what it was sent, then the end of its connection
        pass
    tasks[1].sendall(pmi2.encode_v1("get_universe_size", []))   # the other task is served as ever
    while not select_one(tasks[1]):
        serve_ready(service, selector)
    assert tasks[1].recv(4096) == pmi2.encode_v1("universe_size", [("size", "2"), ("rc", "0")])
    service.close()
    for task in tasks.values():
        task.close()


def select_one(sock: socket.socket) -> bool:
    with selectors.DefaultSelector() as one:
        one.register(sock, selectors.EVENT_READ)
        return bool(one.select(0.01))
