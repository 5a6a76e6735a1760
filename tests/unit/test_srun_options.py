"""srun/salloc options -> requests and environments (cli/srun_options.py, cli/allocation_env.py,
cli/salloc.py), and the step views of squeue -s / scontrol show step.
Spec cli-sbatch-srun-salloc.md §3.1-3.3 and §4; cli-squeue-sinfo-scontrol-scancel.md §1.1."""
from __future__ import annotations

import signal
from typing import Any

import pytest

from cli import squeue_format
from cli.allocation_env import allocation_environment
from cli.app import CliError
from cli.salloc import exit_status
from cli.scontrol_show import show_steps
from cli.srun import srun
from cli.command_line import OptionValues, collect, command_line
from cli.option_tables import srun as spec
from cli.srun_options import (StreamSpec, allocation_desc, input_task, step_request,
                              stream_spec, wait_seconds)
from pyslurm_common.rpc import messages as pb

ENV = {"HOME": "/home/alice", "PATH": "/usr/bin", "SLURM_JOB_ID": "9", "OTHER": "x"}


def parse(args: list[str], environ: dict[str, str] | None = None) -> tuple[OptionValues, list[str]]:
    cli = command_line(spec, args)
    return collect(spec, cli, environ or {}), args[cli.operand_index:]


def request(args: list[str], environ: dict[str, str] | None = None) -> pb.StepRequest:
    values, argv = parse(args, environ)
    return step_request(values, argv, environ or ENV, 9, 4242, "k" * 32, (40, 120))


def env_of(req: pb.StepRequest) -> dict[str, str]:
    return dict(item.split("=", 1) for item in req.environment)


def test_plain_step_request() -> None:
    req = request(["hostname"])
    assert (req.job_id, req.name, list(req.argv), req.num_tasks, req.min_nodes, req.cpus_per_task) == (
        9, "hostname", ["hostname"], 0, 0, 0)
    assert (req.io_port, req.io_key, req.input_task, req.pty, req.exact, req.overlap) == (
        4242, "k" * 32, -1, False, False, False)
    assert (req.std_out, req.std_err, req.std_in) == ("", "", "")
    env = env_of(req)
    assert env["OTHER"] == "x" and env["SLURM_UMASK"].startswith("0") and "SLURM_LABELIO" not in env
    assert (req.pty_rows, req.pty_cols) == (0, 0)


def test_options_map_onto_the_step() -> None:
    req = request(["-n4", "-N", "2", "-c", "2", "-l", "-J", "named", "-w", "node[1-2]", "--overlap",
                   "-W", "10", "-K1", "--", "python", "-u", "train.py"])
    assert (req.num_tasks, req.min_nodes, req.cpus_per_task, req.name, req.nodelist) == (4, 2, 2, "named", "node[1-2]")
    assert req.exact, "-c implies --exact"
    assert (req.overlap, req.kill_on_bad_exit) == (True, True)
    assert list(req.argv) == ["python", "-u", "train.py"]
    assert env_of(req)["SLURM_LABELIO"] == "1" and env_of(req)["SLURM_KILL_BAD_EXIT"] == "1"


def test_command_options_are_not_srun_options() -> None:
    req = request(["ls", "-l", "-K1"])
    assert list(req.argv) == ["ls", "-l", "-K1"] and not req.kill_on_bad_exit
    assert not request(["-K0", "true"]).kill_on_bad_exit
    assert request(["--kill-on-bad-exit=1", "true"]).kill_on_bad_exit


def test_sizes_default_to_the_allocation_but_the_command_line_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    inside = dict(ENV, SLURM_NTASKS="4", SLURM_JOB_NUM_NODES="2", SRUN_CPUS_PER_TASK="2", SLURM_CPUS_PER_TASK="8")
    req = request(["true"], inside)
    assert (req.num_tasks, req.min_nodes, req.cpus_per_task) == (4, 2, 2)
    one = request(["-n1", "true"], inside)
    assert (one.num_tasks, one.min_nodes) == (1, 1), "a smaller -n shrinks the inherited node count"
    assert request(["-N2", "-n1", "true"], inside).min_nodes == 2


