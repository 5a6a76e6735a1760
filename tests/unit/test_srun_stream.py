"""srun's view of a running step: rank->node layout, the stream consumer (labels, routing,
outcomes) and the exit report. Spec cli-sbatch-srun-salloc.md §3.2 (-l), §3.4 (reports)."""
from __future__ import annotations

import socket

import pytest

from cli.step_layout import StepLayout
from cli.step_session import SessionOptions, StepSession
from cli.step_stream import OutputRoute, StreamConsumer, label_width
from cli.task_report import TaskOutcome, exit_report, exit_status, status_lines
from pyslurm_common import step_io
from pyslurm_common.hostlist import compress_numbers

TWO_BY_TWO = StepLayout(("node1", "node2"), (2, 2))


def frame(kind: int, task: int, payload: bytes = b"") -> step_io.Frame:
    return step_io.FrameReader().feed(step_io.encode(kind, task, payload))[0]


def exited(rank: int, code: int = 0, signal: int = 0, oom: bool = False) -> step_io.Frame:
    return step_io.FrameReader().feed(step_io.task_exit(rank, code, signal, oom))[0]


def consumer(layout: StepLayout = TWO_BY_TWO, labelled: bool = False, only_out: int | None = None
             ) -> tuple[StreamConsumer, list[bytes], list[bytes]]:
    out: list[bytes] = []
    err: list[bytes] = []
    c = StreamConsumer(layout, OutputRoute(out.append, only_out), OutputRoute(err.append), labelled=labelled)
    return c, out, err


def test_layout_is_block_distribution() -> None:
    layout = StepLayout(("a", "b", "c"), (2, 1, 3))
    assert [list(layout.ranks_of(i)) for i in range(3)] == [[0, 1], [2], [3, 4, 5]]
    assert [layout.node_of(r) for r in range(6)] == [0, 0, 1, 2, 2, 2]
    assert layout.host_of(2) == "b" and layout.num_tasks == 6
    with pytest.raises(ValueError):
        layout.node_of(6)


@pytest.mark.parametrize("ranks, text", [([0], "0"), ([3, 1, 2, 5], "1-3,5"), ([0, 2, 4], "0,2,4"),
                                         ([1, 1, 2], "1-2"), ([], "")])
def test_rank_lists_compress(ranks: list[int], text: str) -> None:
    assert compress_numbers(ranks) == text


def test_unlabelled_output_passes_through_unchanged() -> None:
    c, out, err = consumer()
    c.feed(0, frame(step_io.STDOUT, 1, b"part"))
    c.feed(1, frame(step_io.STDERR, 2, b"oops\n"))
    assert (out, err) == ([b"part"], [b"oops\n"])


@pytest.mark.parametrize("tasks, width", [(1, 1), (4, 1), (10, 1), (11, 2), (12, 2), (101, 3)])
def test_label_width_is_digits_of_the_highest_rank(tasks: int, width: int) -> None:
    assert label_width(tasks) == width


def test_labels_buffer_partial_lines_per_task_and_stream() -> None:
    layout = StepLayout(("n1",), (12,))
    c, out, err = consumer(layout, labelled=True)
    c.feed(0, frame(step_io.STDOUT, 3, b"hel"))
    c.feed(0, frame(step_io.STDOUT, 11, b"x\ny\n"))
    c.feed(0, frame(step_io.STDERR, 3, b"e1\n"))
    c.feed(0, frame(step_io.STDOUT, 3, b"lo\nwor"))
    assert b"".join(out) == b"11: x\n11: y\n 3: hello\n"
    assert err == [b" 3: e1\n"]
    c.feed(0, exited(3))  # the task's unterminated last line comes out when it ends
    assert out[-1] == b" 3: wor"


def test_output_of_one_rank_only() -> None:
    c, out, _ = consumer(only_out=2)
    c.feed(0, frame(step_io.STDOUT, 0, b"zero\n"))
    c.feed(1, frame(step_io.STDOUT, 2, b"two\n"))
    assert out == [b"two\n"]


def test_outcomes_and_completion() -> None:
    c, _, _ = consumer()
    c.feed(0, exited(0))
    c.feed(0, exited(1, code=2))
    c.feed(0, frame(step_io.NODE_DONE, 0))
    assert not c.finished
    c.feed(1, exited(2, signal=9))
    c.node_finished(1)  # the stream of node 2 ended without NODE_DONE
    assert c.finished
    assert c.outcomes == {0: TaskOutcome(0), 1: TaskOutcome(2), 2: TaskOutcome(0, 9)}


def test_exit_report_groups_outcomes_with_compressed_hosts_and_ranks() -> None:
    outcomes = {0: TaskOutcome(0), 1: TaskOutcome(3), 2: TaskOutcome(3), 3: TaskOutcome(3)}
    assert exit_report(outcomes, TWO_BY_TWO) == ["srun: error: node[1-2]: tasks 1-3: Exited with exit code 3"]
    mixed = {0: TaskOutcome(1), 1: TaskOutcome(0, 9), 2: TaskOutcome(0, 15), 3: TaskOutcome(0, 9, oom=True)}
    assert exit_report(mixed, TWO_BY_TWO) == [
        "srun: error: node1: task 0: Exited with exit code 1",
        "srun: error: node1: task 1: Killed",
        "srun: error: node2: task 2: Terminated",
        "srun: error: node2: task 3: Out Of Memory",
    ]
    assert exit_report({0: TaskOutcome(0)}, TWO_BY_TWO) == []


