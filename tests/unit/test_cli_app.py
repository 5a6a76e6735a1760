"""cli/app.py: how every CLI ends, whatever went wrong: Slurm's `<prog>: error:` line, never a
traceback or a Python exception name."""
from __future__ import annotations

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
