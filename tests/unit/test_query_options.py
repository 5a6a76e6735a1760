"""The query commands' option tables (cli/option_tables/squeue.py ...) and cli/query_command.py:
getopt_long in glibc's permuting mode, Slurm's --help/--usage byte for byte (tests/data/slurm_help
holds real Slurm 22.05.8's), and what each option filters."""
from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from cli import sacct, sacct_filters, scancel, sdiag, sreport, sshare, sstat, sstat_fields, sinfo, sinfo_filters, sinfo_format, sprio, sprio_format, squeue
from cli.getopt_long import LIST, NONE, OPTIONAL, REQUIRED, GetoptError, getopt_permuted
from cli.option_tables import squeue as squeue_spec
from cli.query_command import atoi, iterate_seconds, parse
from pyslurm_common.rpc import messages as pb

HELP = Path(__file__).parent.parent / "data" / "slurm_help"
COMMANDS = ("squeue", "sinfo", "scancel", "sprio", "sdiag", "sacct", "sstat", "sshare", "sreport", "scontrol", "sacctmgr")


def _spec(prog: str):  # type: ignore[no-untyped-def]
    return importlib.import_module(f"cli.option_tables.{prog}")


@pytest.mark.parametrize("prog", COMMANDS)
@pytest.mark.parametrize("flag", ["--help", "--usage"])
def test_help_and_usage_are_slurms_byte_for_byte(prog: str, flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        parse(_spec(prog), [flag])
    expected = (HELP / f"{prog}.{flag[2:]}").read_text()
    assert (exited.value.code, capsys.readouterr().out) == (0, expected)


@pytest.mark.parametrize("prog", COMMANDS)
def test_every_option_of_the_table_parses_in_every_spelling(prog: str) -> None:
    spec = _spec(prog)
    for name, short, kind, dest, _env, _help in spec.OPTIONS:
        if dest in ("help", "usage", "version"):
            continue
        value = True if kind == NONE else "" if kind == OPTIONAL else "v"
        if name:
            words = [f"--{name}"] + (["v"] if kind in (REQUIRED, LIST) else [])
            assert getopt_permuted(words, spec.OPTIONS)[0].options == [(dest, value)]
        if short:
            words = [f"-{short}"] + (["v"] if kind in (REQUIRED, LIST) else [])
            assert getopt_permuted(words, spec.OPTIONS)[0].options[0][0] == next(
                row[3] for row in spec.OPTIONS if row[1] == short)


def test_operands_anywhere_bundles_and_abbreviations() -> None:
    parsed, operands = getopt_permuted(["x", "-ahl", "--part=a", "y", "--", "-z"], squeue_spec.OPTIONS)
    assert parsed.options == [("all", True), ("noheader", True), ("long", True), ("partitions", "a")]
    assert operands == ["x", "y", "-z"]
    with pytest.raises(GetoptError, match="option '--no' is ambiguous"):
        getopt_permuted(["--no"], squeue_spec.OPTIONS)


@pytest.mark.parametrize(("argv", "expected"), [
    (["--bogus"], "squeue: unrecognized option '--bogus'\nTry \"squeue --help\" for more information\n"),
    (["-Z"], "squeue: invalid option -- 'Z'\nTry \"squeue --help\" for more information\n"),
    (["--iterate"], "squeue: option '--iterate' requires an argument\nTry \"squeue --help\" for more information\n"),
    (["--all=1"], "squeue: option '--all' doesn't allow an argument\nTry \"squeue --help\" for more information\n"),
])
def test_refused_words_in_glibcs_wording(argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        parse(squeue_spec, argv)
    assert (exited.value.code, capsys.readouterr().err) == (1, expected)


def test_environment_under_the_command_line() -> None:
    values, _ = parse(squeue_spec, ["-p", "cli"], {"SQUEUE_PARTITION": "env", "SQUEUE_QOS": "high", "SQUEUE_ALL": ""})
    assert (values["partitions"], values["qos"], values["all"]) == ("cli", "high", True)


def _query(argv: list[str], environ: dict[str, str] | None = None) -> squeue.Query:
    values, _ = parse(squeue_spec, argv, environ or {})
    return squeue.Query(values, values.get("jobs"), values.get("steps"))


def _job(**fields: object) -> pb.JobInfo:
    base: dict[str, object] = {"job_id": 1, "name": "Run", "user_name": "alice", "user_id": 1000,
                               "partition": "debug", "account": "Lab", "qos": "normal", "state": "PENDING"}
    base.update(fields)
    return pb.JobInfo(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(("argv", "shown"), [
    (["--accounts=lab"], True), (["-A", "other"], False), (["-U", "LAB"], True),
    (["-q", "NORMAL"], True), (["--qos=high"], False),
    (["-n", "run"], True), (["--name=walk"], False),
    (["-L", "matlab"], True), (["-L", "fluent"], False),
    (["-R", "maint"], True), (["--reservation=other"], False),
    (["-w", "n[1-3]"], True), (["--nodes=n4"], False),
    (["-u", "alice"], True), (["--users=1000"], True), (["-u", "bob"], False),
    (["-p", "debug"], True), (["--partitions=gpu"], False),
])
def test_each_filter_as_slurms_filter_job(argv: list[str], shown: bool) -> None:
    job = _job(licenses="matlab:2,abaqus", reservation="maint", nodes="n2")
    assert _query(argv).matches(job) is shown


def test_only_the_filters_given_are_run() -> None:
    assert _query([]).filters == [] and len(_query(["-u", "alice", "-n", "run"]).filters) == 2
    assert _query(["-u", "alice", "-n", "walk"]).matches(_job()) is False


def test_all_hide_and_partitions_the_last_one_wins() -> None:
    assert _query([]).show_all is False
    assert _query(["-a"]).show_all is True
    assert _query(["-a", "--hide"]).show_all is False
    assert _query(["--hide", "-p", "x"]).show_all is True       # -p shows whatever it names
    assert _query(["--hide"], {"SQUEUE_ALL": "1"}).show_all is False


def test_priority_lists_a_job_once_per_partition() -> None:
    listed = squeue._one_per_partition([_job(partition="a,b"), _job(job_id=2, partition="c")], None)
    assert [(j.job_id, j.partition) for j in listed] == [(1, "a"), (1, "b"), (2, "c")]
    only = squeue._one_per_partition([_job(partition="a,b")], ["b"])
    assert [j.partition for j in only] == ["b"]


def test_iterate_is_a_positive_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert (atoi("5"), atoi(" 3x"), atoi("x"), atoi("-2")) == (5, 3, 0, -2)   # as Slurm reads it
    assert iterate_seconds("5", "never") == 5
    with pytest.raises(SystemExit):
        squeue.squeue(["-i", "0"])
    assert capsys.readouterr().err == "squeue: error: --iterate=0\n\n"
    with pytest.raises(SystemExit):
        sinfo.sinfo(["--iterate=-1"])
    assert capsys.readouterr().err == "sinfo: error: Error: invalid entry for --iterate=-1\n"


@pytest.mark.parametrize(("args", "kind"), [(["--json"], "json"), (["--yaml"], "yaml"), (["--yaml", "--json"], "json"),
                                            (["--json", "--yaml"], "yaml"), (["-l"], None)])
def test_data_output_is_the_last_of_json_and_yaml(args: list[str], kind: str | None) -> None:
    from cli.option_tables import squeue as squeue_spec
    from cli.query_command import data_output, parse

    assert data_output(parse(squeue_spec, args)[0]) == kind


def test_a_second_operand_and_conflicting_formats(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        squeue.squeue(["-j", "12", "13"])
    assert capsys.readouterr().err == "squeue: error: Unrecognized option: 13\n"
    from cli.app import CliError

    with pytest.raises(CliError, match=r"^-o \(--format\) is incompatible with -O \(--Format\)$"):
        squeue.squeue(["-O", "jobid", "-o", "%i"])
    with pytest.raises(SystemExit):
        squeue.squeue(["-l", "-o", "%i"])
    assert "Options -o(--format) and -l(--long) are mutually exclusive" in capsys.readouterr().err


# ----------------------------------------------------------------------------- sinfo


def _node(name: str, state: str = "IDLE", *flags: str) -> pb.NodeInfo:
    return pb.NodeInfo(name=name, state=state, flags=list(flags), cpus=2, real_memory_mb=1000)


@pytest.mark.parametrize(("states", "kept"), [
    # a base state matches whatever flags the node has (a drained idle node is idle too)
    ("idle", ["n1", "n4"]), ("i", ["n1", "n4"]), ("ALLOC", ["n2", "n3", "n5"]), ("mix", ["n3"]),
    ("drain", ["n4", "n5"]), ("drained", ["n4"]), ("drng", ["n5"]), ("draining", ["n5"]),
    ("down", ["n6"]), ("no_respond", ["n6"]), ("idle,down", ["n1", "n4", "n6"]), ("mix&drain", []),
    ("alloc&drain", ["n5"]),
])
def test_states_select_as_sinfos_filter_out(states: str, kept: list[str]) -> None:
    nodes = [_node("n1"), _node("n2", "ALLOCATED"), _node("n3", "MIXED"), _node("n4", "IDLE", "DRAIN"),
             _node("n5", "ALLOCATED", "DRAIN"), _node("n6", "DOWN", "NOT_RESPONDING")]
    keep = sinfo_filters.NodeFilter(states=sinfo_filters.parse_states(states)).keeps
    assert [n.name for n in nodes if keep(n)] == kept


def test_a_bad_state_is_refused_with_slurms_list() -> None:
    from cli.app import CliError

    with pytest.raises(CliError) as refused:
        sinfo.sinfo(["-t", "bogus"])
    assert refused.value.lines == ('Bad state string: "bogus"', f"valid states: {sinfo_filters.VALID_STATES}")


def test_dead_responding_and_node_names() -> None:
    nodes = [_node("n1"), _node("n2", "IDLE", "NOT_RESPONDING")]
    assert [n.name for n in nodes if sinfo_filters.NodeFilter(dead=True).keeps(n)] == ["n2"]
    assert [n.name for n in nodes if sinfo_filters.NodeFilter(responding=True).keeps(n)] == ["n1"]
    assert [n.name for n in nodes if sinfo_filters.NodeFilter(names=frozenset({"n2"})).keeps(n)] == ["n2"]


def test_a_partition_without_matching_nodes_shows_one_empty_row() -> None:
    part = pb.PartitionInfo(name="debug", is_default=True, state="UP", max_time_min=-1, nodes=["n1"])
    assert sinfo_format.render_sinfo([], [part]) == [
        "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST", "debug*       up   infinite      0    n/a "]


def test_sort_keys_order_rows() -> None:
    parts = [pb.PartitionInfo(name=name, state="UP", max_time_min=-1, nodes=[node])
             for name, node in (("b", "n1"), ("a", "n2"))]
    nodes = [_node("n1"), _node("n2", "ALLOCATED")]
    fmt = sinfo_format.parse_format("%P %t")

    def rows(keys: str) -> list[str]:
        return sinfo_format.render_sinfo(nodes, parts, fmt, header=False,
                                         arrange=lambda g: sinfo_filters.sort_groups(g, keys, parts))
    assert rows("P") == ["a alloc", "b idle"]
    assert rows("-P") == ["b idle", "a alloc"]
    assert rows("#P") == ["b idle", "a alloc"]
    assert rows("t") == ["b idle", "a alloc"]


def test_all_and_partition_conflict_on_the_command_line_only() -> None:
    from cli.app import CliError

    with pytest.raises(CliError, match="Conflicting options, -a and -p, specified"):
        sinfo.sinfo(["-a", "-p", "debug"])
    values, _ = parse(_spec("sinfo"), ["-a"], {"SINFO_PARTITION": "x"})
    assert sinfo.View(values).partitions is None


# ----------------------------------------------------------------------------- scancel


def _cancel_options(argv: list[str], monkeypatch: pytest.MonkeyPatch, **environ: str) -> scancel.Options:
    for name in ("SCANCEL_BATCH", "SCANCEL_FULL", "SCANCEL_INTERACTIVE", "SCANCEL_VERBOSE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    values, _ = parse(_spec("scancel"), argv, environ)
    return scancel.Options.from_values(values)


@pytest.mark.parametrize(("argv", "kept"), [
    (["-q", "NORMAL"], True), (["--qos=high"], False), (["-R", "maint"], True), (["--reservation=x"], False),
    (["-A", "LAB"], True), (["-n", "run"], False), (["--jobname=Run"], True), (["-p", "debug"], True),
    (["-w", "n[1-2]"], True), (["--nodelist=n3"], False), (["-u", "0"], False), (["-t", "RUNNING"], True),
    (["-t", "PD"], False), (["--wckey=x"], False),   # jobs keep no WCKey (TrackWCKey off), as in Slurm
])
def test_each_filter_as_slurms_filter_job_records(argv: list[str], kept: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    job = pb.JobInfo(job_id=5, name="Run", user_id=1000, partition="debug", account="lab", qos="normal",
                     state="RUNNING", reservation="maint", nodes="n2")
    options = _cancel_options(argv, monkeypatch)
    assert options.filtering and options.keeps(job) is kept


def test_boolean_variables_and_verbosity(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    options = _cancel_options(["-vv"], monkeypatch, SCANCEL_BATCH="T", SCANCEL_FULL="false", SCANCEL_VERBOSE="true")
    assert (options.batch, options.full, options.verbose) == (True, False, 3)
    assert _cancel_options(["-v", "-Q"], monkeypatch).verbose == -1
    assert _cancel_options([], monkeypatch, SCANCEL_INTERACTIVE="maybe").interactive is False
    assert capsys.readouterr().err == "scancel: error: Unrecognized SCANCEL_INTERACTIVE value: maybe\n"


def test_interactive_asks_each_job(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    job = pb.JobInfo(job_id=7, name="wrap", partition="debug")
    monkeypatch.setattr("sys.stdin", io.StringIO("maybe\ny\nn\n"))
    assert scancel._confirmed(job) is True
    assert scancel._confirmed(job) is False
    assert scancel._confirmed(job) is False      # end of input: no
    assert capsys.readouterr().out == "Cancel job_id=7 name=wrap partition=debug [y/n]? " * 4


def test_a_file_of_nodes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hosts = tmp_path / "hosts"
    hosts.write_text("n1\nn[3-4]\n")
    assert _cancel_options(["-w", str(hosts)], monkeypatch).nodes == ["n1", "n3", "n4"]


# ----------------------------------------------------------------------------- hidden partitions


def test_hidden_partitions_are_left_out_for_users_only(tmp_path: Path) -> None:
    from pyslurm_common.config import load_config
    from pyslurm_ctld.core import access

    conf = tmp_path / "slurm.conf"
    conf.write_text("ClusterName=lab\nSlurmctldHost=head\nNodeName=n1 CPUs=2\n"
                    "PartitionName=open Nodes=n1 Default=YES\nPartitionName=secret Nodes=n1 Hidden=YES\n")
    parts = load_config(conf).partitions
    assert [p.hidden for p in parts] == [False, True]
    assert [p.name for p in access.shown_partitions(parts, operator=False, show_all=False)] == ["open"]
    assert [p.name for p in access.shown_partitions(parts, operator=False, show_all=True)] == ["open", "secret"]
    assert [p.name for p in access.shown_partitions(parts, operator=True, show_all=False)] == ["open", "secret"]


# ----------------------------------------------------------------------------- sprio, sdiag


def _factors(job_id: int, **fields: object) -> pb.PriorityFactorsInfo:
    return pb.PriorityFactorsInfo(job_id=job_id, **fields)  # type: ignore[arg-type]


def test_sprio_sort_keys() -> None:
    jobs = [_factors(3, user_name="bob", age=5), _factors(1, user_name="carol", age=9), _factors(2, user_name="al", age=5)]
    assert [j.job_id for j in sprio_format.sort_jobs(jobs)] == [1, 2, 3]
    assert [j.job_id for j in sprio_format.sort_jobs(jobs, "u")] == [2, 3, 1]
    assert [j.job_id for j in sprio_format.sort_jobs(jobs, "-a,i")] == [1, 2, 3]
    assert [j.job_id for j in sprio_format.sort_jobs(jobs, "a,-i")] == [3, 2, 1]
    from cli.squeue_format import FormatError

    with pytest.raises(FormatError, match="^Invalid sort specification: z$"):
        sprio_format.sort_jobs(jobs, "z")


def test_sprio_partition_filter_and_operand(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    asked: list[pb.PriorityFactorsQuery] = []

    def controller(method: str, request: pb.PriorityFactorsQuery, reply_type: type) -> pb.PriorityFactorsReply:
        asked.append(request)
        return pb.PriorityFactorsReply(weights=pb.PriorityWeights(age=1), jobs=[
            _factors(4, partition="a", priority=10), _factors(4, partition="b", priority=10)])

    monkeypatch.setattr("cli.client.controller", controller)
    monkeypatch.delenv("SPRIO_FORMAT", raising=False)
    sprio.sprio(["-h", "-o", "%i %r", "-p", "b", "-j", "4"])
    assert capsys.readouterr().out == "4 b\n" and list(asked[0].job_ids) == [4]
    sprio.sprio(["-h", "-o", "%i %r", "-S", "-r"])
    assert capsys.readouterr().out == "4 b\n4 a\n"
    monkeypatch.setenv("SPRIO_FORMAT", "%r")
    sprio.sprio(["-h", "--jobs", "4"])
    assert capsys.readouterr().out == "a\nb\n"


def test_sdiag_reset_needs_an_operator(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from pyslurm_common.errors import SlurmError, Strerror

    calls: list[str] = []

    def controller(method: str, request: object, reply_type: type) -> object:
        calls.append(method)
        if method == "ResetDiag":
            raise SlurmError(Strerror.ACCESS_DENIED)
        return pb.DiagReply(now=100, since=50)

    monkeypatch.setattr("cli.client.controller", controller)
    with pytest.raises(SystemExit) as exited:
        sdiag.sdiag(["-r"])
    assert (exited.value.code, capsys.readouterr().err) == (255, "slurm_reset_statistics: Access/permission denied\n")
    sdiag.sdiag(["--reset", "-a"])     # -a after -r asks for the statistics again
    assert calls == ["ResetDiag", "GetDiag"] and "Data since" in capsys.readouterr().out


# ----------------------------------------------------------------------------- sacct


def _record(**job: object) -> pb.JobRecord:
    base: dict[str, object] = {"job_id": 9, "num_nodes": 2, "num_cpus": 4, "time_limit_min": 60, "start_time": 100,
                               "features": "gpu&fast", "reason": "Resources"}
    base.update(job)
    return pb.JobRecord(job=pb.JobInfo(**base), alloc_cpus=4, assoc_id=7)  # type: ignore[arg-type]


@pytest.mark.parametrize(("argv", "kept"), [
    (["-i", "2"], True), (["--nnodes=1"], False), (["-i", "1-3"], True), (["-i", "0"], True),
    (["-I", "4"], True), (["--ncpus=5-8"], False),
    (["-k", "60"], True), (["-k", "1:00:00"], True), (["--timelimit-min=30", "-K", "45"], False),
    (["-K", "1"], True),        # -K alone asks nothing, as in Slurm
    (["-C", "gpu,fast"], True), (["--constraints=gpu,slow"], False),
    (["-F", "SchedMain"], True), (["--flags=schedbackfill"], False), (["-F", "None"], False),
    (["--reason=resources"], True), (["--reason=Priority"], False),
    (["-x", "7"], True), (["--associations=8"], False),
    (["-W", "any"], False),     # no WCKeys kept here: a -W list matches no job, as in Slurm
])
def test_record_filters_as_slurmdbds_query(argv: list[str], kept: bool) -> None:
    values, _ = parse(_spec("sacct"), argv, {})
    assert sacct_filters.RecordFilter.from_values(values).keeps(_record()) is kept


def test_a_never_started_job_has_no_nodes_cpus_or_flags() -> None:
    pending = pb.JobRecord(job=pb.JobInfo(job_id=3, num_nodes=1, num_cpus=1))
    for argv, kept in ((["-i", "1"], False), (["-I", "1"], False), (["-F", "None"], True)):
        values, _ = parse(_spec("sacct"), argv, {})
        assert sacct_filters.RecordFilter.from_values(values).keeps(pending) is kept


@pytest.mark.parametrize(("argv", "expected"), [
    (["-i", "x"], 'Invalid numeric value "x" for --nnodes.'),
    (["-k", "0"], "Invalid time limit specification"),
])
def test_bad_filter_values_in_slurms_words(argv: list[str], expected: str) -> None:
    from cli.app import CliError

    values, _ = parse(_spec("sacct"), argv, {})
    with pytest.raises(CliError) as refused:
        sacct_filters.RecordFilter.from_values(values)
    assert refused.value.lines == (expected,)


@pytest.mark.parametrize(("argv", "expected"), [
    (["-B"], "When requesting job scripts you must also request specific jobs with the '-j' option."),
    (["--env-vars"], "When requesting job environment you must also request specific jobs with the '-j' option."),
    (["-B", "--env-vars", "-j", "1"], "Options --batch-script and --env-vars are mutually exclusive"),
    (["-l", "-o", "jobid"], "Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry."),
    (["--whole-hetjob=maybe"], 'Invalid --whole-hetjob value "maybe". Valid values: [yes|no].'),
])
def test_sacct_refusals_before_any_query(argv: list[str], expected: str) -> None:
    from cli.app import CliError

    with pytest.raises(CliError) as refused:
        sacct.sacct(argv)
    assert refused.value.lines == (expected,)


def test_completion_data_is_disabled_and_reason_has_no_letter(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        sacct.sacct(["-c"])
    assert (exited.value.code, capsys.readouterr().out) == (1, "Slurm job completion is disabled\n")
    with pytest.raises(SystemExit):
        parse(_spec("sacct"), ["-R", "x"])
    assert capsys.readouterr().err == "sacct: invalid option -- 'R'\n"   # no "Try" line, as Slurm's sacct


def test_batch_script_blocks_say_none() -> None:
    text = sacct_filters.stored_texts([_record(job_id=5), _record(job_id=6, array_job_id=6, array_task_str="2")], True)
    assert text == ("Batch Script for 5\n" + "-" * 80 + "\nNONE\n\n" + "Batch Script for 6_2\n" + "-" * 80 + "\nNONE\n\n")


# ----------------------------------------------------------------------------- sstat


def test_sstat_fields_and_jobs_add_up(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    asked: list[pb.StepUsageQuery] = []

    def controller(method: str, request: pb.StepUsageQuery, reply_type: type) -> pb.StepUsageList:
        asked.append(request)
        return pb.StepUsageList(steps=[pb.StepUsageInfo(job_id=request.job_id, step_id="0", ntasks=1,
                                                        max_rss_kb=2048, current_rss_kb=2048, node="n1")])

    monkeypatch.setattr("cli.client.controller", controller)
    sstat.sstat(["-n", "-P", "-i", "-o", "MaxRSS", "-j", "5", "6"])
    assert capsys.readouterr().out == "5.0|n1||2M\n6.0|n1||2M\n"
    assert [q.job_id for q in asked] == [5, 6]
    sstat.sstat(["-n", "-P", "--noconvert", "-o", "MaxRSS,AveRSS", "-j", "5"])
    assert capsys.readouterr().out == "2048K|2048K\n"
    assert sstat_fields.PID_FIELDS == "JobID,Nodelist,Pids"


def test_sacct_refuses_operands_after_reading_the_fields() -> None:
    from cli.app import CliError

    with pytest.raises(CliError) as refused:
        sacct.sacct(["AAA", "-o", "jobid", "BBB"])
    assert refused.value.lines == ("Unknown arguments:", " AAA", " BBB")


# ----------------------------------------------------------------------------- sshare


def test_sshare_users_verbose_and_slurms_stray_letters(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    asked: list[pb.SharesQuery] = []

    def controller(method: str, request: pb.SharesQuery, reply_type: type) -> pb.SharesReply:
        asked.append(request)
        return pb.SharesReply(shares=[pb.ShareInfo(account="lab", user="bob", raw_usage=3)])

    monkeypatch.setattr("cli.client.controller", controller)
    sshare.sshare(["-v", "-a", "-n", "-P", "-o", "User,RawUsage"])
    assert capsys.readouterr() == ("bob|3\n", "Users requested:\n\t: all\nAccounts requested:\n\t: all\n")
    sshare.sshare(["-a", "-u", "bob", "-A", "lab", "-h", "-o", "User"])
    assert list(asked[-1].users) == ["bob"] and list(asked[-1].accounts) == ["lab"]
    assert capsys.readouterr().out.split() == ["bob"]
    with pytest.raises(SystemExit) as exited:
        sshare.sshare(["-t", "5"])
    assert (exited.value.code, capsys.readouterr().err) == (1, "getopt error, returned t\n")
    sshare.sshare(["-e"])
    assert capsys.readouterr().out.splitlines()[0] == "Account           Cluster           EffectvUsage      FairShare        "


# ----------------------------------------------------------------------------- sreport


@pytest.mark.parametrize(("argv", "expected"), [
    (["--immediate", "cluster", "utilization"], "getopt error, returned i\n"),
    (["-a", "--cluster=x", "cluster", "utilization"],
     "Only one cluster option can be used (--all_clusters OR --cluster OR --local)\n"),
])
def test_sreport_refusals_in_slurms_words(argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        sreport.sreport(argv)
    assert (exited.value.code, capsys.readouterr().err) == (1, expected)


def test_sreport_tres_other_than_cpu_is_refused_not_ignored() -> None:
    from cli.app import CliError

    with pytest.raises(CliError, match="pyslurm reports CPU time only"):
        sreport.sreport(["-T", "mem", "cluster", "utilization"])
    assert sreport._sort_known("Na") and sreport._sort_known("TIME")
    assert not sreport._sort_known("Ti") and not sreport._sort_known("names")


def test_pending_tasks_with_records_of_their_own_are_shown_in_the_array_record() -> None:
    from cli import job_lists

    rest = _job(job_id=20, array_job_id=5, array_task_str="7-10", array_remainder=True, reason="Priority")
    held = _job(job_id=12, array_job_id=5, array_task_str="3", reason="JobHeldUser")
    other = _job(job_id=13, array_job_id=5, array_task_str="4", reason="Priority", partition="gpu")
    running = _job(job_id=11, array_job_id=5, array_task_str="2", state="RUNNING")
    shown = job_lists.combine_pending_tasks([running, held, other, rest])
    assert [(j.job_id, j.array_task_str, j.reason) for j in shown] == [
        (11, "2", ""), (13, "4", "Priority"), (20, "3,7-10", "Priority,JobHeldUser")]
    assert rest.array_task_str == "7-10"   # the reply's record is left as it was
    assert job_lists.combine_pending_tasks([held]) == [held]   # no pending remainder: nothing to join
    # a remainder whose tasks have no records apart (other runs in another partition): all as they came
    assert job_lists.combine_pending_tasks([running, other, rest]) == [running, other, rest]


def test_scontrol_options_among_the_words(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from cli import scontrol

    values, words = parse(_spec("scontrol"), ["show", "-o", "partition", "--all", "x", "--hide"], {})
    assert words == ["show", "partition", "x"] and values.get("oneliner") is True
    from cli.query_command import last_says

    assert last_says(values, ("all",), ("hide",)) is False
    assert last_says(parse(_spec("scontrol"), ["--hide"], {"SCONTROL_ALL": ""})[0], ("all",), ("hide",)) is False
    with pytest.raises(SystemExit) as exited:
        scontrol.scontrol(["-u", "no-such-user-here", "ping"])
    assert (exited.value.code, capsys.readouterr().err) == (0, 'scontrol: error: --uid="no-such-user-here" invalid\n')


def test_sacctmgr_readonly_refuses_changes(capsys: pytest.CaptureFixture[str]) -> None:
    from cli import sacctmgr

    with pytest.raises(SystemExit) as exited:
        sacctmgr.sacctmgr(["-r", "add", "account", "physics", "-i"])
    assert (exited.value.code, capsys.readouterr().err) == (1, "Can't run this command in readonly mode.\n")


def test_sinfo_verbose_blocks_are_slurms(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SINFO_FORMAT", raising=False)
    values, _ = parse(_spec("sinfo"), ["-v", "-N", "-l"], {})
    assert sinfo.View(values).options_block() == (HELP / "sinfo-v-N-l.out").read_text()


def test_sacct_minus_one_means_every_user(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    asked: list[pb.AccountingQuery] = []

    def call(method: str, request: pb.AccountingQuery, reply_type: type) -> pb.JobRecordBatch:
        asked.append(request)
        return pb.JobRecordBatch()

    monkeypatch.setattr("cli.sacct_database.call", call)
    sacct.sacct(["-u", "-1", "-M", "-1", "-n"])
    assert asked[0].all_users and not list(asked[0].users)


def test_brief_records_are_copied_as_brief_ones() -> None:
    """squeue's brief listing decodes JobBrief records: -r, the pending-array merge and -P copy them as such."""
    from cli import job_lists

    rest = pb.JobBrief(job_id=20, array_job_id=5, array_task_str="7-8", array_remainder=True, state="PENDING",
                       reason="Priority")
    held = pb.JobBrief(job_id=12, array_job_id=5, array_task_str="3", state="PENDING", reason="JobHeldUser")
    assert [(type(t).__name__, t.array_task_str) for t in job_lists.expand_array_tasks([rest])] == [
        ("JobBrief", "7"), ("JobBrief", "8")]
    assert [(j.array_task_str, j.reason) for j in job_lists.combine_pending_tasks([held, rest])] == [
        ("3,7-8", "Priority,JobHeldUser")]
    assert [j.partition for j in squeue._one_per_partition([pb.JobBrief(partition="a,b")], None)] == ["a", "b"]
