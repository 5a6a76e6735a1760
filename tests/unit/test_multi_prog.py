"""srun --multi-prog's configuration file: srun's check (Slurm's wording for each fault) and the
command line each task gets from it (pyslurm_common/multi_prog.py)."""
from __future__ import annotations

import pytest

from pyslurm_common.multi_prog import MultiProgError, check_config, task_argv

SILLY = """###################################################################
# srun multiple program configuration file
###################################################################
4-6       hostname
1,7       echo  task:%t
0,2-3     echo  offset:%o
"""


def test_the_man_pages_example() -> None:
    assert check_config("silly.conf", SILLY, 8, True) == (8, 5)
    assert [task_argv(SILLY, rank, []) for rank in range(8)] == [
        ["echo", "offset:0"], ["echo", "task:1"], ["echo", "offset:1"], ["echo", "offset:2"],
        ["hostname"], ["hostname"], ["hostname"], ["echo", "task:7"]]


def test_ranks_set_the_task_count_unless_it_was_given() -> None:
    assert check_config("c", "0-3 echo\n", 1, False)[0] == 4
    assert check_config("c", "0 a\n1-2 b\n* c\n", 1, False)[0] == 3
    with pytest.raises(MultiProgError) as refused:
        check_config("c", "0-3 echo\n", 2, True)
    assert refused.value.lines == ("Invalid task id, 3 >= ntasks", "Line 1 of configuration file c invalid")


@pytest.mark.parametrize(("text", "lines"), [
    ("0 a\n2 b\n", ("Configuration file c invalid, no record for task id 1",)),
    ("* a\n0 b\n", ("Task range specification with asterisk must be last", "Line 2 of configuration file c invalid")),
    ("0 a\n0 b\n", ("Duplicate record for task 0", "Line 2 of configuration file c invalid")),
    ("3-1 a\n", ("Invalid task range, 3-1", "Line 1 of configuration file c invalid")),
    ("x a\n", ("Invalid task range specification (x)", "Line 1 of configuration file c invalid")),
    ("0-2x a\n", ("Invalid task range specification", "Line 1 of configuration file c invalid")),
    ("0\n", ("Line 1 of configuration file c invalid",)),
    ("99999999999 a\n", ("Invalid task range specification (99999999999)", "Line 1 of configuration file c invalid")),
    ("0 " + "x" * 16400 + "\n", ("Line 1 of configuration file c too long",)),
])
def test_faults_in_slurms_words(text: str, lines: tuple[str, ...]) -> None:
    with pytest.raises(MultiProgError) as refused:
        check_config("c", text, 1, False)
    assert refused.value.lines == lines


def test_comments_blank_lines_and_continued_lines() -> None:
    text = "# first\n\n   # indented\n0 echo a \\\n  b\n1 echo 'quoted words' esc\\ aped %t%o\n"
    assert check_config("c", text, 2, True) == (2, 2)
    assert task_argv(text, 0, []) == ["echo", "a", "b"]
    assert task_argv(text, 1, ["extra"]) == ["echo", "quoted words", "esc aped", "10", "extra"]


def test_a_rank_without_a_line_is_the_stepds_error() -> None:
    with pytest.raises(MultiProgError, match="Program for task rank 5 not specified."):
        task_argv("0-1 echo\n", 5, [])
    with pytest.raises(MultiProgError, match="Invalid MPMD configuration line 1"):
        task_argv("0\n", 0, [])


def test_arguments_are_bounded() -> None:
    assert len(task_argv("* echo " + "a " * 500 + "\n", 0, ["b"] * 50)) == 127