def test_pty_request() -> None:
    req = request(["--pty", "bash"])
    assert (req.pty, req.input_task, req.pty_rows, req.pty_cols, req.unbuffered) == (True, 0, 40, 120, True)


@pytest.mark.parametrize("value, spec, task", [
    (None, StreamSpec("all"), -1), ("all", StreamSpec("all"), -1), ("none", StreamSpec("none"), -2),
    ("3", StreamSpec("rank", rank=3), 3), ("in.txt", StreamSpec("file", pattern="in.txt"), -1),
    ("in-%t.txt", StreamSpec("file", pattern="in-%t.txt"), -2),
    ("99999999999", StreamSpec("file", pattern="99999999999"), -1),    # beyond any rank: a file, as in Slurm
])
def test_stream_specs(value: str | None, spec: StreamSpec, task: int) -> None:
    assert stream_spec(value) == spec
    assert input_task(spec, pty=False) == task


def test_node_side_file_patterns_travel_in_the_request() -> None:
    req = request(["-o", "out-%t.txt", "-e", "err-%N.txt", "-i", "local.txt", "true"])
    assert (req.std_out, req.std_err, req.std_in, req.input_task) == ("out-%t.txt", "err-%N.txt", "", -1)
    assert StreamSpec("file", pattern="a-%4n").on_node and not StreamSpec("file", pattern="a-%j").on_node
    assert not StreamSpec("file", pattern="a\\-%t").on_node


def test_export_none_gives_the_tasks_no_user_environment() -> None:
    env = env_of(request(["--export=NONE", "true"]))
    assert "HOME" not in env and "SLURM_JOB_ID" not in env and "OTHER" not in env
    listed = env_of(request(["--export=OTHER,NEW=1", "true"]))
    assert (listed["OTHER"], listed["NEW"]) == ("x", "1") and "HOME" not in listed


def test_bad_sizes_are_refused_in_slurms_words() -> None:
    with pytest.raises(CliError) as info:
        request(["-n", "zero", "true"])
    assert info.value.lines == ('Invalid numeric value "zero" for --ntasks.',)
    with pytest.raises(CliError) as info:
        wait_seconds(parse(["-W", "-1", "true"])[0])
    assert info.value.lines == ('Invalid numeric value "-1" for --wait.',)
    assert wait_seconds(parse(["-W", "10", "true"])[0]) == 10   # srun's own timer (step_session.py)


def test_allocation_desc_is_an_srun_job_named_after_the_program() -> None:
    values, argv = parse(["-n2", "-t", "5", "/usr/bin/python3", "x.py"])
    desc = allocation_desc(values, argv, ENV)
    assert (desc.launcher, desc.name, desc.num_tasks, desc.ntasks_given, desc.time_limit_min, desc.script) == (
        "srun", "python3", 2, True, 5, "")


def test_allocation_environment_for_salloc() -> None:
    job = pb.JobInfo(job_id=12, name="bash", node_names=["node1", "node2", "node3"], cpus_per_node=[2, 2, 1],
                     num_tasks=5, ntasks_given=True, partition="debug", user_id=1001, user_name="alice",
                     group_id=1001, work_dir="/home/alice", submit_host="login", mem_per_cpu_mb=512,
                     account="lab")
    env = allocation_environment(job, "mycluster", "/etc/pyslurm/slurm.conf")
    assert env["SLURM_JOB_ID"] == env["SLURM_JOBID"] == "12"
    assert env["SLURM_JOB_NODELIST"] == env["SLURM_NODELIST"] == "node[1-3]"
    assert env["SLURM_NNODES"] == env["SLURM_JOB_NUM_NODES"] == "3"
    assert env["SLURM_JOB_CPUS_PER_NODE"] == "2(x2),1"
    assert env["SLURM_TASKS_PER_NODE"] == "2(x2),1"
    assert env["SLURM_NTASKS"] == env["SLURM_NPROCS"] == "5"
    assert (env["SLURM_CLUSTER_NAME"], env["SLURM_CONF"], env["SLURM_MEM_PER_CPU"]) == (
        "mycluster", "/etc/pyslurm/slurm.conf", "512")
    assert env["SLURM_JOB_ACCOUNT"] == "lab" and "SLURM_CPUS_PER_TASK" not in env and "SLURM_JOB_QOS" not in env
    no_tasks = allocation_environment(pb.JobInfo(job_id=1, node_names=["n1", "n2"], cpus_per_node=[4, 4]), "", "")
    assert no_tasks["SLURM_TASKS_PER_NODE"] == "1(x2)" and "SLURM_NTASKS" not in no_tasks


