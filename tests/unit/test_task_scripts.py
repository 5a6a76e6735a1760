"""The task prolog's stdout protocol (pyslurm_d/task_scripts.py)."""
from __future__ import annotations

from pyslurm_d.task_scripts import apply_output, epilogs


def test_export_unset_print() -> None:
    env = {"OLD": "1", "KEEP": "2"}
    printed = apply_output("export A=b=c\nexport  SPACED =x\nunset OLD\nprint   hello world\nnoise\nexport BAD\n", env)
    assert env == {"KEEP": "2", "A": "b=c", "SPACED": "x"}
    assert printed == "hello world\n"


def test_user_epilog_first_with_slurms_limit() -> None:
    assert epilogs("/etc/te", {"SLURM_TASK_EPILOG": "/home/u/e"}) == [("/home/u/e", 5.0), ("/etc/te", 300.0)]
    assert epilogs("", {}) == []
