"""sattach: attach to a running srun step and print its tasks' output (Slurm 22.05's sattach(1)).

The controller gives the step's layout to whoever may see the job (as Slurm: anyone, unless
PrivateData=jobs); only for the step's owner or a privileged user does it have every stepd of
the step connect to sattach's listener (anyone else is told "Node <n>: no tasks running"), on
the host the request came from, opening with HELLO and sattach's fresh key
(pyslurm_common/step_io.py, the framing srun reads). From then on each stepd copies the step's
output there, the last 128 frames it printed first (pyslurm_d/output_copies.py). Labels (-l)
and the --output-filter/--error-filter are sattach's own, as in Slurm. --layout prints the
step's task layout and exits.

sattach's standard input goes to the tasks as srun's does (to one task with --input-filter),
once every node is connected; its end closes the tasks' input. --pty (no step here shares its
terminal with a second client) and --debugger-test (no MPIR process table) are refused in words
rather than taken and ignored. Ctrl-C detaches; the step runs on.
"""
from __future__ import annotations

import os
import selectors
import socket
import sys
import time
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, NoReturn

from pyslurm_common.typed_tuple import NamedTuple

from . import client
from .app import die, error_exit_code, run
from .command_line import handle_early, render_usage
from .getopt_long import GetoptError, getopt
from .option_tables import sattach as spec
from .step_layout import StepLayout

if TYPE_CHECKING:
    from pyslurm_common.step_io import FrameReader

    from .step_stream import StreamConsumer

PROG = "sattach"
# Slurm's ids of the steps srun does not make: the controller never gives one to an srun step.
NAMED_STEPS = {"batch": 0xFFFFFFFB, "extern": 0xFFFFFFFC, "interactive": 0xFFFFFFFA}
NO_STEP = 0xFFFFFFFF
CONNECT_WAIT = 15.0            # how long the step's nodes get to connect before they count as done


def sattach(argv: Sequence[str]) -> None:
    try:
        parsed = getopt(argv, spec.OPTIONS)
    except GetoptError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        print(f'Try "{PROG} --help" for more information', file=sys.stderr)
        raise SystemExit(error_exit_code()) from None
    handle_early(spec, parsed)
    given = [dest for dest, _value in parsed.options]
    values = dict(parsed.options)
    filters = {name: _task_filter(values.get(name), name.replace("_", "-"))
               for name in ("input_filter", "output_filter", "error_filter")}
    operands = list(argv[parsed.operand_index:])
    if len(operands) != 1:
        _usage_error("too many parameters")
    job_id, step_id = _step_operand(operands[0])
    quiet, verbose = "quiet" in given, given.count("verbose")
    if quiet and verbose:
        _die("don't specify both --verbose (-v) and --quiet (-Q)")
    if "debugger_test" in given:   # Slurm dumps the MPIR process table, which needs the tasks' pids
        _die("--debugger-test is not supported: no MPIR process table here")
    if "pty" in given:
        if any(name in given for name in filters):
            _die("don't specify both --pty and I/O filtering")
        _die("--pty is not supported: steps here have no terminal to share with sattach")
    if "layout" in given:
        print(_layout_text(_attach(job_id, step_id, layout_only=True)[0]))
        return
    output = filters["output_filter"]
    error = filters["error_filter"] if "error_filter" in given else output   # as Slurm: -e follows -o
    raise SystemExit(_stream(job_id, step_id, Filters(filters["input_filter"], output, error), "label" in given,
                             quiet, verbose > 0))


def _step_operand(text: str) -> tuple[int, int]:
    """`<jobid>.<stepid>` as Slurm reads it: no step is a usage error, a step that is neither a
    number nor a named step is fatal; a job id that is no number is job 0, which the controller
    does not know (nor the named steps: only srun steps can be attached to)."""
    job_text, dot, step_text = text.partition(".")
    if not dot:
        _usage_error("Failed to parse stepid from command line options")
    step_digits = step_text[:len(step_text) - len(step_text.lstrip("0123456789"))]
    if step_text in NAMED_STEPS:
        step_id = NAMED_STEPS[step_text]
    elif step_digits:
        step_id = min(int(step_digits), NO_STEP)
    else:
        _die(f"Bad step specified: {job_text}", severity="fatal")
    job_id = int(job_text) if job_text.isdigit() and int(job_text) < 1 << 32 else 0
    return job_id, step_id


