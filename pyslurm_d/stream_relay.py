"""stepd's side of the srun stream: task output to srun, srun's input to the tasks.

Nothing here may block stepd: a task that stops reading its stdin while it writes
to stdout (`srun cat` with more data than a pipe holds), or an srun that is slow
to read, would otherwise stall the step and its control socket. So every fd is
non-blocking with a buffer, and backpressure goes to the producer: while srun has
more than HIGH_WATER bytes unread, the tasks' output pipes are not read (the tasks
block on their own writes); while a task has more than HIGH_WATER bytes of input
waiting, srun's stream is not read (srun stops sending). Stdlib only.
"""
from __future__ import annotations

import fcntl
import os
import selectors
import socket
import struct
import termios
from dataclasses import dataclass, field

from pyslurm_common import step_io

from .output_copies import OutputCopies

HIGH_WATER = 1 << 20
READ_SIZE = 65536
CONNECT_TIMEOUT = 10.0
TCP_CLOSE = 7              # tcp_states.h: no connection any more (reset, or fully closed)
CTRL_D = b"\x04"


class SrunGone(Exception):
    """srun closed or broke its stream."""


@dataclass(slots=True)
class _Input:
    fd: int
    pending: bytearray = field(default_factory=bytearray)
    eof: bool = False               # close once `pending` is written
    terminal: bool = False          # a pty master: end of input is Ctrl-D, the fd stays


