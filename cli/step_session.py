"""The live part of srun: one event loop over the stepd connections, stdin and signals.

Every stepd of the step connects to srun's listener and must open with HELLO carrying the
step's io_key (pyslurm_common.step_io); anything else is dropped. Frames from the nodes go to
a StreamConsumer; srun's stdin goes to the input task(s) once every node is connected;
signals arrive through a wakeup socket so that the loop, not a handler, acts on them:
TERM/HUP/USR1/USR2/CONT/QUIT are forwarded, SIGWINCH sends the window size (--pty), and
Ctrl-C follows Slurm's interrupt protocol (spec cli-sbatch-srun-salloc.md §3.4).
"""
from __future__ import annotations

import os
import selectors
import signal
import socket
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from pyslurm_common import step_io
from pyslurm_common.typed_tuple import NamedTuple

from .step_layout import INPUT_ALL, INPUT_NONE, StepLayout
from .step_stream import StreamConsumer
from .task_report import status_lines
from .terminal import terminal_size

if TYPE_CHECKING:
    from pyslurm_common.pmi2 import FenceRound

FORWARDED = (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGCONT, signal.SIGQUIT)
SEND_LIMIT = 1 << 20         # stop reading stdin while a node has this much unsent
LIVENESS_PERIOD = 5.0        # how often to ask the controller whether silent nodes still run
INTERRUPT_WINDOW = 1.0


class SessionOptions(NamedTuple):   # not a dataclass: srun's step path skips that import
    step: str                             # "J.S", for messages
    io_key: str
    input_task: int = INPUT_ALL
    disable_status: bool = False          # -X
    quit_on_interrupt: bool = False
    pty: bool = False
    wait_seconds: int = 0                 # -W: after the first task ends, the others get this long


class _Node:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.reader = step_io.FrameReader()
        self.outgoing = bytearray()
        self.index = -1                   # known after HELLO


def window_size() -> bytes:
    """`rows cols` of the controlling terminal (WINSIZE payload); 24x80 without one."""
    rows, cols = terminal_size()
    return f"{rows} {cols}".encode()


