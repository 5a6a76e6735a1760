"""getopt_long rules over the option tables (cli/getopt_long.py, cli/command_line.py) and the
--help/--usage/--version layouts; expected texts are real Slurm 22.05.8's."""
from __future__ import annotations

import pytest

from cli.command_line import (COMMAND_LINE, ENVIRONMENT, SCRIPT, collect, command_line, environment_options,
                              render_help)
from cli.getopt_long import LIST, NONE, OPTIONAL, REQUIRED, GetoptError, getopt
from cli.option_tables import salloc, sbatch, srun


def options(args: list[str], table=sbatch.OPTIONS) -> list[tuple[str, object]]:  # type: ignore[no-untyped-def]
    return getopt(args, table).options


def test_unique_prefixes_abbreviate_long_options() -> None:
    assert options(["--out=x.%j", "--err", "e", "--dep=afterok:1"]) == [
        ("output", "x.%j"), ("error", "e"), ("dependency", "afterok:1")]
    assert options(["--tasks-per-node=2"]) == [("ntasks_per_node", "2")]


def test_an_exact_name_wins_over_longer_ones() -> None:
    assert options(["--mem=1G", "--gpus=1", "--ntasks=2"]) == [("mem", "1G"), ("gpus", "1"), ("ntasks", "2")]


def test_ambiguous_prefix_lists_the_candidates() -> None:
    with pytest.raises(GetoptError) as info:
        options(["--cpu", "2"])
    assert str(info.value) == "option '--cpu' is ambiguous; possibilities: '--cpu-freq' '--cpus-per-gpu' '--cpus-per-task'"


def test_optional_arguments_only_glued() -> None:
    assert options(["--nice", "--wrap", "true"]) == [("nice", ""), ("wrap", "true")]
    assert options(["--nice=5", "--exclusive=user"]) == [("nice", "5"), ("exclusive", "user")]
    assert options(["-K1", "-K", "true"], srun.OPTIONS) == [("kill_on_bad_exit", "1"), ("kill_on_bad_exit", "")]


def test_bundled_short_options_and_glued_values() -> None:
    assert options(["-Hn4", "-N", "2", "-tfoo"]) == [("hold", True), ("ntasks", "4"), ("nodes", "2"), ("time", "foo")]


def test_the_first_operand_and_double_dash_end_the_options() -> None:
    parsed = getopt(["-N2", "job.sh", "-n", "4"], sbatch.OPTIONS)
    assert (parsed.options, parsed.operand_index) == ([("nodes", "2")], 1)
    assert getopt(["-l", "--", "-n"], srun.OPTIONS).operand_index == 2
    assert getopt(["-", "x"], sbatch.OPTIONS).operand_index == 0


@pytest.mark.parametrize("args, message", [
    (["--foo"], "unrecognized option '--foo'"),
    (["--foo=1"], "unrecognized option '--foo=1'"),
    (["--hold=3"], "option '--hold' doesn't allow an argument"),
    (["--ntasks"], "option '--ntasks' requires an argument"),
    (["-z"], "invalid option -- 'z'"),
    (["-n"], "option requires an argument -- 'n'"),
])
def test_glibc_error_wording(args: list[str], message: str) -> None:
    with pytest.raises(GetoptError) as info:
        options(args)
    assert str(info.value) == message


