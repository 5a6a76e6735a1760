"""Batch script handling (cli/sbatch_script.py): validation, --wrap, #SBATCH directives.

Spec: cli-sbatch-srun-salloc.md §2.2 (validation messages, exact), §2.3 (directive parsing).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cli.app import run
from cli.sbatch import sbatch
from cli.sbatch_script import ScriptError, directive_words, legacy_directives, validate, wrap


def lines_of(text: str) -> tuple[str, ...]:
    with pytest.raises(ScriptError) as info:
        validate(text)
    assert info.value.exit_code == 1
    return info.value.lines


# ---- validation ------------------------------------------------------------------------------


def test_empty_script() -> None:
    assert lines_of("") == ("Batch script is empty!",)


@pytest.mark.parametrize("text", [" ", "\n\n", " \t\n "])
def test_whitespace_only_script(text: str) -> None:
    assert lines_of(text) == ("Batch script contains only whitespace!",)


@pytest.mark.parametrize("text", ["echo hi\n", " #!/bin/sh\n", "#/bin/sh\n", "\n#!/bin/sh\n"])
def test_first_line_must_be_a_shebang(text: str) -> None:
    assert lines_of(text) == (
        "This does not look like a batch script.  The first",
        "line must start with #! followed by the path to an interpreter.",
        "For instance: #!/bin/sh",
    )


def test_nul_character() -> None:
    assert lines_of("#!/bin/sh\necho a\0b\n") == (
        "The Slurm controller does not allow scripts that",
        "contain a NULL character '\\0'.",
    )


def test_dos_line_breaks() -> None:
    assert lines_of("#!/bin/sh\r\necho hi\r\n") == (
        "Batch script contains DOS line breaks (\\r\\n)",
        "instead of expected UNIX line breaks (\\n).",
    )


@pytest.mark.parametrize("text", ["#!/bin/sh\n", "#!/bin/bash\necho hi\n", "#!/usr/bin/env python3\nprint(1)"])
def test_valid_scripts_pass(text: str) -> None:
    validate(text)


def test_validation_errors_reach_the_user_as_sbatch_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "job.sh"
    script.write_text("echo no shebang\n")
    with pytest.raises(SystemExit) as info:
        run("sbatch", sbatch, [str(script)])
    assert info.value.code == 1
    assert capsys.readouterr().err == (
        "sbatch: error: This does not look like a batch script.  The first\n"
        "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
        "sbatch: error: For instance: #!/bin/sh\n")


def test_unreadable_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        run("sbatch", sbatch, [str(tmp_path / "missing.sh")])
    assert info.value.code == 1
    assert capsys.readouterr().err == f"sbatch: error: Unable to open file {tmp_path / 'missing.sh'}\n"


# ---- --wrap ------------------------------------------------------------------------------------


def test_wrap_builds_the_script_exactly() -> None:
    assert wrap("hostname; sleep 1") == "#!/bin/sh\n# This script was created by sbatch --wrap.\n\nhostname; sleep 1\n"
    validate(wrap("true"))


def test_wrap_with_a_script_argument_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        run("sbatch", sbatch, ["--wrap", "true", str(tmp_path / "job.sh")])
    assert info.value.code == 1
    assert capsys.readouterr().err == "sbatch: error: Script arguments not permitted with --wrap option\n"


# ---- #SBATCH directives --------------------------------------------------------------------------


def directives(*lines: str) -> list[str]:
    components = directive_words("\n".join(lines) + "\n", "job.sh")
    assert len(components) == 1
    return components[0]


def test_directive_words_in_order() -> None:
    assert directives("#!/bin/sh", "#SBATCH -J train", "#SBATCH --mem=4G", "srun hostname") == [
        "-J", "train", "--mem=4G"]


def test_scanning_stops_at_the_first_command() -> None:
    assert directives("#!/bin/sh", "#SBATCH -N 1", "echo start", "#SBATCH -N 2") == ["-N", "1"]
    assert directives("#!/bin/sh", "  x=1", "#SBATCH -N 2") == []


def test_blank_and_comment_lines_do_not_stop_scanning() -> None:
    assert directives("#!/bin/sh", "", "# a comment", "   ", "   # indented comment", "\t", "#SBATCH -n 4") == [
        "-n", "4"]


def test_only_column_zero_lines_are_directives() -> None:
    assert directives("#!/bin/sh", " #SBATCH -N 2", "\t#SBATCH -N 3", "#SBATCH -N 4") == ["-N", "4"]


def test_the_magic_word_is_matched_as_a_prefix_as_slurm_does() -> None:
    # Slurm compares the first 7 characters only: `#SBATCH-N 4` is `-N 4`, `#SBATCHX` gives the word X
    # (then refused as an invalid directive); other spellings are comments.
    assert directives("#!/bin/sh", "#sbatch -N 3", "#SBATCH-N 4", "# SBATCH -N 5", "#SBATCH\t-N 6") == [
        "-N", "4", "-N", "6"]
    assert directives("#!/bin/sh", "#SBATCHX -N 2") == ["X", "-N", "2"]


def test_multiple_options_per_line() -> None:
    assert directives("#!/bin/sh", "#SBATCH -N 2 -n 4   --time=10") == ["-N", "2", "-n", "4", "--time=10"]


def test_quotes_group_and_are_removed() -> None:
    assert directives("#!/bin/sh", '#SBATCH -J "my job" --comment=\'a b\'', '#SBATCH -o "out dir"/%j.log') == [
        "-J", "my job", "--comment=a b", "-o", "out dir/%j.log"]


def test_backslash_escapes_the_next_character() -> None:
    assert directives("#!/bin/sh", '#SBATCH -J a\\"b\\\\c') == ["-J", 'a"b\\c']
    # ... but never a blank: Slurm ends the word there (`-J a\ b` is `-J a` and `b`)
    assert directives("#!/bin/sh", "#SBATCH -J a\\ b") == ["-J", "a", "b"]


def test_a_value_may_sit_on_the_next_line_and_a_trailing_backslash_vanishes() -> None:
    assert directives("#!/bin/sh", "#SBATCH -N", "#SBATCH 2 --time=5 \\", "#SBATCH -n 1") == [
        "-N", "2", "--time=5", "-n", "1"]


def test_an_empty_word_ends_its_line() -> None:
    assert directives("#!/bin/sh", '#SBATCH -J "" -N 2', "#SBATCH foo") == ["-J", "foo"]


def test_unquoted_hash_starts_a_comment() -> None:
    assert directives("#!/bin/sh", "#SBATCH -N 2 # two nodes", '#SBATCH -J "a#b"', "#SBATCH # nothing",
                      "#SBATCH --comment=x#y -n 3") == ["-N", "2", "-J", "a#b", "--comment=x"]


def test_a_directive_without_arguments_is_skipped() -> None:
    assert directives("#!/bin/sh", "#SBATCH", "#SBATCH   ", "#SBATCH -N 1") == ["-N", "1"]


def test_hetjob_separators_split_components() -> None:
    text = "#!/bin/sh\n#SBATCH -N 2 hetjob\n#SBATCH hetjob -N 3\n#SBATCH packjob\n#SBATCH -n 1\n"
    assert directive_words(text, "job.sh") == [["-N", "2"], ["-N", "3"], ["-n", "1"]]


@pytest.mark.parametrize(("line", "quote"), [('#SBATCH -J "abc', '"'), ("#SBATCH -J 'abc", "'")])
def test_unmatched_quote(line: str, quote: str) -> None:
    with pytest.raises(ScriptError) as info:
        directives("#!/bin/sh", "", line)
    assert info.value.lines == (f"job.sh: line 3: Unmatched `{quote}` in [ {quote}abc]",)


def test_unmatched_quote_is_fatal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "job.sh"
    script.write_text('#!/bin/sh\n#SBATCH -J "abc\ntrue\n')
    with pytest.raises(SystemExit):
        run("sbatch", sbatch, [str(script)])
    assert capsys.readouterr().err == f"sbatch: fatal: {script}: line 2: Unmatched `\"` in [ \"abc]\n"


def test_legacy_slurm_magic_word_is_accepted() -> None:
    assert directives("#!/bin/sh", "#SLURM -N 2") == ["-N", "2"]


def test_invalid_directive_exits_255(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/sh\n#SBATCH --no-such-option\ntrue\n")
    with pytest.raises(SystemExit) as info:
        run("sbatch", sbatch, [str(script)])
    assert info.value.code == 255
    assert capsys.readouterr().err == ("sbatch: unrecognized option '--no-such-option'\n"
                                       'Try "sbatch --help" for more information\n')
    script.write_text("#!/bin/sh\n#SBATCH -N 2 oops\ntrue\n")
    with pytest.raises(SystemExit) as info:
        run("sbatch", sbatch, [str(script)])
    assert info.value.code == 255
    assert capsys.readouterr().err == "sbatch: error: Invalid directive found in batch script: oops\n"


def test_legacy_magic_word_is_flagged_for_the_warning() -> None:
    assert legacy_directives("#!/bin/sh\n#SLURM -N 2\n")
    assert not legacy_directives("#!/bin/sh\n#SBATCH -N 2\n")
    assert not legacy_directives("#!/bin/sh\necho hi\n#SLURM -N 2\n")  # after the first command