def _die(*lines: str, severity: str = "error") -> NoReturn:
    """Slurm's sattach ends every refusal with SLURM_EXIT_ERROR (1 by default)."""
    die(*lines, exit_code=error_exit_code(), severity=severity)


def _usage_error(message: str) -> NoReturn:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    print(render_usage(spec))
    raise SystemExit(error_exit_code())


def _task_filter(text: object, name: str) -> int | None:
    """A task number, as Slurm reads it ("-" for every task)."""
    if text is None or text == "-":
        return None
    word = str(text).strip()
    if not word.isdigit():
        _die(f'Invalid numeric value "{text}" for {name}.')
    if int(word) > 2**31 - 1:
        _die(f"Numeric argument {int(word)} to big for {name}.")
    return int(word)


def _attach(job_id: int, step_id: int, layout_only: bool = False, io_port: int = 0,
            io_key: str = "") -> tuple[StepLayout, bool]:
    """The step's layout, and whether its nodes will connect (only for the step's owner or the
    privileged: to anyone else Slurm's nodes answer that no tasks run there)."""
    from pyslurm_common.errors import SlurmError
    from pyslurm_common.rpc import messages as pb

    request = pb.StepAttachRequest(job_id=job_id, step_id=step_id, layout_only=layout_only, io_port=io_port,
                                   io_key=io_key)
    try:
        reply = client.controller("AttachStep", request, pb.StepAttachReply)
    except SlurmError as exc:
        _die(f"Could not get job step info: {exc.strerror}")
    return StepLayout(tuple(reply.nodes), tuple(reply.tasks_per_node), reply.distribution), reply.attached


def _layout_text(layout: StepLayout) -> str:
    """Slurm's print_layout_info: a header, then one line per node with its task ids."""
    from pyslurm_common.hostlist import compress

    lines = ["Job step layout:",
             f"\t{layout.num_tasks} tasks, {len(layout.nodes)} nodes ({compress(layout.nodes, sort=False)})", ""]
    for index, name in enumerate(layout.nodes):
        ranks = "".join(f"{rank} " for rank in layout.ranks_of(index))
        lines.append(f"\tNode {index} ({name}), {layout.tasks_per_node[index]} task(s): {ranks}")
    return "\n".join(lines)


class Filters(NamedTuple):
    """The one task (None: every task) that gets sattach's standard input, whose output and error show."""
    input: int | None
    output: int | None
    error: int | None