class StepSession:
    def __init__(self, listener: socket.socket, layout: StepLayout, consumer: StreamConsumer,
                 options: SessionOptions, step_gone: Callable[[], bool], kill_wait: Callable[[], int]) -> None:
        self.listener = listener
        self.layout = layout
        self.consumer = consumer
        self.options = options
        self.step_gone = step_gone
        self.kill_wait = kill_wait
        self.nodes: dict[int, _Node] = {}
        self.selector = selectors.PollSelector()
        self.stdin_open = options.input_task != INPUT_NONE
        self.stdin_registered = False
        self.pending_signals: list[int] = []
        self.last_interrupt = 0.0
        self.aborting = False
        self.gave_up = False
        self.first_exit: float | None = None   # when the first task's end came (-W counts from it)
        self.never_connected: list[str] = []
        self.fence: FenceRound | None = None   # srun --mpi=pmi2: the step's key-value exchange, on its first fence

    # ------------------------------------------------------------------ main loop

    def run(self) -> None:
        wake_read, wake_write = socket.socketpair()
        wake_read.setblocking(False)
        wake_write.setblocking(False)
        handled = list(FORWARDED) + [signal.SIGINT] + ([signal.SIGWINCH] if self.options.pty else [])
        previous = {s: signal.signal(s, lambda signum, frame: self.pending_signals.append(signum)) for s in handled}
        old_wakeup = signal.set_wakeup_fd(wake_write.fileno(), warn_on_full_buffer=False)
        self.listener.setblocking(False)
        self.selector.register(self.listener, selectors.EVENT_READ, "listener")
        self.selector.register(wake_read, selectors.EVENT_READ, "wakeup")
        try:
            self._loop(wake_read)
        finally:
            signal.set_wakeup_fd(old_wakeup)
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            self.selector.close()
            for node in self.nodes.values():
                node.sock.close()
            wake_read.close()
            wake_write.close()

    def _loop(self, wake_read: socket.socket) -> None:
        next_check = time.monotonic() + LIVENESS_PERIOD
        suspect = False
        while not self.consumer.finished and not self.gave_up:
            self._update_stdin_registration()
            for key, events in self.selector.select(timeout=self._wait_left()):
                if key.data == "listener":
                    self._accept()
                elif key.data == "wakeup":
                    while True:
                        try:
                            if not wake_read.recv(512):
                                break
                        except BlockingIOError:
                            break
                elif key.data == "stdin":
                    self._read_stdin()
                else:
                    self._service(key.data, events)
            self._handle_signals()
            self._enforce_wait()
            if time.monotonic() >= next_check:
                next_check = time.monotonic() + LIVENESS_PERIOD
                gone = not self.consumer.finished and self.step_gone()
                if gone and suspect:
                    self._abandon_silent_nodes()
                suspect = gone

    def _wait_left(self) -> float:
        """How long the loop may sleep: a second, or what is left of -W's time."""
        if not self.options.wait_seconds or self.aborting:
            return 1.0
        if self.first_exit is None:
            if not self.consumer.outcomes:
                return 1.0
            self.first_exit = time.monotonic()
        return min(1.0, max(0.0, self.first_exit + self.options.wait_seconds - time.monotonic()))

    def _enforce_wait(self) -> None:
        """srun -W: once the first task has been over that long, the rest are ended, with Slurm's
        srun's lines (srun_job.c on its SIGALRM, launch_slurm.c's step terminate)."""
        if self._wait_left() > 0 or self.first_exit is None or self.aborting or self.consumer.finished:
            return
        print(f"srun: First task exited {self.options.wait_seconds}s ago", file=sys.stderr)
        for line in status_lines(self.options.step, self.consumer.outcomes, self._started(), self.layout):
            print(line, file=sys.stderr)
        print(f"srun: launch/slurm: _step_signal: Terminating StepId={self.options.step}", file=sys.stderr)
        self.aborting = True
        self.send_all(step_io.encode(step_io.KILL, 0))
        self._say_waiting()

    def _started(self) -> set[int]:
        return {r for n in self.nodes.values() if n.index >= 0 for r in self.layout.ranks_of(n.index)}

    def _abandon_silent_nodes(self) -> None:
        """The controller says the step is over but some nodes never reported: stop waiting."""
        connected = {n.index for n in self.nodes.values() if n.index >= 0}
        for index, name in enumerate(self.layout.nodes):
            if index not in self.consumer.done_nodes:
                if index not in connected:
                    self.never_connected.append(name)
                self.consumer.node_finished(index)

    # ------------------------------------------------------------------ connections

    def _accept(self) -> None:
        try:
            sock, _ = self.listener.accept()
        except BlockingIOError:
            return
        sock.setblocking(False)
        node = _Node(sock)
        self.nodes[sock.fileno()] = node
        self.selector.register(sock, selectors.EVENT_READ, node)

    def _drop(self, node: _Node) -> None:
        self.selector.unregister(node.sock)
        self.nodes.pop(node.sock.fileno(), None)
        node.sock.close()
        if node.index >= 0:
            self.consumer.node_finished(node.index)

    def _service(self, node: _Node, events: int) -> None:
        if events & selectors.EVENT_WRITE:
            self._flush(node)
        if events & selectors.EVENT_READ:
            try:
                data = node.sock.recv(65536)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self._drop(node)
                return
            try:
                frames = node.reader.feed(data)
            except step_io.StreamError:
                self._drop(node)
                return
            for frame in frames:
                if node.index < 0 and not self._hello(node, frame):
                    self._drop(node)
                    return
                if frame.kind == step_io.PMI_FENCE:
                    self._fence(node, frame.payload)
                elif frame.kind == step_io.ABORTED:
                    self._aborted()
                elif frame.kind != step_io.HELLO:
                    self.consumer.feed(node.index, frame)

    def _fence(self, node: _Node, payload: bytes) -> None:
        """A node's tasks all entered a PMI fence: once every node did, each gets the merged puts.
        pmi2 (and json) are loaded here, by the steps that use PMI, not by every srun."""
        from pyslurm_common import pmi2

        if self.fence is None:
            self.fence = pmi2.FenceRound(len(self.layout.nodes))
        try:
            merged = self.fence.add(node.index, payload)
            if merged is not None:
                self.send_all(step_io.encode(step_io.PMI_KVS, step_io.ALL_TASKS, merged))
        except (pmi2.PmiProtocolError, step_io.StreamError) as exc:
            print(f"srun: error: PMI fence of StepId={self.options.step} failed: {exc}", file=sys.stderr)
            self.abort(send_ctrl_c=False)

    def _hello(self, node: _Node, frame: step_io.Frame) -> bool:
        """Accept the node if its first frame is HELLO with the key and a node index not yet seen."""
        if frame.kind != step_io.HELLO or frame.payload != self.options.io_key.encode():
            return False
        taken = {n.index for n in self.nodes.values()}
        if not 0 <= frame.task < len(self.layout.nodes) or frame.task in taken:
            return False
        node.index = frame.task
        if self.options.pty:
            self._send(node, step_io.encode(step_io.WINSIZE, 0, window_size()))
        if len(taken - {-1}) + 1 == len(self.layout.nodes):
            self.selector.unregister(self.listener)
            self.listener.close()
        return True

    @property
    def _live_nodes(self) -> list[_Node]:
        return [n for n in self.nodes.values() if n.index >= 0 and n.index not in self.consumer.done_nodes]

    @property
    def all_connected(self) -> bool:
        return sum(1 for n in self.nodes.values() if n.index >= 0) == len(self.layout.nodes)

    def _send(self, node: _Node, data: bytes) -> None:
        node.outgoing += data
        self._flush(node)

    def _flush(self, node: _Node) -> None:
        if node.outgoing:
            try:
                sent = node.sock.send(node.outgoing)
                del node.outgoing[:sent]
            except BlockingIOError:
                pass
            except OSError:
                node.outgoing.clear()
        wanted = selectors.EVENT_READ | (selectors.EVENT_WRITE if node.outgoing else 0)
        if node.sock.fileno() in self.nodes and self.selector.get_key(node.sock).events != wanted:
            self.selector.modify(node.sock, wanted, node)

    def send_all(self, data: bytes) -> None:
        for node in self._live_nodes:
            self._send(node, data)

    # ------------------------------------------------------------------ stdin

    def _update_stdin_registration(self) -> None:
        wanted = (self.stdin_open and self.all_connected
                  and all(len(n.outgoing) < SEND_LIMIT for n in self.nodes.values()))
        if wanted and not self.stdin_registered:
            try:
                self.selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "stdin")
            except (ValueError, OSError):
                self.stdin_open = False
                return
            self.stdin_registered = True
        elif not wanted and self.stdin_registered:
            self.selector.unregister(sys.stdin.fileno())
            self.stdin_registered = False

    def _stdin_targets(self) -> list[tuple[_Node, int]]:
        task = self.options.input_task
        if task == INPUT_ALL:
            return [(n, step_io.ALL_TASKS) for n in self._live_nodes]
        try:
            index = self.layout.node_of(task)
        except ValueError:
            return []  # no such task in the step: its input goes nowhere
        return [(n, task) for n in self._live_nodes if n.index == index]

    def _read_stdin(self) -> None:
        try:
            data = os.read(sys.stdin.fileno(), 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        for node, task in self._stdin_targets():
            self._send(node, step_io.encode(step_io.STDIN, task, data) if data else
                       step_io.encode(step_io.STDIN_EOF, task))
        if not data:
            self.stdin_open = False
            self._update_stdin_registration()

    # ------------------------------------------------------------------ signals

    def _handle_signals(self) -> None:
        while self.pending_signals:
            signum = self.pending_signals.pop(0)
            if signum == signal.SIGINT:
                self._interrupt()
            elif signum == signal.SIGWINCH:
                self.send_all(step_io.encode(step_io.WINSIZE, 0, window_size()))
            else:
                self.send_all(step_io.encode(step_io.SIGNAL, 0, str(signum).encode()))

    def _interrupt(self) -> None:
        now = time.monotonic()
        if self.aborting:
            print("srun: job abort in progress", file=sys.stderr)
            self.gave_up = True
        elif self.options.quit_on_interrupt or (self.last_interrupt and now - self.last_interrupt <= INTERRUPT_WINDOW):
            self.abort(send_ctrl_c=True)   # as srun_job.c's _handle_intr: -X too on a second one within a second
        elif self.options.disable_status:
            self.last_interrupt = now
            print(f"srun: sending Ctrl-C to StepId={self.options.step}", file=sys.stderr)
            self.send_all(step_io.encode(step_io.SIGNAL, 0, str(int(signal.SIGINT)).encode()))
        else:
            self.last_interrupt = now
            print("srun: interrupt (one more within 1 sec to abort)", file=sys.stderr)
            for line in status_lines(self.options.step, self.consumer.outcomes, self._started(), self.layout):
                print(line, file=sys.stderr)

    def _aborted(self) -> None:
        """The step is being ended from outside (scancel, time limit): said once, as Slurm's srun
        does when the controller tells it the step completed (step_launch.c)."""
        if not self.aborting:
            self.aborting = True
            self._say_waiting()

    def abort(self, send_ctrl_c: bool) -> None:
        """Slurm's second Ctrl-C: SIGINT to the tasks, then the step's terminate sequence."""
        self.aborting = True
        if send_ctrl_c:
            print(f"srun: sending Ctrl-C to StepId={self.options.step}", file=sys.stderr)
            self.send_all(step_io.encode(step_io.SIGNAL, 0, str(int(signal.SIGINT)).encode()))
        print("srun: forcing job termination", file=sys.stderr)
        self.send_all(step_io.encode(step_io.KILL, 0))
        self._say_waiting()

    def _say_waiting(self) -> None:
        print(f"srun: Job step aborted: Waiting up to {self.kill_wait() + 2} seconds for job step to finish.",
              file=sys.stderr)
