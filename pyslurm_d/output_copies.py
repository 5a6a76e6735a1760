"""sattach's copies of a step's output: each frame of task output, each task's exit and the
node's end that the stepd sends srun also go to every attached sattach. As slurmstepd does, the
last REPLAYED frames of output are kept and a new sattach gets them first, so that attaching
shows what the step printed just before.

The controller checked that sattach's user may see the step and pyslurmd passed its address on;
the stepd connects out and opens with HELLO and sattach's key, as to srun. Nothing here may
block the stepd: the sockets are non-blocking with a bounded buffer each, and a sattach that
falls HIGH_WATER behind or goes away is dropped (its user can attach again). Of what a sattach
sends only standard input counts (StreamRelay hands it to the tasks, as srun's): it has no
other say over the step. Stdlib only.
"""
from __future__ import annotations

import errno
import selectors
import socket
import time
from collections import deque
from dataclasses import dataclass, field

from pyslurm_common import step_io

HIGH_WATER = 1 << 20
MAX_ATTACHED = 8              # bounded: each holds a socket and a buffer in the stepd
CONNECT_TIMEOUT = 2.0         # the stepd's loop waits this long at most
FINAL_FLUSH_TIMEOUT = 5.0     # a sattach gets this long to take the rest after the node's end
REPLAYED = 128               # slurmstepd's cache of output messages for a new client
REPLAY_BYTES = 1 << 20       # and no more than this in all
OUTPUT = frozenset((step_io.STDOUT, step_io.STDERR))
COPIED = frozenset((step_io.STDOUT, step_io.STDERR, step_io.TASK_EXIT, step_io.NODE_DONE))


@dataclass(slots=True)
class _Attached:
    sock: socket.socket
    pending: bytearray = field(default_factory=bytearray)
    reader: step_io.FrameReader = field(default_factory=step_io.FrameReader)


class OutputCopies:
    def __init__(self, selector: selectors.BaseSelector) -> None:
        self.selector = selector            # StreamRelay registers the sockets for their input
        self._attached: list[_Attached] = []
        self._recent: deque[bytes] = deque()
        self._recent_bytes = 0
        self._ended_at: float | None = None   # when NODE_DONE was copied

    def attach(self, host: str, port: int, key: str, node_index: int) -> None:
        """Connect to a sattach listener; OSError if it cannot be reached or too many are attached."""
        if len(self._attached) >= MAX_ATTACHED:
            raise OSError(errno.EBUSY, f"{MAX_ATTACHED} sattach are attached already")
        sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
        sock.setblocking(False)
        self._attached.append(_Attached(sock, bytearray(step_io.hello(key, node_index) + b"".join(self._recent))))
        self.flush()

    def copy(self, frame: bytes) -> None:
        """One encoded frame the stepd sends srun: kept for every sattach if it is output."""
        if frame[0] in OUTPUT:
            self._remember(frame)
        if frame[0] == step_io.NODE_DONE:
            self._ended_at = time.monotonic()
        if not self._attached or frame[0] not in COPIED:
            return
        for each in self._attached:
            each.pending += frame
        self.flush()

    @property
    def fds(self) -> list[int]:
        return [each.sock.fileno() for each in self._attached]

    def receive(self, fd: int) -> list[step_io.Frame]:
        """The standard input frames a sattach sent (other kinds are dropped); none once it left."""
        each = next(a for a in self._attached if a.sock.fileno() == fd)
        try:
            data = each.sock.recv(65536)
            frames = each.reader.feed(data) if data else None
        except BlockingIOError:
            return []
        except (OSError, step_io.StreamError):
            frames = None
        if frames is None:
            self._drop(each)
            return []
        return [f for f in frames if f.kind in (step_io.STDIN, step_io.STDIN_EOF)]

    def _remember(self, frame: bytes) -> None:
        self._recent.append(frame)
        self._recent_bytes += len(frame)
        while len(self._recent) > REPLAYED or self._recent_bytes > REPLAY_BYTES:
            self._recent_bytes -= len(self._recent.popleft())

    def flush(self) -> None:
        for each in list(self._attached):
            try:
                while each.pending:
                    del each.pending[:each.sock.send(each.pending)]
            except BlockingIOError:
                if len(each.pending) > HIGH_WATER:
                    self._drop(each)
            except OSError:
                self._drop(each)

    def still_sending(self) -> bool:
        """Whether some sattach has not taken everything yet (flush() goes on with it). One that
        has not FINAL_FLUSH_TIMEOUT after the node's end is dropped: it must not hold the stepd."""
        if self._ended_at is not None and time.monotonic() - self._ended_at > FINAL_FLUSH_TIMEOUT:
            self.close()
        return any(each.pending for each in self._attached)

    def close(self) -> None:
        for each in list(self._attached):
            self._drop(each)

    def _drop(self, each: _Attached) -> None:
        self._attached.remove(each)
        try:   # unregister first: a closed fd number can come back as a new file at once
            self.selector.unregister(each.sock)
        except (KeyError, ValueError):
            pass
        each.sock.close()