def test_exit_status_is_the_highest_code_or_128_plus_signal() -> None:
    assert exit_status({}) == 0
    assert exit_status({0: TaskOutcome(0), 1: TaskOutcome(3), 2: TaskOutcome(1)}) == 3
    assert exit_status({0: TaskOutcome(3), 1: TaskOutcome(0, 15)}) == 143
    assert exit_status({0: TaskOutcome(0, oom=True)}) == 253


def test_ctrl_c_status_lines() -> None:
    outcomes = {0: TaskOutcome(0), 3: TaskOutcome(1)}
    assert status_lines("7.1", outcomes, started={0, 1, 3}, layout=TWO_BY_TWO) == [
        "srun: StepId=7.1 task 1: running",
        "srun: StepId=7.1 task 0: exited",
        "srun: StepId=7.1 task 3: exited abnormally",
        "srun: StepId=7.1 task 2: unknown",
    ]


def _session(capsys: pytest.CaptureFixture[str], **options: bool) -> StepSession:
    """A session with no node connected: the Ctrl-C protocol only prints and sends nothing."""
    c, _, _ = consumer()
    listener = socket.socket()
    session = StepSession(listener, TWO_BY_TWO, c, SessionOptions(step="5.0", io_key="k", **options),
                          step_gone=lambda: False, kill_wait=lambda: 30)
    listener.close()
    capsys.readouterr()
    return session


def test_ctrl_c_protocol(capsys: pytest.CaptureFixture[str]) -> None:
    session = _session(capsys)
    session._interrupt()
    assert capsys.readouterr().err == ("srun: interrupt (one more within 1 sec to abort)\n"
                                       "srun: StepId=5.0 tasks 0-3: unknown\n")
    session._interrupt()
    assert capsys.readouterr().err == ("srun: sending Ctrl-C to StepId=5.0\n"
                                       "srun: forcing job termination\n"
                                       "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n")
    assert session.aborting and not session.gave_up
    session._interrupt()
    assert capsys.readouterr().err == "srun: job abort in progress\n"
    assert session.gave_up


def test_quit_on_interrupt_and_disable_status(capsys: pytest.CaptureFixture[str]) -> None:
    quitting = _session(capsys, quit_on_interrupt=True)
    quitting._interrupt()
    # real srun 22.05.8 (--quit-on-interrupt, one SIGINT): these three lines, the tasks SIGKILLed
    assert capsys.readouterr().err == ("srun: sending Ctrl-C to StepId=5.0\n"
                                       "srun: forcing job termination\n"
                                       "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n")
    # -X forwards a Ctrl-C (srun_job.c's _handle_intr says so), and a second within a second aborts
    forwarding = _session(capsys, disable_status=True)
    forwarding._interrupt()
    assert capsys.readouterr().err == "srun: sending Ctrl-C to StepId=5.0\n" and not forwarding.aborting
    forwarding._interrupt()
    assert forwarding.aborting and capsys.readouterr().err.startswith("srun: sending Ctrl-C to StepId=5.0\n")


def test_session_accepts_only_stepds_with_the_key(capsys: pytest.CaptureFixture[str]) -> None:
    import threading

    layout = StepLayout(("node1",), (2,))
    out: list[bytes] = []
    c = StreamConsumer(layout, OutputRoute(out.append), OutputRoute(out.append), labelled=True)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    session = StepSession(listener, layout, c, SessionOptions(step="5.0", io_key="secret", input_task=-2),
                          step_gone=lambda: False, kill_wait=lambda: 30)
    impostor_got: list[bytes] = []

    def impostor_then_stepd() -> None:
        with socket.create_connection(("127.0.0.1", port)) as bad:
            bad.sendall(step_io.hello("wrong", 0) + step_io.encode(step_io.STDOUT, 0, b"forged\n"))
            try:
                impostor_got.append(bad.recv(10))
            except ConnectionResetError:
                impostor_got.append(b"")  # hung up before reading all it was sent: same thing
        with socket.create_connection(("127.0.0.1", port)) as good:
            good.sendall(step_io.hello("secret", 0) + step_io.encode(step_io.STDOUT, 1, b"real\n")
                         + step_io.task_exit(0, 0, 0, False) + step_io.task_exit(1, 3, 0, False))
            good.sendall(step_io.encode(step_io.NODE_DONE, 0))

    stepd = threading.Thread(target=impostor_then_stepd)
    stepd.start()
    session.run()
    stepd.join()
    assert out == [b"1: real\n"]
    assert c.outcomes == {0: TaskOutcome(0), 1: TaskOutcome(3)}
    assert impostor_got == [b""], "srun hangs up on a stream without the key"
