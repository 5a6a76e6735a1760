"""An option given more than once, in every command: a LIST option (cli/getopt_long.py) adds each
occurrence to the ones before, any other keeps the last, as each of Slurm 22.05's commands does.
Which options are lists is read from Slurm's option parsers (sacct's slurm_addto_char_list and
xstrfmtcat, sshare's and sstat's the same, the `|=` of --mail-type and --accel-bind); the
answers below were checked on the oracle (and the live ones are replayed against a cluster by
tests/integration/test_repeated_options.py)."""
from __future__ import annotations

import importlib
import pkgutil

import pytest

import cli.option_tables
from cli import defined_options, job_options
from cli.app import CliError
from cli.command_line import collect, command_line, occurrences
from cli.getopt_long import LIST
from cli.option_tables import salloc, sbatch, srun
from cli.query_command import all_or_listed, parse
from cli.srun_step_options import accel_bind

# Every list option of every command, by destination; every other option's last occurrence wins.
LISTS = {
    "sacct": {"accounts", "associations", "clusters", "constraints", "format", "groups", "jobs", "name",
              "partition", "reason", "state", "users", "wckeys"},
    "sshare": {"accounts", "format", "users"},
    "sstat": {"format", "jobs"},
    "sbatch": {"mail_type"}, "salloc": {"mail_type"}, "srun": {"accel_bind", "mail_type"},
}
TABLES = sorted(m.name for m in pkgutil.iter_modules(cli.option_tables.__path__) if m.name != "shared")


@pytest.mark.parametrize("name", TABLES)
def test_the_list_options_are_slurms(name: str) -> None:
    table = importlib.import_module(f"cli.option_tables.{name}").OPTIONS
    assert {row[3] for row in table if row[2] == LIST} == LISTS.get(name, set())


@pytest.mark.parametrize(("prog", "argv", "dest", "value"), [
    # appended (slurm_addto_*_list, xstrfmtcat)
    ("sacct", ["-j", "1", "-j", "2.batch", "--jobs=3"], "jobs", "1,2.batch,3"),
    ("sacct", ["-u", "a", "--user=b,c"], "users", "a,b,c"),
    ("sacct", ["-s", "F", "-s", "CD"], "state", "F,CD"),
    ("sacct", ["--name=x", "--name=y"], "name", "x,y"),
    ("sacct", ["-A", "a", "-A", "b"], "accounts", "a,b"),
    ("sacct", ["-r", "p", "-r", "q"], "partition", "p,q"),
    ("sacct", ["-o", "jobid", "--format=state"], "format", "jobid,state"),
    ("sacct", ["-g", "1", "-g", "2"], "groups", "1,2"),
    ("sacct", ["-M", "a", "-M", "b"], "clusters", "a,b"),
    ("sshare", ["-u", "a", "-u", "b"], "users", "a,b"),
    ("sshare", ["-A", "a", "-A", "b"], "accounts", "a,b"),
    ("sstat", ["-j", "1", "-j", "2"], "jobs", "1,2"),
    # the last one (xfree, then xstrdup)
    ("sacct", ["-q", "a", "-q", "b"], "qos", "b"),
    ("sacct", ["-S", "now-1hour", "-S", "2026-01-01"], "starttime", "2026-01-01"),
    ("squeue", ["-j1", "-j2"], "jobs", "2"),
    ("squeue", ["-u", "a", "-u", "b"], "users", "b"),
    ("squeue", ["-t", "R", "-t", "PD"], "states", "PD"),
    ("squeue", ["-n", "a", "-n", "b"], "name", "b"),
    ("squeue", ["-p", "a", "-p", "b"], "partitions", "b"),
    ("squeue", ["-A", "a", "-A", "b"], "accounts", "b"),
    ("squeue", ["-w", "n1", "-w", "n2"], "nodelist", "n2"),
    ("scancel", ["-u", "a", "-u", "b"], "user", "b"),
    ("scancel", ["-n", "a", "-n", "b"], "name", "b"),
    ("scancel", ["-p", "a", "-p", "b"], "partition", "b"),
    ("scancel", ["-t", "PD", "-t", "R"], "state", "R"),
    ("sinfo", ["-p", "a", "-p", "b"], "partition", "b"),
    ("sinfo", ["-t", "idle", "-t", "mix"], "states", "mix"),
    ("sinfo", ["-n", "n1", "-n", "n2"], "nodes", "n2"),
    ("sprio", ["-u", "a", "-u", "b"], "users", "b"),
    ("sprio", ["-p", "a", "-p", "b"], "partition", "b"),
    ("sprio", ["-j1", "-j2"], "jobs", "2"),
    ("sshare", ["-M", "a", "-M", "b"], "clusters", "b"),
    ("sreport", ["-t", "hours", "-t", "minutes"], "time", "minutes"),
    ("sreport", ["-T", "cpu", "-T", "mem"], "tres", "mem"),
    ("scontrol", ["-M", "a", "-M", "b"], "clusters", "b"),
])
def test_a_repeated_option_adds_or_replaces_as_in_slurm(prog: str, argv: list[str], dest: str, value: str) -> None:
    spec = importlib.import_module(f"cli.option_tables.{prog}")
    values, _operands = parse(spec, argv, environ={})
    assert values[dest] == value


@pytest.mark.parametrize(("argv", "every", "names"), [   # real sacct, as root, tests/data/repeated_options
    (["-u", "a", "-u", "b"], False, ["a", "b"]),
    (["-u", "b", "-a"], True, []),
    (["-a", "-u", "b"], False, ["b"]),
    (["-u", "b", "-u", "-1"], True, []),
    (["-u", "-1", "-u", "b"], False, ["b"]),
    ([], False, []),
])
def test_all_users_is_the_last_word_of_a_and_u(argv: list[str], every: bool, names: list[str]) -> None:
    values, _ = parse(importlib.import_module("cli.option_tables.sacct"), argv, environ={})
    assert all_or_listed(values, "users", ("-1",), on=("allusers",)) == (every, names)


