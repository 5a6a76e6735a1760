"""stepd's srun stream relay (pyslurm_d/stream_relay.py): bytes both ways, never blocking.

The task is a thread playing `cat` over real pipes, srun a thread on the other end of a
socketpair; the relay is driven by the same select loop shape as stepd's.
"""
from __future__ import annotations

import hashlib
import os
import selectors
import socket
import threading
import time

import pytest

from pyslurm_common import step_io
from pyslurm_d.stream_relay import HIGH_WATER, SrunGone, StreamRelay


def cat(stdin: int, stdout: int) -> None:
    while True:
        data = os.read(stdin, 65536)
        if not data:
            break
        view = memoryview(data)
        while view:
            view = view[os.write(stdout, view):]
    os.close(stdin)
    os.close(stdout)


def test_more_than_pipes_hold_goes_through_cat_and_back() -> None:
    """`srun cat` with megabytes: the task blocks on stdout while stdin is still full."""
    selector = selectors.DefaultSelector()
    srun_end, stepd_end = socket.socketpair()
    relay = StreamRelay(selector, stepd_end)
    task_in_r, task_in_w = os.pipe()
    task_out_r, task_out_w = os.pipe()
    relay.add_input(0, task_in_w)
    relay.add_output(task_out_r, 0, step_io.STDOUT)
    task = threading.Thread(target=cat, args=(task_in_r, task_out_w))
    task.start()

    payload = os.urandom(3 * HIGH_WATER + 12345)
    echoed = bytearray()

    # srun's side: a reader and a writer, which is what srun's select loop amounts to.
    srun_end.setblocking(True)
    reader_done = threading.Event()

    def srun_reader() -> None:   # until the node is done, as srun reads
        reader = step_io.FrameReader()
        while not reader_done.is_set():
            data = srun_end.recv(1 << 16)
            if not data:
                break
            for frame in reader.feed(data):
                if frame.kind == step_io.STDOUT:
                    echoed.extend(frame.payload)
                elif frame.kind == step_io.NODE_DONE:
                    reader_done.set()

    def srun_writer() -> None:
        for start in range(0, len(payload), 65536):
            srun_end.sendall(step_io.encode(step_io.STDIN, step_io.ALL_TASKS, payload[start:start + 65536]))
        srun_end.sendall(step_io.encode(step_io.STDIN_EOF, step_io.ALL_TASKS))

    threads = [threading.Thread(target=srun_reader), threading.Thread(target=srun_writer)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    while relay.outputs and time.monotonic() < deadline:
        relay.update_interest("stream")
        for key, events in selector.select(0.05):
            relay.handle(key.fd, events)
    relay.finish(0)
    assert reader_done.wait(10)
    task.join(5)
    assert hashlib.sha256(echoed).digest() == hashlib.sha256(payload).digest()
    relay.close()
    srun_end.close()


def test_a_closed_stream_is_srun_gone_and_input_to_a_gone_task_is_dropped() -> None:
    selector = selectors.DefaultSelector()
    srun_end, stepd_end = socket.socketpair()
    relay = StreamRelay(selector, stepd_end)
    read_end, write_end = os.pipe()
    relay.add_input(3, write_end)
    os.close(read_end)                      # the task closed its stdin
    srun_end.sendall(step_io.encode(step_io.STDIN, 3, b"lost"))
    relay.update_interest("stream")
    for key, events in selector.select(1):
        relay.handle(key.fd, events)
    assert 3 not in relay.inputs
    srun_end.close()
    relay.update_interest("stream")
    with pytest.raises(SrunGone):
        for key, events in selector.select(1):
            relay.handle(key.fd, events)
    relay.close()


def test_control_frames_are_handed_to_stepd() -> None:
    selector = selectors.DefaultSelector()
    srun_end, stepd_end = socket.socketpair()
    relay = StreamRelay(selector, stepd_end)
    srun_end.sendall(step_io.encode(step_io.SIGNAL, step_io.ALL_TASKS, b"10") + step_io.encode(step_io.KILL, 0))
    relay.update_interest("stream")
    frames = []
    for key, events in selector.select(1):
        frames += relay.handle(key.fd, events)
    assert [(f.kind, f.payload) for f in frames] == [(step_io.SIGNAL, b"10"), (step_io.KILL, b"")]
    relay.close()
    srun_end.close()