def _stream(job_id: int, step_id: int, filters: Filters, labelled: bool, quiet: bool, verbose: bool) -> int:
    """Attach and print until every node of the step is done; the highest exit code of a task
    (a task killed by a signal counts as 0, as in Slurm)."""
    from pyslurm_common import step_io

    from .step_stream import OutputRoute, StreamConsumer

    listener = socket.create_server(("0.0.0.0", 0), backlog=64)
    io_key = os.urandom(16).hex()
    layout, attached = _attach(job_id, step_id, io_port=listener.getsockname()[1], io_key=io_key)
    if not attached:
        listener.close()
        _no_tasks_on(layout.nodes, quiet)
        return 0
    consumer = StreamConsumer(layout, OutputRoute(_writer(sys.stdout.buffer), only_rank=filters.output),
                              OutputRoute(_writer(sys.stderr.buffer), only_rank=filters.error), labelled=labelled)
    input_task = step_io.ALL_TASKS if filters.input is None else filters.input
    stdin_open = True
    selector = selectors.PollSelector()    # poll, unlike epoll, takes a regular file as standard input
    selector.register(listener, selectors.EVENT_READ, None)
    readers: dict[socket.socket, tuple[FrameReader, list[int]]] = {}
    connected: set[int] = set()
    deadline = time.monotonic() + CONNECT_WAIT
    try:
        while not consumer.finished:
            for key, _ in selector.select(timeout=1.0):
                if key.data is None:
                    sock, _ = listener.accept()
                    readers[sock] = (step_io.FrameReader(), [-1])
                    selector.register(sock, selectors.EVENT_READ, sock)
                elif key.data == "stdin":
                    stdin_open = _forward_stdin(readers, input_task)
                    if not stdin_open:
                        selector.unregister(key.fileobj)
                else:
                    _read(key.data, readers, selector, consumer, connected, io_key, len(layout.nodes))
            if stdin_open and (len(connected) == len(layout.nodes) or time.monotonic() > deadline):
                stdin_open = _watch_stdin(selector)
            if time.monotonic() > deadline:
                silent = [i for i in range(len(layout.nodes)) if i not in connected | consumer.done_nodes]
                _no_tasks_on([layout.nodes[i] for i in silent], quiet)
                for index in silent:
                    consumer.node_finished(index)
    except KeyboardInterrupt:
        return 1   # detached; the step runs on
    finally:
        selector.close()
        listener.close()
        for sock in readers:
            sock.close()
    worst = 0
    for rank, outcome in sorted(consumer.outcomes.items()):
        if outcome.signal:
            if verbose:
                print(f"{PROG}: task {rank} killed by signal {outcome.signal}", file=sys.stderr)
        elif outcome.code:
            print(f"{PROG}: error: task {rank} exited with exit code {outcome.code}", file=sys.stderr)
            worst = max(worst, outcome.code)
    return worst


def _watch_stdin(selector: selectors.BaseSelector) -> bool:
    """Read standard input from now on (once the nodes are connected, as srun); False when
    there is none to read (closed), and nothing more to do about it."""
    try:
        if not any(key.data == "stdin" for key in selector.get_map().values()):
            selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "stdin")
        return True
    except (ValueError, OSError):
        return False


def _forward_stdin(readers: dict[socket.socket, tuple[FrameReader, list[int]]], task: int) -> bool:
    """What standard input holds now, to the task(s) on every connected node (a node without
    the task drops it); its end as STDIN_EOF. False once the input ended."""
    from pyslurm_common import step_io

    try:
        data = os.read(sys.stdin.fileno(), 65536)
    except OSError:
        data = b""
    frame = step_io.encode(step_io.STDIN, task, data) if data else step_io.encode(step_io.STDIN_EOF, task)
    for sock, (_reader, node) in list(readers.items()):
        if node[0] >= 0:
            try:
                sock.sendall(frame)
            except OSError:
                pass   # that node is done: reading its socket tells
    return bool(data)


def _no_tasks_on(nodes: Sequence[str], quiet: bool) -> None:
    """Slurm's word for a node that did not take the attach (not the caller's step, or over there)."""
    for name in nodes if not quiet else ():
        print(f"{PROG}: Node {name}: no tasks running", file=sys.stderr)


def _read(sock: socket.socket, readers: dict[socket.socket, tuple[FrameReader, list[int]]],
          selector: selectors.BaseSelector, consumer: StreamConsumer,
          connected: set[int], io_key: str, num_nodes: int) -> None:
    """Frames from one stepd; its first must be HELLO with our key and a node index not yet seen."""
    from pyslurm_common import step_io

    reader, node = readers[sock]
    try:
        data = sock.recv(65536)
        frames = reader.feed(data) if data else []
    except (OSError, step_io.StreamError):
        data, frames = b"", []
    for frame in frames:
        if node[0] < 0:
            if (frame.kind != step_io.HELLO or frame.payload != io_key.encode()
                    or not 0 <= frame.task < num_nodes or frame.task in connected):
                data = b""
                break
            node[0] = frame.task
            connected.add(frame.task)
        else:
            consumer.feed(node[0], frame)
    if not data:
        selector.unregister(sock)
        del readers[sock]
        sock.close()
        if node[0] >= 0:
            consumer.node_finished(node[0])


def _writer(stream: IO[bytes]) -> Callable[[bytes], None]:
    def write(data: bytes) -> None:
        stream.write(data)
        stream.flush()
    return write


def main() -> None:
    run(PROG, sattach)


if __name__ == "__main__":
    main()
