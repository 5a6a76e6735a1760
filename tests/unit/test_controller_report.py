"""What the controller reports about itself: `scontrol show config` (pyslurm_ctld/rpc/config_report.py,
cli/scontrol_show.py) and sdiag (pyslurm_ctld/model/statistics.py, cli/sdiag.py).

Spec: cli-squeue-sinfo-scontrol-scancel.md §3.5 (show config: `%-23s = %s` lines, units), Slurm's
sdiag layout (src/sdiag/sdiag.c).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cli import scontrol_show
from cli.sdiag import render
from pyslurm_common.cgroup_conf import CgroupConfig
from pyslurm_common.config import load_config
from pyslurm_common.rpc import ctld_pb2
from pyslurm_ctld.rpc import config_report
from pyslurm_ctld.settings.priority_settings import priority_settings
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.model.events import JobCancelled
from pyslurm_ctld.model.job import JobState
from pyslurm_ctld.model.statistics import ControllerStats

from tests.builders import CONF, finish, make_manager, run_job, submit


def _entries(path: Path, slurm_uid: int = 0) -> list[tuple[str, str]]:
    cfg = load_config(path)
    return config_report.slurm_conf_entries(cfg, config_report.Running(slurm_uid, priority_settings(cfg), "X", 1, len(cfg.nodes)))


def test_show_config_has_effective_values_with_slurms_units(tmp_path: Path) -> None:
    (tmp_path / "slurm.conf").write_text(CONF + "ReturnToService=2\nSlurmctldTimeout=60\nSchedulerType=sched/backfill\n"
                                         "SlurmctldDebug=debug2\nFooBar=1\nTrackWCKey=yes\nCompleteWait=7\n")
    entries = dict(_entries(tmp_path / "slurm.conf", 450))
    assert entries["MinJobAge"] == "300 sec" and entries["KillWait"] == "30 sec"
    assert entries["SlurmctldTimeout"] == "60 sec" and entries["MessageTimeout"] == "10 sec"
    assert entries["ReturnToService"] == "2" and entries["SlurmctldDebug"] == "debug2"
    assert entries["SlurmUser"] == "root(450)" and entries["DefMemPerNode"] == "UNLIMITED"
    assert entries["SchedulerType"] == "sched/backfill" and entries["TrackWCKey"] == "Yes"
    assert entries["CompleteWait"] == "7 sec" and entries["MaxNodeCount"] == "2"
    assert entries["FooBar"] == "1" and entries["SLURM_VERSION"] == "22.05.8"
    assert entries["MailProg"] in ("/bin/mail", "/usr/bin/mail")   # Slurm's default, as this host has it
    assert entries["PriorityType"] == "priority/basic" and "PriorityWeightAge" not in entries
    assert entries["PreemptType"] == "preempt/none" and entries["PreemptMode"] == "OFF"
    assert entries["SwitchType"] == "switch/none"


# What real Slurm 22.05.8 printed for these slurm.conf files (tests/data/slurm_show_config/*.conf, the
# node and paths of a private slurmctld; *.txt is its `scontrol show config`).
SHOW_CONFIG = Path(__file__).parents[1] / "data" / "slurm_show_config"
# Where pyslurm differs by design: what it runs whatever slurm.conf names (its own auth and
# credentials, cgroup tracking and accounting, no plugin directory), and the moment and file.
_BY_DESIGN = {"AuthType", "CredType", "ProctrackType", "JobAcctGatherType", "PluginDir", "BOOT_TIME",
              "NEXT_JOB_ID", "SLURM_CONF", "SlurmctldHost[0]"}


@pytest.mark.parametrize("case", ["plain", "cfg1", "cfg2"])
def test_show_config_prints_slurms_keys_in_its_order_with_its_values(case: str) -> None:
    printed = (SHOW_CONFIG / f"{case}.txt").read_text().split("\n\n")[0].splitlines()[1:]
    slurm = [(key.rstrip(), value) for key, value in (line.split(" = ", 1) for line in printed)]
    ours = _entries(SHOW_CONFIG / f"{case}.conf", 999)
    assert [key for key, _ in ours] == [key for key, _ in slurm]
    differ = {key: (mine, theirs) for (key, mine), (_, theirs) in zip(ours, slurm) if mine != theirs}
    assert set(differ) <= _BY_DESIGN, {k: v for k, v in differ.items() if k not in _BY_DESIGN}


def test_cgroup_section_names_the_backend_the_nodes_detected() -> None:
    cgroup = CgroupConfig(constrain_cores=True, allowed_ram_space=95)
    entries = dict(config_report.cgroup_entries(cgroup, {"n1": "hybrid", "n2": "hybrid", "n3": ""}))
    assert entries["CgroupPlugin"] == "autodetect (cgroup/v1)"
    assert entries["ConstrainCores"] == "yes" and entries["ConstrainRAMSpace"] == "no"
    assert entries["AllowedRAMSpace"] == "95.0%" and entries["MinRAMSpace"] == "30 MB"
    assert dict(config_report.cgroup_entries(CgroupConfig(cgroup_plugin="cgroup/v2"), {}))["CgroupPlugin"] \
        == "cgroup/v2"
    assert dict(config_report.cgroup_entries(CgroupConfig(), {}))["CgroupPlugin"] == "autodetect"


def test_show_config_prints_sections_after_a_blank_line(utc: None) -> None:
    text = scontrol_show.show_config([("KillWait", "5 sec")], 86400,
                                     [("Cgroup Support Configuration", [("ConstrainCores", "yes")])])
    assert text == ("Configuration data as of 1970-01-02T00:00:00\n"
                    "KillWait                = 5 sec\n\n"
                    "Cgroup Support Configuration:\n"
                    "ConstrainCores          = yes\n")


def test_job_counters_follow_the_state_changes(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    mgr.stats = ControllerStats(since=1)
    done, failed, cancelled = run_job(mgr), run_job(mgr), run_job(mgr)
    pending = submit(mgr, hold=True)
    finish(mgr, done.job_id)
    finish(mgr, failed.job_id, exit_code=1)
    apply(mgr, JobCancelled(cancelled.job_id, 0, 400))
    finish(mgr, cancelled.job_id, exit_signal=15)    # its processes are gone: no second count
    apply(mgr, JobCancelled(pending.job_id, 0, 400))
    s = mgr.stats
    assert (s.jobs_submitted, s.jobs_started, s.jobs_completed, s.jobs_canceled, s.jobs_failed) == (4, 3, 1, 2, 1)
    assert mgr.jobs[failed.job_id].state is JobState.FAILED


def test_schedule_cycles_and_sdiag_layout(utc: None) -> None:
    stats = ControllerStats(since=1000)
    stats.schedule_cycle(120, 4, 1100)
    stats.schedule_cycle(80, 2, 1130)
    reply = ctld_pb2.DiagReply(
        now=1180, since=1000, server_thread_count=1, agent_queue_size=2, dbd_agent_queue_size=0,
        jobs_submitted=5, jobs_started=4, jobs_completed=3, jobs_canceled=1, jobs_failed=0, jobs_pending=1,
        jobs_running=1, job_states_time=1180, schedule_cycle_last_usec=stats.cycle_last_usec,
        schedule_cycle_max_usec=stats.cycle_max_usec, schedule_cycle_count=stats.cycle_count,
        schedule_cycle_sum_usec=stats.cycle_sum_usec, schedule_depth_sum=stats.depth_sum,
        schedule_queue_length=stats.queue_length)
    assert render(reply) == (
        "*******************************************************\n"
        "sdiag output at Thu Jan 01 00:19:40 1970 (1180)\n"
        "Data since      Thu Jan 01 00:16:40 1970 (1000)\n"
        "*******************************************************\n"
        "Server thread count:  1\n"
        "Agent queue size:     2\n"
        "DBD Agent queue size: 0\n"
        "\n"
        "Jobs submitted: 5\n"
        "Jobs started:   4\n"
        "Jobs completed: 3\n"
        "Jobs canceled:  1\n"
        "Jobs failed:    0\n"
        "\n"
        "Job states ts:  Thu Jan 01 00:19:40 1970 (1180)\n"
        "Jobs pending:   1\n"
        "Jobs running:   1\n"
        "\n"
        "Main schedule statistics (microseconds):\n"
        "\tLast cycle:   80\n"
        "\tMax cycle:    120\n"
        "\tTotal cycles: 2\n"
        "\tMean cycle:   100\n"
        "\tMean depth cycle:  3\n"
        "\tCycles per minute: 0\n"
        "\tLast queue length: 2\n"
    )