def test_refused_word_exits_255_with_slurms_lines(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        command_line(sbatch, ["--foo"])
    assert info.value.code == 255
    assert capsys.readouterr().err == "sbatch: unrecognized option '--foo'\nTry \"sbatch --help\" for more information\n"


def test_help_before_a_bad_word_still_helps(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        command_line(sbatch, ["--help", "--foo"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]\n")


@pytest.mark.parametrize("spec", [sbatch, srun, salloc])
def test_version_usage_and_help(spec, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    for flag, start in (("-V", "slurm 22.05.8\n"), ("--usage", f"Usage: {spec.PROG} "), ("--help", f"Usage: {spec.PROG} ")):
        with pytest.raises(SystemExit) as info:
            command_line(spec, [flag])
        assert info.value.code == 0 and capsys.readouterr().out.startswith(start)


def test_help_layout_is_slurms() -> None:
    text = render_help(sbatch)
    assert "\nHelp options:\n  -h, --help                  show this help message\n" in text
    assert "      --nice[=value]          decrease scheduling priority by value\n" in text
    assert text.count("--exclusive[=") == 2   # listed again in the consumable-resources section


@pytest.mark.parametrize("spec", [sbatch, srun, salloc])
def test_every_option_of_the_table_parses_in_every_spelling(spec) -> None:  # type: ignore[no-untyped-def]
    for name, short, kind, dest, _env, _help in spec.OPTIONS:
        value = True if kind == NONE else "" if kind == OPTIONAL else "v"
        if not name and not short:   # sbatch's umask: set by #PBS -W umask= alone, as in Slurm
            with pytest.raises(GetoptError):
                getopt([f"--{dest}=v"], spec.OPTIONS)
            continue
        assert getopt([f"--{name}"] + (["v"] if kind in (REQUIRED, LIST) else []), spec.OPTIONS).options == [(dest, value)]
        if short:
            assert getopt([f"-{short}"] + (["v"] if kind in (REQUIRED, LIST) else []), spec.OPTIONS).options[0][0] in (
                dest, next(r[3] for r in spec.OPTIONS if r[1] == short))


def test_precedence_script_then_environment_then_command_line() -> None:
    cli = command_line(sbatch, ["-J", "cli"])
    values = collect(sbatch, cli, {"SBATCH_JOB_NAME": "env", "SBATCH_PARTITION": "p", "SBATCH_EXCLUSIVE": ""},
                     [("job_name", "script"), ("partition", "q"), ("time", "5")])
    assert (values["job_name"], values["partition"], values["time"], values["exclusive"]) == ("cli", "p", "5", "")
    assert (values.source("job_name"), values.source("partition"), values.source("time")) == (
        COMMAND_LINE, ENVIRONMENT, SCRIPT)


def test_of_two_variables_for_one_option_the_later_listed_wins() -> None:
    assert environment_options(srun.OPTIONS, {"SLURM_NPROCS": "2", "SLURM_NTASKS": "3"}) == [
        ("ntasks", "2"), ("ntasks", "3")]


def test_every_option_a_command_took_before_the_tables_is_still_acted_on() -> None:
    # What sbatch, srun and salloc accepted through click before the getopt tables (regression guard).
    import cli.salloc
    import cli.sbatch
    import cli.srun
    from cli.option_support import EARLY, IGNORED, JOB_DESC

    shared = {"job_name", "partition", "account", "qos", "nodes", "ntasks", "ntasks_per_node", "cpus_per_task", "mem",
              "mem_per_cpu", "time", "chdir", "export", "nice", "gres", "gpus", "gpus_per_node", "gpus_per_task",
              "signal", "nodelist", "exclude", "dependency", "kill_on_invalid_dep", "begin", "constraint", "quiet"}
    before = {
        cli.sbatch: {"output", "error", "input", "open_mode", "wrap", "hold", "parsable", "requeue", "no_requeue",
                     "array", "exclusive"},
        cli.srun: {"jobid", "output", "error", "input", "label", "unbuffered", "pty", "kill_on_bad_exit", "wait",
                   "disable_status", "quit_on_interrupt", "exact", "overlap", "mpi"},
        cli.salloc: {"no_shell", "exclusive"},
    }
    for module, own in before.items():
        missing = (shared | own) - (JOB_DESC | EARLY | IGNORED | module.ACTED_ON)  # type: ignore[attr-defined]
        assert not missing, (module.PROG, missing)  # type: ignore[attr-defined]


def test_root_only_options_in_slurms_words(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from cli.app import CliError
    from cli.option_support import refuse_for_users

    monkeypatch.setattr(os, "getuid", lambda: 1000)
    with pytest.raises(CliError) as info:
        refuse_for_users("sbatch", {"uid": "root"})
    assert (info.value.lines, info.value.exit_code) == (("--uid only permitted by root user",), 255)
    with pytest.raises(CliError) as info:
        refuse_for_users("salloc", {"reboot": True})
    assert info.value.lines == ("rebooting of nodes is only allowed for admins",
                                "Job submit/allocate failed: Access/permission denied")
    refuse_for_users("srun", {"core_spec": "1"})
    assert capsys.readouterr().err == (
        "srun: error: Ignoring -S since it's not allowed by configuration (AllowSpecResourcesUsage = No)\n")


def test_each_shared_definition_serves_at_least_two_tables() -> None:
    from cli.option_tables import salloc, sbatch, shared, srun

    users: dict[str, int] = {}
    for table in (sbatch, srun, salloc):
        for row in table.OPTIONS:
            short, kind, dest, variables, help_block = shared.DEFINITIONS.get(row[0], ("?", -1, "", (), ""))
            if row == (row[0], short, kind, dest, tuple(table.PREFIX + v for v in variables), help_block):
                users[row[0]] = users.get(row[0], 0) + 1
    assert users == {name: users.get(name, 0) for name in shared.DEFINITIONS}
    assert min(users.values()) >= 2
