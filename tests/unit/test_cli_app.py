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
