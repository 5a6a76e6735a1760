"""srun's side of the task stream: turns the frames of every node into output and outcomes.

Pure apart from the sinks it is handed (callables taking bytes): feed it the frames of each
node (pyslurm_common.step_io) and it writes task output (optionally `-l` labelled, buffering
partial lines per task and stream), records TASK_EXIT outcomes and knows when every node is
done. The socket loop that reads the frames lives in cli/step_session.py.
"""
from __future__ import annotations

from collections.abc import Callable

from pyslurm_common import step_io
from pyslurm_common.typed_tuple import NamedTuple

from .step_layout import StepLayout
from .task_report import TaskOutcome

Sink = Callable[[bytes], None]


def label_width(num_tasks: int) -> int:
    """Digits of the highest rank: 4 tasks -> 1, 12 tasks -> 2."""
    return len(str(max(num_tasks - 1, 0)))


def label(rank: int, width: int) -> bytes:
    return f"{rank:>{width}}: ".encode()


class OutputRoute(NamedTuple):   # NamedTuple and a plain class: srun's step path imports no dataclasses
    """Where one stream (stdout or stderr) goes: a sink, or nowhere; optionally one rank only."""
    sink: Sink | None
    only_rank: int | None = None

    def accepts(self, rank: int) -> bool:
        return self.sink is not None and (self.only_rank is None or self.only_rank == rank)


class StreamConsumer:
    def __init__(self, layout: StepLayout, stdout: OutputRoute, stderr: OutputRoute, labelled: bool = False) -> None:
        self.layout = layout
        self.stdout = stdout
        self.stderr = stderr
        self.labelled = labelled
        self.outcomes: dict[int, TaskOutcome] = {}
        self.done_nodes: set[int] = set()
        self._partial: dict[tuple[int, int], bytes] = {}

    def feed(self, node_index: int, frame: step_io.Frame) -> None:
        if frame.kind in (step_io.STDOUT, step_io.STDERR):
            self._output(frame.kind, frame.task, frame.payload)
        elif frame.kind == step_io.TASK_EXIT:
            code, signal, oom = step_io.exit_info(frame)
            self._flush_task(frame.task)
            self.outcomes[frame.task] = TaskOutcome(code, signal, oom)
        elif frame.kind == step_io.NODE_DONE:
            self.node_finished(node_index)

    def node_finished(self, node_index: int) -> None:
        """NODE_DONE, or the node's stream ended: no more frames will come from it."""
        for rank in self.layout.ranks_of(node_index):
            self._flush_task(rank)
        self.done_nodes.add(node_index)

    @property
    def finished(self) -> bool:
        return len(self.done_nodes) >= len(self.layout.nodes)

    def _route(self, kind: int) -> OutputRoute:
        return self.stdout if kind == step_io.STDOUT else self.stderr

    def _output(self, kind: int, rank: int, data: bytes) -> None:
        route = self._route(kind)
        if not route.accepts(rank):
            return
        assert route.sink is not None
        if not self.labelled:
            route.sink(data)
            return
        key = (kind, rank)
        pending = self._partial.pop(key, b"") + data
        lines = pending.split(b"\n")
        tail = lines.pop()
        if lines:
            prefix = label(rank, label_width(self.layout.num_tasks))
            route.sink(b"".join(prefix + line + b"\n" for line in lines))
        if tail:
            self._partial[key] = tail

    def _flush_task(self, rank: int) -> None:
        """A task's unterminated last line, labelled, when it can get no more output."""
        for kind in (step_io.STDOUT, step_io.STDERR):
            tail = self._partial.pop((kind, rank), b"")
            sink = self._route(kind).sink
            if tail and sink is not None:
                sink(label(rank, label_width(self.layout.num_tasks)) + tail)
