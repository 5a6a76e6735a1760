"""The scheduling options in the controller: --test-only's will-run answer (core/will_run.py),
--deadline (core/deadlines.py), --time-min, --priority, -B/--sockets-per-node/--cores-per-socket,
--contiguous, --prefer and -k/--no-kill; and their command-line side (cli/scheduling_options.py).
Expected wordings are real Slurm 22.05.8's."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pyslurm_common.config import ConfigError
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.deadlines import deadlines_missed
from pyslurm_ctld.core.will_run import will_run
from pyslurm_ctld.model.events import JobDeadlineMissed, NodeFailed, Terminate
from pyslurm_ctld.model.job import JobState, Reason
from pyslurm_ctld.sched.scheduler import Start, schedule

from cli import scheduling_options
from cli.app import CliError
from tests.builders import ALICE, RAW, ROOT, USERS, error_of, make_manager, run_job, submit
from test_scheduler import by_name, job, node, partition

TOPOLOGY = """\
ClusterName=lab
SlurmctldHost=head
NodeName=n[1-4] Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=4000 Feature=ssd
NodeName=big Sockets=2 CoresPerSocket=4 ThreadsPerCore=2 RealMemory=4000
PartitionName=debug Nodes=n[1-4],big Default=YES
"""


def test_test_only_answers_now_for_a_job_that_fits_and_queues_nothing(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    event = submission(mgr, dataclasses.replace(RAW, num_tasks=2), ALICE, ALICE, "alice", "alice", False, 100)
    answer = will_run(mgr, event.job, 100)
    assert (answer.job_id, answer.start_time, answer.cpus, answer.partition) == (event.job.job_id, 100, 2, "debug")
    assert answer.nodes and not mgr.jobs
    assert mgr.next_job_id == event.job.job_id + 1   # the id is used up, as Slurm's


def test_test_only_answers_when_the_running_jobs_end(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    run_job(mgr, now=200, min_nodes=2, exclusive=True, time_limit_min=30)   # n1 and n2, for 30 minutes
    event = submission(mgr, dataclasses.replace(RAW, num_tasks=4, time_limit_min=10), ALICE, ALICE, "alice",
                           "alice", False, 300)
    answer = will_run(mgr, event.job, 300)
    ends = 200 + 30 * 60   # backfill's grid (bf_resolution, 60 s) rounds the end up
    assert ends <= answer.start_time < ends + 60 and answer.cpus == 4


def test_deadline_ends_a_pending_job_that_cannot_finish_in_time(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    fits = submit(mgr, now=100, hold=True, time_limit_min=10, deadline=100 + 3600)
    late = submit(mgr, now=100, hold=True, time_limit_min=10, deadline=100 + 300)
    shortened = submit(mgr, now=100, hold=True, time_limit_min=10, time_min_min=2, deadline=100 + 300)
    assert deadlines_missed(mgr, 100) == [JobDeadlineMissed(late.job_id, 100)]
    apply(mgr, JobDeadlineMissed(late.job_id, 100))
    ended = mgr.jobs[late.job_id]
    assert (ended.state, ended.reason, ended.end_time) == (JobState.DEADLINE, Reason.DEADLINE, 100)
    assert {fits.job_id, shortened.job_id} <= set(mgr.jobs) and mgr.jobs[fits.job_id].state is JobState.PENDING


def test_deadline_ends_a_running_job_that_reaches_it(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    running = run_job(mgr, now=200, time_limit_min=10, deadline=200 + 700)
    assert deadlines_missed(mgr, 899) == []
    effects = apply(mgr, JobDeadlineMissed(running.job_id, 900))
    assert mgr.jobs[running.job_id].state is JobState.DEADLINE
    assert any(isinstance(e, Terminate) for e in effects)


def test_time_min_above_the_time_limit_is_refused(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    refused = error_of(submit, mgr, time_limit_min=5, time_min_min=10)
    assert refused.strerror == Strerror.INVALID_TIME_MIN


def test_priority_is_fixed_for_root_and_ignored_for_a_user(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    assert submit(mgr, uid=ROOT, priority=77).priority == 77
    ordinary = submit(mgr, uid=ALICE, priority=77)
    assert ordinary.admin_priority == 0 and ordinary.priority != 77


def test_socket_core_thread_minimums_choose_nodes_and_refuse_what_no_node_has(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, conf=TOPOLOGY)
    wide = run_job(mgr, sockets_per_node=2)
    assert wide.allocation is not None and wide.allocation.nodes == ("big",)
    refused = error_of(submit, mgr, sockets_per_node=4)
    assert (refused.strerror, refused.detail) == (
        Strerror.BAD_NODE_CONFIG, "Socket, core and/or thread specification can not be satisfied")
    assert error_of(submit, mgr, threads_per_core=4).strerror == Strerror.BAD_NODE_CONFIG


def test_contiguous_takes_consecutive_nodes() -> None:
    nodes = by_name(node("a1"), node("a2", free_cpus=0), node("a3"), node("a4"))
    parts = {"batch": partition("batch", ["a1", "a2", "a3", "a4"])}
    plain, contiguous = (schedule([job(1, min_nodes=2, num_tasks=2, contiguous=flag)], nodes, parts)[0]
                         for flag in (False, True))
    assert isinstance(plain, Start) and isinstance(contiguous, Start)
    assert contiguous.allocation.nodes == ("a3", "a4")


def test_prefer_puts_nodes_with_the_features_first_and_unknown_ones_are_refused(tmp_path: Path) -> None:
    conf = TOPOLOGY.replace("NodeName=big", "NodeName=big Feature=fast")
    mgr = make_manager(tmp_path, conf=conf)
    assert run_job(mgr, prefer="fast").allocation.nodes == ("big",)   # type: ignore[union-attr]
    assert error_of(submit, mgr, prefer="bogus").strerror == Strerror.INVALID_PREFER


def test_no_kill_keeps_the_job_running_without_a_failed_node(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    kept = run_job(mgr, min_nodes=2, num_tasks=2, no_kill=True)
    killed = run_job(mgr, now=210, min_nodes=2, num_tasks=2)
    assert kept.allocation is not None and killed.allocation is not None
    other = next(n for n in kept.allocation.nodes if n != kept.allocation.batch_host)
    apply(mgr, NodeFailed(other, "Not responding", 300))
    assert mgr.jobs[kept.job_id].state is JobState.RUNNING
    assert mgr.jobs[kept.job_id].allocation.nodes == (kept.allocation.batch_host,)   # type: ignore[union-attr]
    assert mgr.jobs[killed.job_id].state is JobState.NODE_FAIL


def test_no_kill_an_interactive_job_goes_on_without_its_first_node(tmp_path: Path) -> None:
    """SchedMD's test_116_26: `srun --no-kill -N2 sleep 300`, its first node set DOWN: the job
    goes on with the other (no batch script lives on the first node of an srun or salloc job)."""
    mgr = make_manager(tmp_path)
    srun_job = run_job(mgr, min_nodes=2, num_tasks=2, no_kill=True, launcher="srun", script="")
    assert srun_job.allocation is not None
    first, second = srun_job.allocation.nodes
    apply(mgr, NodeFailed(first, "test_nokill", 300))
    assert mgr.jobs[srun_job.job_id].state is JobState.RUNNING
    assert mgr.jobs[srun_job.job_id].allocation.nodes == (second,)   # type: ignore[union-attr]
    apply(mgr, NodeFailed(second, "test_nokill", 310))   # its last node: it fails
    assert mgr.jobs[srun_job.job_id].state is JobState.NODE_FAIL


# ---- the command line -------------------------------------------------------------------------


def _fields(**values: object) -> dict[str, object]:
    return scheduling_options.scheduling_fields(values, 0)


def test_command_line_fields() -> None:
    fields = _fields(time_min="1:00:00", priority="TOP", contiguous=True, extra_node_info="2:4:1",
                     cpu_freq="low-high:performance", acctg_freq="task=30", no_kill="", prefer="ssd")
    assert (fields["time_min"], fields["priority"], fields["contiguous"], fields["sockets_per_node"],
            fields["cores_per_socket"], fields["cpu_freq"], fields["acctg_freq"], fields["no_kill"],
            fields["prefer"]) == (60, scheduling_options.PRIORITY_TOP, True, 2, 4, "Low-High:Performance",
                                  "task=30", True, "ssd")
    assert _fields(no_kill="off")["no_kill"] is False
    assert _fields(priority="12abc")["priority"] == 12       # atoi, as Slurm's client
    assert scheduling_options.implicit_tasks({"extra_node_info": "2:3"}, 2) == 12


@pytest.mark.parametrize(("values", "lines"), [
    ({"extra_node_info": "1:x"}, ('Invalid numeric value "x" for second arg of -B.',)),
    ({"cpu_freq": "low:performance"}, ("gov on cpu-frec (performance) illegal without max",
                                       "Invalid --cpu-freq argument")),
    ({"acctg_freq": "task=x"}, ("Invalid --acctg-freq specification: task=x",)),
    ({"priority": "-1"}, ("Priority must be >= 0",)),
])
def test_command_line_refusals(values: dict[str, object], lines: tuple[str, ...]) -> None:
    with pytest.raises(CliError) as refused:
        scheduling_options.scheduling_fields(values, 0)
    assert refused.value.lines == lines


def test_cpu_freq_line_of_scontrol_show_job() -> None:
    from cli.scontrol_show import _cpu_freq_line

    assert _cpu_freq_line("High") == ["CPU_max_freq=High "]
    assert _cpu_freq_line("Low-High:Performance") == ["CPU_min_freq=Low CPU_max_freq=High Governor=Performance "]
    assert USERS[ROOT] == "root"


def test_run_as_is_roots_and_slurm_users_only(tmp_path: Path) -> None:
    from pyslurm_ctld.core.access import job_identity

    mgr = make_manager(tmp_path)
    assert job_identity(mgr, ALICE, ALICE, None, None) == (ALICE, ALICE)
    assert job_identity(mgr, ROOT, 0, ALICE, None) == (ALICE, 0)          # the group stays root's, as Slurm's
    assert error_of(job_identity, mgr, ALICE, ALICE, 0, None).strerror == Strerror.ACCESS_DENIED
    assert error_of(job_identity, mgr, ALICE, ALICE, None, 0).strerror == Strerror.ACCESS_DENIED
    assert error_of(job_identity, mgr, ROOT, 0, 2 ** 31 + 7, None).strerror == Strerror.INVALID_USER_ID


def test_uid_and_gid_by_name_or_number() -> None:
    import pwd

    from cli.option_support import run_as

    root_name = pwd.getpwuid(0).pw_name
    assert run_as({"uid": root_name, "gid": "0"}) == {"run_as_uid": 0, "run_as_gid": 0}
    with pytest.raises(CliError) as refused:
        run_as({"uid": "no-such-user-here"})
    assert (refused.value.lines, refused.value.exit_code) == (("Invalid --uid specification",), 255)


def test_over_subscribe_and_gpu_freq() -> None:
    assert [scheduling_options.over_subscribe(v) for v in ({"exclusive": ""}, {"exclusive": "User"},
                                                          {"exclusive": "mcs"}, {"oversubscribe": True}, {})] == [
        "NO", "USER", "MCS", "YES", ""]
    assert _fields(gpu_freq="memory=low,verbose")["gpu_freq"] == "memory=low,verbose"
    with pytest.raises(CliError) as refused:
        _fields(gpu_freq="bogus")
    assert refused.value.lines == ("Invalid --gpu-freq argument: gpu:bogus",)


def test_time_min_lets_backfill_start_a_job_with_a_shorter_limit() -> None:
    from test_backfill import NOW, run, running

    nodes = by_name(node("n1", free_cpus=2))
    holds = [running(90, "n1", (0, 1), NOW + 600)]        # half the node, for 10 more minutes
    parts = {"batch": partition("batch", ["n1"])}
    top = job(1, num_tasks=4, time_limit_min=60)          # the whole node, reserved from then on
    plain = job(2, num_tasks=2, time_limit_min=60)
    shortened = job(3, num_tasks=2, time_limit_min=60, time_min_min=5)
    decisions = run([top, plain, shortened], nodes, parts, holds)
    assert not isinstance(decisions[2], Start)
    started = decisions[3]
    assert isinstance(started, Start) and 5 <= started.time_limit_min <= 10, started


def test_a_job_started_with_a_shortened_limit_keeps_it(tmp_path: Path) -> None:
    from pyslurm_ctld.model.events import JobStarted
    from pyslurm_ctld.model.job import Allocation

    mgr = make_manager(tmp_path)
    pending = submit(mgr, time_limit_min=60, time_min_min=5)
    node_name = next(iter(mgr.nodes))
    apply(mgr, JobStarted(pending.job_id, Allocation((node_name,), (1,), (0,), ((0,),)), 300, "", 7))
    assert mgr.jobs[pending.job_id].request.time_limit_min == 7


def test_spread_job_takes_a_node_per_task_as_far_as_the_partition_goes(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, conf=TOPOLOGY)
    spread = run_job(mgr, num_tasks=3, spread_job=True)
    assert spread.allocation is not None and len(spread.allocation.nodes) == 3
    wide = submit(mgr, num_tasks=40, spread_job=True)
    assert wide.request.min_nodes == 5


def test_max_script_size_bounds_the_batch_script_in_bytes(tmp_path: Path) -> None:
    """slurmctld's _test_job_desc_fields: strlen(script) > max_script_size (4 MB unless
    SchedulerParameters says) is ESLURM_PATHNAME_TOO_LONG; Slurm's read_config refuses a limit
    over 512 MB."""
    mgr = make_manager(tmp_path, "SchedulerParameters=max_script_size=100\n")
    assert submit(mgr, script="#!/bin/sh\n" + "x" * 90)
    with pytest.raises(SlurmError) as refused:
        submit(mgr, script="#!/bin/sh\n" + "é" * 46)          # 46 characters, 92 bytes
    assert refused.value.strerror == Strerror.PATHNAME_TOO_LONG
    for name in ("default", "big"):
        (tmp_path / name).mkdir()
    assert make_manager(tmp_path / "default").options.max_script_size == 4 * 1024 * 1024
    with pytest.raises(ConfigError, match="max_script_size cannot exceed 536870912"):
        make_manager(tmp_path / "big", "SchedulerParameters=max_script_size=536870913\n")
