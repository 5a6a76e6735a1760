"""The I/O stream between srun and the stepd of each node of its step (stdlib only).

srun listens on a TCP port and names it in its step request; every stepd of the step
connects back to it (as Slurm's slurmstepd does) and first sends HELLO carrying the
step's secret `io_key`, which only srun, the controller and the node agents ever saw.
srun drops a connection whose first frame is anything else. Then:

  stepd -> srun: STDOUT / STDERR (task = global rank, payload = bytes as written),
                 TASK_EXIT (task = rank, payload = JSON {"code", "signal", "oom"}),
                 NODE_DONE (every task of the node ended; the stepd closes the stream next),
                 PMI_FENCE (--mpi=pmi2: every local task entered a fence; payload = the node's
                 puts since the last one, see pyslurm_common/pmi2.py),
                 ABORTED (the step is being ended from outside srun: scancel, its time limit;
                 srun says it waits for it, as Slurm's srun does on the controller's notice)
  srun -> stepd: STDIN (task = rank, or ALL_TASKS), STDIN_EOF (same addressing),
                 SIGNAL (payload = signal number, ASCII), WINSIZE (payload = "rows cols"),
                 KILL (end the step now: Slurm's terminate sequence),
                 PMI_KVS (every node reached the fence; payload = the step's merged puts)

A frame is `kind u8 | task u32 | length u32 | payload`, big-endian.
"""
from __future__ import annotations

import json
import socket
import struct

from .typed_tuple import NamedTuple

HEADER = struct.Struct("!BII")
MAX_PAYLOAD = 1 << 20
ALL_TASKS = 0xFFFFFFFF

HELLO = 1
STDOUT = 2
STDERR = 3
STDIN = 4
STDIN_EOF = 5
TASK_EXIT = 6
SIGNAL = 7
WINSIZE = 8
NODE_DONE = 9
KILL = 10
PMI_FENCE = 11
PMI_KVS = 12
ABORTED = 13


class StreamError(Exception):
    pass


class Frame(NamedTuple):   # a NamedTuple: srun's step path imports no dataclasses (and inspect)
    kind: int
    task: int
    payload: bytes


def encode(kind: int, task: int, payload: bytes = b"") -> bytes:
    if len(payload) > MAX_PAYLOAD:
        raise StreamError(f"frame of {len(payload)} bytes is too large")
    return HEADER.pack(kind, task, len(payload)) + payload


def hello(io_key: str, node_index: int) -> bytes:
    return encode(HELLO, node_index, io_key.encode())


def task_exit(rank: int, code: int, signal: int, oom: bool) -> bytes:
    return encode(TASK_EXIT, rank, json.dumps({"code": code, "signal": signal, "oom": oom}).encode())


def exit_info(frame: Frame) -> tuple[int, int, bool]:
    """(exit code, signal, out of memory) of a TASK_EXIT frame."""
    data = json.loads(frame.payload)
    return int(data["code"]), int(data["signal"]), bool(data["oom"])


class FrameReader:
    """Splits a byte stream into frames; feed it whatever recv() returned."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[Frame]:
        self._buffer += data
        frames = []
        while len(self._buffer) >= HEADER.size:
            kind, task, length = HEADER.unpack_from(self._buffer)
            if length > MAX_PAYLOAD:
                raise StreamError(f"frame of {length} bytes is too large")
            end = HEADER.size + length
            if len(self._buffer) < end:
                break
            frames.append(Frame(kind, task, bytes(self._buffer[HEADER.size:end])))
            del self._buffer[:end]
        return frames


def read_frame(sock: socket.socket) -> Frame:
    """One whole frame from a blocking socket (srun's handshake); StreamError on EOF."""
    head = _recv_exact(sock, HEADER.size)
    kind, task, length = HEADER.unpack(head)
    if length > MAX_PAYLOAD:
        raise StreamError(f"frame of {length} bytes is too large")
    return Frame(kind, task, _recv_exact(sock, length))


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(n)
        if not chunk:
            raise StreamError("connection closed")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)
