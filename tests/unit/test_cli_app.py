"""cli/app.py: how every CLI ends, whatever went wrong: Slurm's `<prog>: error:` line, never a
traceback or a Python exception name."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Sequence

import pytest

from cli import app


def _ends(prog: str, command: object, argv: Sequence[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exited:
        app.run(prog, command, argv)
    return int(exited.value.code or 0), capsys.readouterr().err


def test_words_that_are_not_utf8_are_refused_before_the_command_runs(capsys: pytest.CaptureFixture[str]) -> None:
    ran: list[Sequence[str]] = []
    code, err = _ends("sbatch", ran.append, ["-J", b"\xff".decode(errors="surrogateescape")], capsys)
    assert (code, err, ran) == (1, "sbatch: error: Invalid argument (not UTF-8 text): \\xff\n", [])


def test_an_unforeseen_failure_names_no_python_exception(capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYSLURM_DEBUG", raising=False)

    def broken(argv: Sequence[str]) -> None:
        raise ValueError("Value out of range: 99999999999999999999")

    code, err = _ends("squeue", broken, [], capsys)
    assert (code, err) == (1, "squeue: error: Unexpected error\n")


COMMANDS = ("squeue", "sinfo", "scontrol", "scancel", "sacct", "sacctmgr", "sstat", "sprio", "sshare",
                  "sreport", "sdiag")


def _command(prog: str) -> object:
    import importlib

    return getattr(importlib.import_module(f"cli.{prog}"), prog)


@pytest.mark.parametrize("prog", COMMANDS)
@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_every_command_answers_version(prog: str, flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        app.run(prog, _command(prog), [flag])
    assert (exited.value.code, capsys.readouterr().out) == (0, "slurm 22.05.8\n")


@pytest.mark.parametrize("prog", ["scontrol", "sacctmgr"])
def test_the_version_command_word(prog: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        app.run(prog, _command(prog), ["version"])
    assert (exited.value.code, capsys.readouterr().out) == (0, "slurm 22.05.8\n")


# Real Slurm 22.05.8's lines (stderr, exit 1); sacct and sstat print no "Try" line.
@pytest.mark.parametrize(("prog", "argv", "expected"), [
    ("sacct", ["-1"], "sacct: invalid option -- '1'\n"),
    ("sacct", ["--foo=1", "-j", "1"], "sacct: unrecognized option '--foo=1'\n"),
    ("sacct", ["-j"], "sacct: option requires an argument -- 'j'\n"),
    ("sstat", ["--jobs"], "sstat: option '--jobs' requires an argument\n"),
    ("sstat", ["--noheader=3"], "sstat: option '--noheader' doesn't allow an argument\n"),
    ("squeue", ["--foo=2"], "squeue: unrecognized option '--foo=2'\nTry \"squeue --help\" for more information\n"),
    ("scancel", ["-1"], "scancel: invalid option -- '1'\nTry \"scancel --help\" for more information\n"),
    ("sdiag", ["--foo"], "sdiag: unrecognized option '--foo'\nTry \"sdiag --help\" for more information\n"),
    ("sbcast", ["--bogus"], "sbcast: unrecognized option '--bogus'\nTry \"sbcast --help\" for more information\n"),
])
def test_refused_options_in_getopts_words(prog: str, argv: list[str], expected: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert _ends(prog, _command(prog), argv, capsys) == (1, expected)


# run_as_process ends the process with os._exit, skipping the interpreter's teardown: what the
# command wrote must still arrive (stdout to a pipe is block-buffered), with run()'s exit code.
_PROCESS = """
import sys
from cli.app import die, run_as_process

def command(argv):
    sys.stdout.write("x" * 70000 + "partial line without newline")
    sys.stderr.write("a warning without newline")
    if argv == ["fail"]:
        die("Invalid job id specified")
    if argv == ["exit"]:
        raise SystemExit(300)

run_as_process("scancel", command)
"""


@pytest.mark.parametrize(("argv", "code", "err_tail"), [
    ([], 0, ""),
    (["fail"], 1, "scancel: error: Invalid job id specified\n"),
    (["exit"], 300 % 256, ""),
])
def test_a_process_ended_without_teardown_loses_no_output(argv: list[str], code: int, err_tail: str) -> None:
    root = str(Path(__file__).resolve().parents[2])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    done = subprocess.run([sys.executable, "-c", _PROCESS, *argv], cwd=root, capture_output=True, text=True,
                          env=dict(env, PYTHONPATH=root), timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (
        code, "x" * 70000 + "partial line without newline", "a warning without newline" + err_tail)

