"""sattach's command line (as real Slurm 22.05.8's, captured in tests/data/slurm_help and below),
its --layout text, and the stepd's copies of a step's output to attached sattach."""
from __future__ import annotations

import selectors
import socket
from pathlib import Path

import pytest

from cli import app
from cli.sattach import _layout_text, sattach
from cli.step_layout import StepLayout
from pyslurm_common import step_io
from pyslurm_d.output_copies import OutputCopies

HELP = Path(__file__).parent.parent / "data" / "slurm_help"
USAGE = "Usage: sattach [options] <jobid.stepid>\n"


def _ends(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    with pytest.raises(SystemExit) as exited:
        app.run("sattach", sattach, argv)
    out = capsys.readouterr()
    return exited.value.code, out.out, out.err

from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.steps import step_attachment, step_creation

@pytest.mark.parametrize("flag", ["--help", "-h", "--usage", "-u"])
def test_help_and_usage_are_slurms_byte_for_byte(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    name = "help" if flag in ("--help", "-h") else "usage"
    assert _ends([flag], capsys) == (0, (HELP / f"sattach.{name}").read_text(), "")


# Real sattach's answers (SLURM_CONF pointing at a dead controller port: all parse before contacting it).
@pytest.mark.parametrize(("argv", "out", "err"), [
    (["5"], USAGE, "sattach: error: Failed to parse stepid from command line options\n"),
    (["abc"], USAGE, "sattach: error: Failed to parse stepid from command line options\n"),
    (["1.0", "2"], USAGE, "sattach: error: too many parameters\n"),
    ([], USAGE, "sattach: error: too many parameters\n"),
    (["1.x"], "", "sattach: fatal: Bad step specified: 1\n"),
    (["1."], "", "sattach: fatal: Bad step specified: 1\n"),
    (["--bogus", "1.0"], "", "sattach: unrecognized option '--bogus'\nTry \"sattach --help\" for more information\n"),
    (["--output-filter=x", "1.0"], "", 'sattach: error: Invalid numeric value "x" for output-filter.\n'),
    (["-Q", "-v", "1.0"], "", "sattach: error: don't specify both --verbose (-v) and --quiet (-Q)\n"),
    (["--pty", "--output-filter=1", "1.0"], "", "sattach: error: don't specify both --pty and I/O filtering\n"),
])
def test_refusals_in_slurms_words(argv: list[str], out: str, err: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _ends(argv, capsys) == (1, out, err)


@pytest.mark.parametrize("option", ["--pty", "--debugger-test"])
def test_what_sattach_cannot_do_is_refused_not_ignored(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _ends([option, "1.0"], capsys)
    assert (code, out) == (1, "") and err.startswith(f"sattach: error: {option} is not supported: ")


def test_layout_text_is_slurms() -> None:
    layout = StepLayout(("node1", "node2"), (2, 1))
    assert _layout_text(layout) == ("Job step layout:\n\t3 tasks, 2 nodes (node[1-2])\n\n"
                                    "\tNode 0 (node1), 2 task(s): 0 1 \n\tNode 1 (node2), 1 task(s): 2 ")


def test_output_copies_send_output_exits_and_the_end_but_nothing_else() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    copies = OutputCopies(selectors.DefaultSelector())
    copies.attach("127.0.0.1", listener.getsockname()[1], "k3y", 1)
    conn, _ = listener.accept()
    copies.copy(step_io.encode(step_io.STDOUT, 2, b"hello\n"))
    copies.copy(step_io.encode(step_io.PMI_FENCE, 1, b"secret"))
    copies.copy(step_io.task_exit(2, 0, 0, False))
    copies.copy(step_io.encode(step_io.NODE_DONE, 1))
    assert not copies.still_sending()
    copies.close()
    received = b""
    while chunk := conn.recv(65536):
        received += chunk
    frames = step_io.FrameReader().feed(received)
    assert [(f.kind, f.task) for f in frames] == [(step_io.HELLO, 1), (step_io.STDOUT, 2),
                                                  (step_io.TASK_EXIT, 2), (step_io.NODE_DONE, 1)]
    assert frames[0].payload == b"k3y" and frames[1].payload == b"hello\n"
    conn.close()
    listener.close()


def test_output_copies_are_bounded_in_number() -> None:
    listener = socket.create_server(("127.0.0.1", 0), backlog=16)
    copies = OutputCopies(selectors.DefaultSelector())
    for _ in range(8):
        copies.attach("127.0.0.1", listener.getsockname()[1], "k", 0)
    with pytest.raises(OSError):
        copies.attach("127.0.0.1", listener.getsockname()[1], "k", 0)
    copies.close()
    listener.close()


def test_a_new_sattach_first_gets_the_recent_output_and_no_more_than_slurms_cache() -> None:
    copies = OutputCopies(selectors.DefaultSelector())
    for i in range(200):
        copies.copy(step_io.encode(step_io.STDOUT, 0, f"{i}\n".encode()))
    copies.copy(step_io.task_exit(0, 0, 0, False))       # not output: not replayed
    listener = socket.create_server(("127.0.0.1", 0))
    copies.attach("127.0.0.1", listener.getsockname()[1], "k", 0)
    conn, _ = listener.accept()
    copies.copy(step_io.encode(step_io.NODE_DONE, 0))
    assert not copies.still_sending()
    copies.close()
    received = b""
    while chunk := conn.recv(65536):
        received += chunk
    frames = step_io.FrameReader().feed(received)
    assert [f.payload for f in frames[1:-1]] == [f"{i}\n".encode() for i in range(72, 200)]
    assert (frames[0].kind, frames[-1].kind) == (step_io.HELLO, step_io.NODE_DONE)
    conn.close()
    listener.close()


def test_who_sees_and_who_may_attach_to_a_step_as_slurm(tmp_path: Path) -> None:
    from pyslurm_common.errors import SlurmError, Strerror
    from pyslurm_ctld.core.step_layout import StepShape
    from tests.unit.test_step_usage import ALICE, BOB, SLURM_UID, _jobs

    mgr, running, pending = _jobs(tmp_path)
    apply(mgr, step_creation(mgr, running, ALICE, StepShape(min_nodes=2), "x", ("x",), 250))
    step, allowed = step_attachment(mgr, running, 0, ALICE, False)
    assert (step.nodes, allowed) == (("n1", "n2"), True)
    assert step_attachment(mgr, running, 0, SLURM_UID, True)[1] is True
    assert step_attachment(mgr, running, 0, BOB, False)[1] is False     # sees it, may not attach
    for args, error in [((running, 0, BOB, True), Strerror.ACCESS_DENIED),   # PrivateData=jobs
                        ((running, 1, ALICE, False), Strerror.INVALID_JOB_ID),
                        ((999, 0, ALICE, False), Strerror.INVALID_JOB_ID),
                        ((pending, 0, ALICE, False), Strerror.JOB_PENDING)]:
        with pytest.raises(SlurmError) as info:
            step_attachment(mgr, *args)
        assert info.value.strerror == error