def test_salloc_exit_status() -> None:
    assert exit_status(7, 0) == 7
    for quiet in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGKILL):
        assert exit_status(0, quiet) == 0
    assert exit_status(0, signal.SIGTERM) == 143


def _step(**kw: Any) -> pb.StepInfo:
    base = dict(job_id=42, step_id="0", name="sleep", state="RUNNING", start_time=1000, nodes="node[1-2]",
                num_cpus=4, num_tasks=2, partition="debug", user_id=1001, user_name="alice", time_limit_min=-1)
    base.update(kw)
    return pb.StepInfo(**base)


def test_squeue_steps_view() -> None:
    jobs = [pb.JobInfo(job_id=42, steps=[_step(), _step(step_id="1", state="COMPLETED")]),
            pb.JobInfo(job_id=7, steps=[_step(job_id=7, step_id="3", name="averyverylongname")])]
    steps = squeue_format.running_steps(jobs)
    assert [(s.job_id, s.step_id) for s in steps] == [(7, "3"), (42, "0")]
    fmt = squeue_format.parse_step_format(squeue_format.STEP_FORMAT)
    assert squeue_format.render_steps(fmt, steps, now=1065) == [
        "         STEPID     NAME PARTITION     USER      TIME NODELIST",
        "            7.3 averyver     debug    alice      1:05 node[1-2]",
        "           42.0    sleep     debug    alice      1:05 node[1-2]",
    ]
    assert squeue_format.parse_step_format("%R").unknown == ("R",)   # printed as written, reported


def test_scontrol_show_step(utc: None) -> None:
    assert show_steps([_step(time_limit_min=90)]) == (
        "StepId=42.0 UserId=1001 StartTime=1970-01-01T00:16:40 TimeLimit=01:30:00\n"
        "   State=RUNNING Partition=debug NodeList=node[1-2]\n"
        "   Nodes=2 CPUs=4 Tasks=2 Name=sleep Network=(null)\n"
        "   TRES=cpu=4,node=2\n"
        "   ResvPorts=(null)\n"
        "   CPUFreqReq=Default Dist=Block\n\n")
    assert show_steps([_step()], oneliner=True).startswith("StepId=42.0 UserId=1001 ")
    assert "TimeLimit=UNLIMITED" in show_steps([_step()])