class StreamRelay:
    """The selector registrations of the srun socket and the task pipes, and their buffers.

    `handle(key, events)` serves one ready fd and returns the srun frames that are not
    input (SIGNAL, WINSIZE, KILL) for stepd to act on; it raises SrunGone once srun left.
    """

    def __init__(self, selector: selectors.BaseSelector, sock: socket.socket | None) -> None:
        self.selector = selector
        self.sock = sock
        self.reader = step_io.FrameReader()
        self.outgoing = bytearray()
        self.outputs: dict[int, tuple[int, int]] = {}      # fd -> (rank, STDOUT | STDERR)
        self.inputs: dict[int, _Input] = {}                # rank -> its stdin
        self.copies = OutputCopies(selector)               # attached sattach
        self._ending = False                               # NODE_DONE queued (wind_down)
        self._shut_down = False                            # our direction ended
        if sock is not None:
            sock.setblocking(False)

    @classmethod
    def connect(cls, selector: selectors.BaseSelector, host: str, port: int, key: str,
                node_index: int) -> "StreamRelay":
        try:
            sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot reach srun at {host}:{port}: {exc.strerror or exc}") from exc
        relay = cls(selector, sock)
        relay.send(step_io.hello(key, node_index))
        return relay

    @property
    def streaming(self) -> bool:
        return self.sock is not None

    # ---- wiring -----------------------------------------------------------------------

    def add_output(self, fd: int, rank: int, kind: int) -> None:
        os.set_blocking(fd, False)
        self.outputs[fd] = (rank, kind)

    def add_input(self, rank: int, fd: int, terminal: bool = False) -> None:
        os.set_blocking(fd, False)
        self.inputs[rank] = _Input(fd, terminal=terminal)

    def close_input(self, rank: int) -> None:
        """The task is gone: what it did not read is dropped."""
        entry = self.inputs.pop(rank, None)
        if entry is not None and not entry.terminal:
            self._close_registered(entry.fd)

    def _close_registered(self, fd: int) -> None:
        # Unregister first: a closed fd number can come back as a new file at once.
        try:
            self.selector.unregister(fd)
        except (KeyError, ValueError):
            pass
        _close(fd)

    def send(self, frame: bytes) -> None:
        self.copies.copy(frame)
        if self.sock is None or self._shut_down:   # after NODE_DONE srun takes nothing more
            return
        self.outgoing += frame
        self._write_socket()

    # ---- the loop's side ------------------------------------------------------------

    def update_interest(self, data: object) -> None:
        """(Re)register every fd for what it waits for now; `data` tags the registrations."""
        self.copies.flush()   # what a slow sattach could not take before
        wanted: dict[int, int] = {}
        if self.sock is not None:
            stalled = any(len(i.pending) > HIGH_WATER for i in self.inputs.values())
            events = (0 if stalled else selectors.EVENT_READ) | (selectors.EVENT_WRITE if self.outgoing else 0)
            wanted[self.sock.fileno()] = events
        if not any(len(i.pending) > HIGH_WATER for i in self.inputs.values()):
            for fd in self.copies.fds:
                wanted[fd] = selectors.EVENT_READ
        if len(self.outgoing) <= HIGH_WATER:
            for fd in self.outputs:
                wanted[fd] = wanted.get(fd, 0) | selectors.EVENT_READ
        for entry in self.inputs.values():
            if entry.pending or entry.eof:
                wanted[entry.fd] = wanted.get(entry.fd, 0) | selectors.EVENT_WRITE
        for fd, events in wanted.items():
            try:
                key = self.selector.get_key(fd)
            except KeyError:
                if events:
                    self.selector.register(fd, events, data)
                continue
            if not events:
                self.selector.unregister(fd)
            elif key.events != events:
                self.selector.modify(fd, events, data)
        for key in list(self.selector.get_map().values()):
            if key.data is data and key.fd not in wanted:
                self.selector.unregister(key.fd)

    def handle(self, fd: int, events: int) -> list[step_io.Frame]:
        frames: list[step_io.Frame] = []
        if self.sock is not None and fd == self.sock.fileno():
            if events & selectors.EVENT_WRITE:
                self._write_socket()
            if events & selectors.EVENT_READ:
                frames = self._read_socket()
            return frames
        if fd in self.copies.fds:
            for frame in self.copies.receive(fd):
                self._deliver_input(frame)
            return frames
        if events & selectors.EVENT_WRITE:
            self._write_inputs(fd)
        if events & selectors.EVENT_READ and fd in self.outputs:
            self.read_output(fd)
        return frames

    def read_output(self, fd: int) -> None:
        """Forward what one output pipe holds now; at its end, let it go."""
        data = self._read(fd)
        if data:
            self._forward(fd, data)
        elif data is not None:
            self._end_output(fd)

    def wind_down(self, node_index: int) -> bool:
        """The step's processes are gone: one step, never blocking, towards handing srun (and every
        sattach) the rest: what the pipes still hold, NODE_DONE, then the end of our direction.
        True once all of it is acknowledged, or srun is gone (then nothing more can arrive).

        Handed to the kernel is not delivered: closing a socket that still holds unread input
        (srun's stdin, say) resets the connection and throws away whatever of our output was not
        sent yet. So the caller keeps the stream open, serving its loop, until this says True or
        its own deadline passes; stepd must stay responsive meanwhile, so nothing here waits."""
        self._drain_outputs()
        if self.outputs:   # srun is HIGH_WATER behind: the rest waits for it
            return False
        if not self._ending:
            self._ending = True
            self.send(step_io.encode(step_io.NODE_DONE, node_index))
        if self.sock is not None and not self.outgoing and not self._shut_down:
            try:
                self.sock.shutdown(socket.SHUT_WR)   # FIN after the data
                self._shut_down = True
            except OSError:   # the connection is gone already
                self.close_stream()
        stream_done = self.sock is None or (self._shut_down and _delivered(self.sock))
        return stream_done and not self.copies.still_sending()

    def _drain_outputs(self) -> None:
        """Forward what the output pipes still hold, while srun keeps up. The writers are gone, so
        a pipe with nothing to read now has nothing more to come (a process that outlived SIGKILL
        holds it): it ends here too."""
        for fd in list(self.outputs):
            while len(self.outgoing) <= HIGH_WATER:
                data = self._read(fd)
                if not data:
                    self._end_output(fd)
                    break
                self._forward(fd, data)

    def _read(self, fd: int) -> bytes | None:
        """What an output pipe holds: b"" at its end, None when nothing is there now."""
        try:
            return os.read(fd, READ_SIZE)
        except BlockingIOError:
            return None
        except OSError:   # EIO: the pty's last user closed it
            return b""

    def _forward(self, fd: int, data: bytes) -> None:
        rank, kind = self.outputs[fd]
        self.send(step_io.encode(kind, rank, data))

    def _end_output(self, fd: int) -> None:
        del self.outputs[fd]
        if not any(entry.fd == fd for entry in self.inputs.values()):   # a pty master stays for input
            self._close_registered(fd)

    def close_stream(self) -> None:
        """srun is gone: nothing more goes to it (sattach copies go on)."""
        if self.sock is not None:
            try:
                self.selector.unregister(self.sock)
            except (KeyError, ValueError):
                pass
            self.sock.close()
            self.sock = None
        self.outgoing.clear()

    def close(self) -> None:
        self.copies.close()
        for fd in list(self.outputs):
            _close(fd)
        self.outputs.clear()
        for rank in list(self.inputs):
            self.close_input(rank)
        self.close_stream()

    # ---- internals --------------------------------------------------------------------

    def _read_socket(self) -> list[step_io.Frame]:
        assert self.sock is not None
        try:
            data = self.sock.recv(READ_SIZE)
        except BlockingIOError:
            return []
        except OSError as exc:
            raise SrunGone(str(exc)) from exc
        if not data:
            raise SrunGone("srun closed the stream")
        try:
            frames = self.reader.feed(data)
        except step_io.StreamError as exc:
            raise SrunGone(str(exc)) from exc
        others = []
        for frame in frames:
            if frame.kind in (step_io.STDIN, step_io.STDIN_EOF):
                self._deliver_input(frame)
            else:
                others.append(frame)
        return others

    def _deliver_input(self, frame: step_io.Frame) -> None:
        """STDIN or STDIN_EOF (from srun or a sattach) to its task, or every task here."""
        for rank, entry in list(self.inputs.items()):
            if frame.task in (step_io.ALL_TASKS, rank):
                if frame.kind == step_io.STDIN:
                    entry.pending += frame.payload
                else:
                    entry.eof = True
                self._write_input(rank, entry)

    def _write_socket(self) -> None:
        assert self.sock is not None
        try:
            while self.outgoing:
                sent = self.sock.send(self.outgoing)
                del self.outgoing[:sent]
        except BlockingIOError:
            pass
        except OSError:
            self.outgoing.clear()   # srun went away; reading the socket will tell

    def _write_inputs(self, fd: int) -> None:
        for rank, entry in list(self.inputs.items()):
            if entry.fd == fd:
                self._write_input(rank, entry)

    def _write_input(self, rank: int, entry: _Input) -> None:
        try:
            while entry.pending:
                written = os.write(entry.fd, entry.pending)
                del entry.pending[:written]
        except BlockingIOError:
            return
        except OSError:   # the task closed its stdin: drop its input
            self.close_input(rank)
            return
        if entry.eof:
            if entry.terminal:
                entry.eof = False
                entry.pending += CTRL_D
                self._write_input(rank, entry)
            else:
                self.close_input(rank)


def _delivered(sock: socket.socket) -> bool:
    """Whether the peer acknowledged every byte sent on `sock`, or never can: a connection the
    peer reset (srun killed before it read our last bytes) is closed, and the kernel still counts
    those lost bytes as unacknowledged (SIOCOUTQ), for ever. Not TCP (a test's socketpair): True."""
    try:
        state = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0]
        unacknowledged = struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0]
    except OSError:
        return True
    return state == TCP_CLOSE or unacknowledged == 0


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
