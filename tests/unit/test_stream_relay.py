"""stepd's srun stream relay (pyslurm_d/stream_relay.py): bytes both ways, never blocking.

The task is a thread playing `cat` over real pipes, srun a thread on the other end of a
socketpair; the relay is driven by the same select loop shape as stepd's.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import selectors
import socket
import struct
import termios
import threading
import time
from typing import Callable

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
        serve(relay, selector)
    wind_down(relay, selector)
    assert reader_done.wait(10)
    task.join(5)
    assert hashlib.sha256(echoed).digest() == hashlib.sha256(payload).digest()
    relay.close()
    srun_end.close()


def serve(relay: StreamRelay, selector: selectors.BaseSelector) -> None:
    """One turn of stepd's loop over the relay (stepd closes the relay once srun is gone)."""
    relay.update_interest("stream")
    for key, events in selector.select(0.05):
        try:
            relay.handle(key.fd, events)
        except SrunGone:
            relay.close()


def wind_down(relay: StreamRelay, selector: selectors.BaseSelector, timeout: float = 10) -> bool:
    """stepd's wind-down loop: True once the relay says srun has everything, False at `timeout`."""
    deadline = time.monotonic() + timeout
    while not relay.wind_down(0):
        if time.monotonic() > deadline:
            return False
        serve(relay, selector)
    return True


def wait_until(predicate: Callable[[], bool], timeout: float = 5) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def tcp_stream(selector: selectors.BaseSelector) -> tuple[StreamRelay, socket.socket]:
    """A relay on a real TCP connection (as stepd's to srun) and srun's end of it."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        relay = StreamRelay(selector, socket.create_connection(listener.getsockname()))
        srun_end, _ = listener.accept()
    return relay, srun_end


def test_an_srun_killed_before_acknowledging_the_end_does_not_hold_the_stepd() -> None:
    """srun killed (the batch step's SIGKILL) right after the stepd sent NODE_DONE and its FIN:
    the connection is reset, and the kernel counts the lost bytes as unacknowledged for ever
    (SIOCOUTQ). The wind-down must see the reset, not wait for an acknowledgement that cannot
    come (it once waited 30 s, and the stepd answered no terminate meanwhile)."""
    selector = selectors.DefaultSelector()
    relay, srun_end = tcp_stream(selector)
    relay.wind_down(0)                      # NODE_DONE and our FIN go out
    assert relay.sock is not None
    stepd_end = relay.sock
    srun_end.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    srun_end.close()                        # SIGKILL with input unread: a reset
    wait_until(lambda: stepd_end.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] == 7)   # TCP_CLOSE
    assert struct.unpack("i", fcntl.ioctl(stepd_end.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0] > 0
    assert relay.wind_down(0)               # before the loop even reads the reset
    relay.close()


def test_an_srun_that_does_not_read_never_blocks_the_wind_down() -> None:
    """srun stopped (SIGSTOP) while the tasks wrote more than every buffer holds: each turn of the
    wind-down returns at once, so stepd goes on answering its control socket, and never reports
    the output delivered."""
    selector = selectors.DefaultSelector()
    relay, srun_end = tcp_stream(selector)
    out_r, out_w = os.pipe()
    relay.add_output(out_r, 0, step_io.STDOUT)
    os.set_blocking(out_w, False)
    chunk = b"y" * 65536
    while len(relay.outgoing) <= HIGH_WATER:   # the task writes until srun's and our buffers are full
        try:
            os.write(out_w, chunk)
        except BlockingIOError:
            serve(relay, selector)
    os.close(out_w)                            # the task is gone; its pipe still holds output
    slowest = 0.0
    for _ in range(20):
        started = time.monotonic()
        assert not relay.wind_down(0)
        slowest = max(slowest, time.monotonic() - started)
        serve(relay, selector)
    assert slowest < 0.5
    srun_end.close()
    relay.close()


def test_the_end_reaches_srun_after_all_output_and_srun_sees_the_stream_close() -> None:
    selector = selectors.DefaultSelector()
    relay, srun_end = tcp_stream(selector)
    out_r, out_w = os.pipe()
    relay.add_output(out_r, 2, step_io.STDERR)
    os.write(out_w, b"last words\n")
    os.close(out_w)
    assert wind_down(relay, selector)
    received = b""
    while chunk := srun_end.recv(65536):   # the FIN after the data: srun reads to the end
        received += chunk
    frames = step_io.FrameReader().feed(received)
    assert [(f.kind, f.task, f.payload) for f in frames] == [
        (step_io.STDERR, 2, b"last words\n"), (step_io.NODE_DONE, 0, b"")]
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