def test_input_rank_must_be_a_task_of_the_step(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.app import run

    with pytest.raises(SystemExit) as info:  # refused before any job or connection is made
        run("srun", srun, ["-n2", "--input=2", "cat"])
    assert info.value.code == 1
    assert capsys.readouterr().err == "srun: error: Invalid --input specification: task 2 of 2\n"


def test_ntasks_per_node(monkeypatch: pytest.MonkeyPatch) -> None:
    req = request(["-N2", "--ntasks-per-node=3", "true"])
    assert (req.num_tasks, req.min_nodes) == (6, 2)
    assert request(["-n2", "--ntasks-per-node=3", "true"]).num_tasks == 2, "-n wins"
    inside = request(["--ntasks-per-node=1", "true"], dict(ENV, SLURM_NTASKS="4", SLURM_JOB_NUM_NODES="2"))
    assert (inside.num_tasks, inside.min_nodes) == (2, 2), "the command line beats the job's task count"
    values, argv = parse(["-N2", "--ntasks-per-node=2", "true"])
    desc = allocation_desc(values, argv, ENV)
    assert (desc.num_tasks, desc.min_nodes, desc.ntasks_given) == (4, 2, True)


def test_salloc_kill_command_signal() -> None:
    from cli.salloc import kill_command_signal

    assert (kill_command_signal({}), kill_command_signal({"kill_command": ""}),
            kill_command_signal({"kill_command": "USR1"}), kill_command_signal({"kill_command": "9"})) == (
        0, signal.SIGTERM, signal.SIGUSR1, 9)
    with pytest.raises(CliError):
        kill_command_signal({"kill_command": "bogus"})


def test_distribution_lays_ranks_out_on_the_nodes() -> None:
    from cli.step_layout import StepLayout
    from pyslurm_common.task_distribution import node_ranks

    assert node_ranks([2, 2]) == [(0, 1), (2, 3)]
    assert node_ranks([2, 2], "cyclic") == [(0, 2), (1, 3)]
    assert node_ranks([3, 1], "cyclic:block,Pack") == [(0, 2, 3), (1,)]
    assert node_ranks([4, 4], "plane=2") == [(0, 1, 4, 5), (2, 3, 6, 7)]
    layout = StepLayout(("a", "b"), (2, 2), "cyclic")
    assert (layout.ranks_of(1), layout.host_of(2)) == ((1, 3), "a")
    assert request(["-m", "cyclic", "true"]).distribution == "cyclic"


@pytest.mark.parametrize(("name", "first_lines"), [   # real srun 22.05.8 (Debian: pmix plugins, no PMIx library)
    ("pmix", ["srun: error:  mpi/pmix_v4: init: (null) [0]: mpi_pmix.c:195: pmi/pmix: can not load PMIx library",
              "srun: error: Couldn't load specified plugin name for mpi/pmix: Plugin init() callback failed"]),
    ("pmix_v4", ["srun: error:  mpi/pmix_v4: init: (null) [0]: mpi_pmix.c:195: pmi/pmix: can not load PMIx library",
                 "srun: error: Couldn't load specified plugin name for mpi/pmix_v4: Plugin init() callback failed"]),
    ("pmix_v3", ["srun: error: Couldn't find the specified plugin name for mpi/pmix_v3 looking at all files",
                 "srun: error: cannot find mpi plugin for mpi/pmix_v3"]),
])
def test_mpi_types_without_a_plugin_here_are_refused_as_debians_srun(
        name: str, first_lines: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from cli.srun_options import mpi_type

    with pytest.raises(CliError) as refused:
        mpi_type({"mpi": name})
    assert refused.value.lines == (f"Invalid MPI type '{name}', --mpi=list for acceptable types",)
    assert capsys.readouterr().err.splitlines() == [*first_lines, f"srun: error: MPI: Cannot create context for mpi/{name}",
                                                    "srun: error: MPI: Unable to load any plugin"]
    assert mpi_type({"mpi": "pmi2"}) == "pmi2"
    with pytest.raises(SystemExit):
        mpi_type({"mpi": "list"})
    assert capsys.readouterr().out == ("MPI plugin types are...\n\tpmix\n\tnone\n\tpmi2\n"
                                       "specific pmix plugin versions available: pmix_v4\n")


@pytest.mark.parametrize(("given", "shown", "capped"), [   # real srun 22.05.8 -v
    ("9", "verbose", True), ("debug5", "verbose", True), ("x", "verbose", True), ("0", "quiet", False),
    ("quiet", "quiet", False), ("2x", "error", False), ("verbose", "verbose", False), ("INFO", "info", False),
])
def test_slurmd_debug_read_capped_and_shown_as_slurm(given: str, shown: str, capped: bool,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from cli.defined_options import defined_options
    from cli.srun_options import step_environment
    from cli.srun_step_options import slurmd_debug

    values = collect(spec, command_line(spec, [f"--slurmd-debug={given}", "true"]), {})
    level = slurmd_debug(values)
    assert capsys.readouterr().err == ("srun: Using srun's max debug increment of 4\n" if capped else "")
    assert f"{'slurmd-debug':<20}: {shown}" in defined_options(spec.OPTIONS, values, None)
    environment = dict(item.split("=", 1) for item in step_environment(values, {}, "/w", 0o22))
    assert environment.get("SLURMD_DEBUG") == (str(level) if level else None)