def _sbatch(argv: list[str], script: list[tuple[str, str]] = ()):  # type: ignore[no-untyped-def,assignment]
    return collect(sbatch, command_line(sbatch, argv), {}, script)


@pytest.mark.parametrize(("argv", "shown"), [   # real sbatch -v's "mail-type" line
    (["--mail-type=BEGIN", "--mail-type=END,FAIL"], "BEGIN,END,FAIL"),
    (["--mail-type=END", "--mail-type=NONE"], "END"),        # each occurrence ORs into the ones before
    (["--mail-type=NONE", "--mail-type=END"], "END"),
    (["--mail-type=BEGIN,NONE,END"], "NONE"),               # within one, NONE ends the list with none
    (["--mail-type=BEGIN,FOO"], "BEGIN"),                   # a name Slurm does not know is passed over
    (["--mail-type=BEGIN,_END"], "BEGIN"),
    (["--mail-type=begin,,end"], "BEGIN,END"),
])
def test_mail_type_occurrences_add_up(argv: list[str], shown: str) -> None:
    values = _sbatch(argv)
    lines = defined_options.defined_options(sbatch.OPTIONS, values, "/w")
    assert f"{'mail-type':<20}: {shown}" in lines
    assert job_options.job_desc(values, "wrap", {}).mail_type == ("" if shown == "NONE" else shown)


def test_mail_type_from_the_script_adds_to_the_command_lines() -> None:
    values = _sbatch(["--mail-type=END"], [("mail_type", "BEGIN"), ("mail_type", "FAIL")])
    assert occurrences(values, "mail_type") == ["BEGIN", "FAIL", "END"]
    assert job_options.job_desc(values, "wrap", {}).mail_type == "BEGIN,END,FAIL"


@pytest.mark.parametrize("argv", [["--mail-type=FOO"], ["--mail-type=END", "--mail-type=FOO"],
                                  ["--mail-type=FOO", "--mail-type=END"], ["--mail-type="]])
def test_an_occurrence_with_no_known_name_is_refused(argv: list[str]) -> None:
    with pytest.raises(CliError) as refused:
        job_options.job_desc(_sbatch(argv), "wrap", {})
    assert (refused.value.lines, refused.value.exit_code) == (("Invalid --mail-type specification",), 255)


@pytest.mark.parametrize(("argv", "letters"), [
    (["--accel-bind=v", "--accel-bind=g"], "vg"), (["--accel-bind=v", "--accel-bind=x"], "v"), ([], ""),
])
def test_accel_bind_occurrences_add_up(argv: list[str], letters: str) -> None:
    assert accel_bind(collect(srun, command_line(srun, [*argv, "true"]), {})) == letters


def test_accel_bind_refuses_a_first_occurrence_without_a_letter() -> None:
    with pytest.raises(CliError) as refused:
        accel_bind(collect(srun, command_line(srun, ["--accel-bind=x", "--accel-bind=v", "true"]), {}))
    assert refused.value.lines == ("Invalid --accel-bind specification",)


@pytest.mark.parametrize("spec", [sbatch, srun, salloc])
def test_scalar_options_keep_the_last_occurrence_in_every_source(spec) -> None:  # type: ignore[no-untyped-def]
    values = collect(spec, command_line(spec, ["-J", "one", "--job-name=two", "-p", "a", "-p", "b", "true"]), {})
    assert (values["job_name"], values["partition"]) == ("two", "b")


@pytest.mark.parametrize("name", TABLES)
def test_every_option_given_twice_keeps_the_last_or_adds_up(name: str) -> None:
    """The mechanism, for every row of every table: a LIST option's two occurrences are both kept,
    any other option's second replaces the first (whatever the command does with the value)."""
    from cli.command_line import OptionValues
    from cli.getopt_long import NONE, OPTIONAL, getopt

    table = importlib.import_module(f"cli.option_tables.{name}").OPTIONS
    for long_name, _short, kind, dest, _env, _help in table:
        if not long_name or kind in (NONE, OPTIONAL) or dest == "verbose":
            continue
        values = OptionValues(table)
        values.set_from("command line", getopt([f"--{long_name}=a", f"--{long_name}", "b"], table).options)
        assert values[dest] == ("a,b" if kind == LIST else "b"), (name, long_name)
        assert occurrences(values, dest) == (["a", "b"] if kind == LIST else ["b"])


@pytest.mark.parametrize(("argv", "users", "accounts"), [   # Slurm's sshare: -u and -A append; -u -1 is every user
    (["-u", "alice", "-u", "bob", "-A", "a", "-A", "b"], ["alice", "bob"], ["a", "b"]),
    (["-u", "alice", "-a"], [], []),
    (["-a", "-u", "bob"], ["bob"], []),
    (["-u", "alice", "-u", "-1"], [], []),
])
def test_sshare_users_and_accounts_add_up(argv: list[str], users: list[str], accounts: list[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from cli import sshare
    from pyslurm_common.rpc import messages as pb

    asked: list[pb.SharesQuery] = []

    def controller(method: str, request: pb.SharesQuery, reply_type: type) -> pb.SharesReply:
        asked.append(request)
        return pb.SharesReply()

    monkeypatch.setattr("cli.client.controller", controller)
    sshare.sshare([*argv, "-n", "-P", "-o", "User"])
    assert (list(asked[-1].users), list(asked[-1].accounts)) == (users, accounts)
