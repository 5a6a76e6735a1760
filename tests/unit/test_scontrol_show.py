"""scontrol show job/node/partition/config (cli-squeue-sinfo-scontrol-scancel.md §3.2–3.5)."""

from __future__ import annotations

import calendar

import pytest

from cli import scontrol_show as sc
from pyslurm_common.rpc.ctld_pb2 import NodeInfo, PartitionInfo
from pyslurm_common.rpc.types_pb2 import JobInfo


def _t(h: int, m: int, s: int) -> int:
    return calendar.timegm((2026, 12, 2, h, m, s))


@pytest.fixture(autouse=True)
def _utc(utc: None) -> None:
    """Every test here runs in UTC."""


# Real 22.05.8 output (spec §3.2). We do not track the submitting session id, so
# AllocNode:Sid prints ":0" where Slurm printed ":2495".
VERIFIED_HELD = (
    "JobId=661 JobName=held\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=0 Nice=0 Account=root QOS=normal\n"
    "   JobState=PENDING Reason=JobHeldUser Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A\n"
    "   SubmitTime=2026-12-02T11:40:31 EligibleTime=Unknown\n"
    "   AccrueTime=Unknown\n"
    "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T11:40:31 Scheduler=Main\n"
    "   Partition=debug AllocNode:Sid=localhost:2495\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=\n"
    "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=1,mem=1G,node=1,billing=1\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryCPU=1G MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=(null)\n"
    "   WorkDir=/tmp/slurm-anchor/work/notes.1695\n"
    "   StdErr=/dev/null\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/dev/null\n"
    "   Power=\n"
    "   \n"
    "\n"
).replace("localhost:2495", "localhost:0")


def _held() -> JobInfo:
    return JobInfo(
        job_id=661, name="held", user_name="root", group_name="root", account="root",
        qos="normal", state="PENDING", reason="JobHeldUser", held=True, priority=0,
        requeue=True, time_limit_min=-1, submit_time=_t(11, 40, 31), partition="debug",
        submit_host="localhost", num_nodes=1, num_cpus=1, num_tasks=1, cpus_per_task=1,
        mem_per_cpu_mb=1024, work_dir="/tmp/slurm-anchor/work/notes.1695",
        std_err="/dev/null", std_in="/dev/null", std_out="/dev/null",
    )


def test_held_job_verified() -> None:
    assert sc.show_job(_held(), _t(11, 40, 33)) == VERIFIED_HELD


def test_oneliner() -> None:
    text = sc.show_job(_held(), _t(11, 40, 33), oneliner=True)
    assert text.count("\n") == 1 and text.endswith(" Power= \n")
    assert text.startswith("JobId=661 JobName=held UserId=root(0) GroupId=root(0) MCS_label=N/A ")


def _finished() -> JobInfo:
    job = _held()
    job.job_id, job.name, job.held, job.priority = 662, "wrap", False, 4294901757
    job.state, job.reason, job.exit_code = "FAILED", "NonZeroExitCode", 3
    job.eligible_time = job.submit_time
    job.start_time, job.end_time = _t(11, 40, 32), _t(11, 40, 32)
    job.nodes = job.batch_host = "localhost"
    job.mem_per_cpu_mb, job.mem_per_node_mb = 0, 2048
    job.time_limit_min = 90
    return job


def test_finished_job_lines() -> None:
    lines = sc.job_lines(_finished(), _t(12, 0, 0))
    assert lines[3] == "JobState=FAILED Reason=NonZeroExitCode Dependency=(null)"
    assert lines[4] == "Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=3:0"
    assert lines[5] == "RunTime=00:00:00 TimeLimit=01:30:00 TimeMin=N/A"
    assert lines[7] == "AccrueTime=2026-12-02T11:40:31"
    assert lines[8] == (
        "StartTime=2026-12-02T11:40:32 EndTime=2026-12-02T11:40:32 Deadline=N/A"
    )
    assert lines[12:14] == ["NodeList=localhost", "BatchHost=localhost"]
    assert "TRES=cpu=1,mem=2G,node=1,billing=1" in lines
    assert "MinCPUsNode=1 MinMemoryNode=2G MinTmpDiskNode=0" in lines


def test_running_job_runtime_and_expected_end() -> None:
    job = _finished()
    job.state, job.end_time, job.exit_code, job.reason = "RUNNING", 0, 0, "None"
    lines = sc.job_lines(job, _t(13, 40, 33))
    assert lines[5] == "RunTime=02:00:01 TimeLimit=01:30:00 TimeMin=N/A"
    assert lines[8] == (
        "StartTime=2026-12-02T11:40:32 EndTime=2026-12-02T13:10:32 Deadline=N/A"
    )
    job.time_limit_min = -1
    assert sc.job_lines(job, _t(13, 40, 33))[8].endswith("EndTime=Unknown Deadline=N/A")
    job.completing = True
    assert sc.job_lines(job, _t(13, 40, 33))[3].startswith("JobState=COMPLETING ")


def test_suspension_stops_the_clock_as_slurm_shows_it() -> None:
    """Real Slurm 22.05.8, `sbatch -t 1 --wrap 'sleep 300'`, `scontrol suspend` 4 s after the start,
    shown 5 s later (RunTime=00:00:04 SuspendTime=<suspend> SecsPreSuspend=4, EndTime start+1:00),
    `scontrol resume` 6 s after the suspend and shown 3 s later (RunTime=00:00:07, SuspendTime=<resume>,
    SecsPreSuspend=4, EndTime start+1:06; squeue TIME 0:07 TIME_LEFT 0:53)."""
    job = _finished()
    start = job.start_time
    job.state, job.end_time, job.time_limit_min, job.suspend_time = "SUSPENDED", 0, 1, start + 4
    lines = sc.job_lines(job, start + 9)
    assert lines[5].startswith("RunTime=00:00:04 ")
    assert lines[8].startswith(f"StartTime={sc._ts(start)} EndTime={sc._ts(start + 60)} ")
    assert lines[9].startswith(f"SuspendTime={sc._ts(start + 4)} SecsPreSuspend=4 ")
    job.state, job.suspend_time, job.suspended_secs = "RUNNING", start + 10, 6
    lines = sc.job_lines(job, start + 13)
    assert lines[5].startswith("RunTime=00:00:07 ")
    assert lines[8].startswith(f"StartTime={sc._ts(start)} EndTime={sc._ts(start + 66)} ")
    assert lines[9].startswith(f"SuspendTime={sc._ts(start + 10)} SecsPreSuspend=4 ")
    job.state, job.end_time = "CANCELLED", start + 20
    assert sc.job_lines(job, start + 30)[5].startswith("RunTime=00:00:14 ")


def test_multiple_jobs_are_separated_by_blank_line() -> None:
    text = sc.show_jobs([_held(), _finished()], _t(12, 0, 0))
    assert "Power=\n   \n\nJobId=662 JobName=wrap\n" in text


VERIFIED_NODE = (
    "NodeName=localhost Arch=x86_64 CoresPerSocket=2 \n"
    "   CPUAlloc=2 CPUEfctv=2 CPUTot=2 CPULoad=0.11\n"
    "   AvailableFeatures=(null)\n"
    "   ActiveFeatures=(null)\n"
    "   Gres=(null)\n"
    "   NodeAddr=127.0.0.1 NodeHostName=localhost Version=22.05.8\n"
    "   OS=Linux 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0 \n"
    "   RealMemory=24100 AllocMem=2048 FreeMem=23633 Sockets=1 Boards=1\n"
    "   State=ALLOCATED ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
    "   Partitions=debug \n"
    "   BootTime=2026-12-02T08:52:22 SlurmdStartTime=2026-12-02T11:29:45\n"
    "   LastBusyTime=2026-12-02T11:30:16\n"
    "   CfgTRES=cpu=2,mem=24100M,billing=2\n"
    "   AllocTRES=cpu=2,mem=2G\n"
    "   CapWatts=n/a\n"
    "   CurrentWatts=0 AveWatts=0\n"
    "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
    "\n"
)


def _localhost() -> NodeInfo:
    return NodeInfo(
        name="localhost", arch="x86_64", cores_per_socket=2, alloc_cpus=2, cpus=2,
        cpu_load=0.11, address="127.0.0.1", hostname="localhost", version="22.05.8",
        os="Linux 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0", real_memory_mb=24100,
        alloc_memory_mb=2048, free_memory_mb=23633, sockets=1, state="ALLOCATED",
        threads_per_core=1, tmp_disk_mb=0, weight=1, partitions=["debug"],
        boot_time=_t(8, 52, 22), slurmd_start_time=_t(11, 29, 45),
        last_busy_time=_t(11, 30, 16),
    )


def test_node_verified() -> None:
    assert sc.show_nodes([_localhost()]) == VERIFIED_NODE


def test_node_state_flags_gres_and_reason() -> None:
    node = _localhost()
    node.state, node.alloc_cpus, node.alloc_memory_mb = "IDLE", 0, 0
    node.flags[:] = ["NOT_RESPONDING", "DRAIN"]
    node.gres, node.reason, node.reason_uid, node.reason_time = "gpu:2", "bad", 0, _t(9, 0, 0)
    node.gres_used = "gpu:0"
    lines = sc.node_lines(node, user_name=lambda uid: "root")
    assert next(line for line in lines if line.startswith("State=")).startswith(
        "State=IDLE+DRAIN+NOT_RESPONDING ThreadsPerCore=1 ")
    assert lines[lines.index("Gres=gpu:2") + 1] == "GresUsed=gpu:0"  # only for nodes with GRES
    assert "CfgTRES=cpu=2,mem=24100M,billing=2,gres/gpu=2" in lines
    assert "AllocTRES=" in lines
    assert lines[-1] == "Reason=bad [root@2026-12-02T09:00:00]"


def test_partition() -> None:
    part = PartitionInfo(
        name="debug", is_default=True, state="UP", max_time_min=-1, nodes=["localhost"],
        total_cpus=2, def_mem_per_cpu=1024, total_memory_mb=24100, priority_tier=1,
        priority_job_factor=1, over_subscribe="NO",
    )
    assert sc.show_partitions([part]) == """\
PartitionName=debug
   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL
   AllocNodes=ALL Default=YES QoS=N/A
   DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO
   MaxNodes=UNLIMITED MaxTime=UNLIMITED MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED
   Nodes=localhost
   PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO
   OverTimeLimit=NONE PreemptMode=OFF
   State=UP TotalCPUs=2 TotalNodes=1 SelectTypeParameters=NONE
   JobDefaults=(null)
   DefMemPerCPU=1024 MaxMemPerNode=UNLIMITED
   TRES=cpu=2,mem=24100M,node=1,billing=2

"""


@pytest.mark.parametrize(("expr", "members", "shown", "count"), [
    # What real Slurm 22.05 printed for these slurm.conf lines (NodeName=n[1-4],g[1-2], g* with
    # Feature=gpu,big; NodeSet=mixed Feature=big Nodes=n[1-2]; NodeSet=empty Feature=nothing).
    ("ALL", ["n1", "n2", "n3", "n4", "g1", "g2"], "Nodes=g[1-2],n[1-4]", 6),
    ("n4,mixed,n1", ["n4", "n1", "n2", "g1", "g2"], "Nodes=g[1-2],n[1-2,4]", 5),
    ("empty", [], "Nodes=(null)", 0),
])
def test_partition_nodes_are_its_members_as_slurm_prints_them(expr: str, members: list[str], shown: str,
                                                               count: int) -> None:
    lines = sc.partition_lines(PartitionInfo(name="p", state="UP", max_time_min=-1, nodes=members, node_expr=expr))
    assert shown in lines and f"State=UP TotalCPUs=0 TotalNodes={count} SelectTypeParameters=NONE" in lines


def test_partition_access_lists_and_qos() -> None:
    part = PartitionInfo(name="gpu", state="UP", max_time_min=-1, nodes=["n1"], allow_accounts="physics,chem",
                         allow_qos="ALL", deny_qos="scavenger", qos="gpuq")
    lines = sc.partition_lines(part)
    assert lines[1] == "AllowGroups=ALL AllowAccounts=physics,chem DenyQos=scavenger"
    assert lines[2] == "AllocNodes=ALL Default=NO QoS=gpuq"


def test_config() -> None:
    text = sc.show_config(
        [("KillWait", "5 sec"), ("MinJobAge", "300 sec"), ("SLURM_VERSION", "22.05.8")],
        _t(11, 40, 33),
    )
    assert text == (
        "Configuration data as of 2026-12-02T11:40:33\n"
        "KillWait                = 5 sec\n"
        "MinJobAge               = 300 sec\n"
        "SLURM_VERSION           = 22.05.8\n"
    )


def test_pending_job_shows_the_start_backfill_expects_and_its_nodes() -> None:
    job = _held()
    job.held, job.priority, job.reason, job.time_limit_min = False, 10, "Resources", 60
    lines = sc.job_lines(job, _t(12, 0, 0))
    assert lines[8] == "StartTime=Unknown EndTime=Unknown Deadline=N/A"
    assert not any("SchedNodeList" in line for line in lines)
    job.expected_start, job.sched_nodes = _t(13, 0, 0), "n[1-2]"
    lines = sc.job_lines(job, _t(12, 0, 0))
    assert lines[8] == "StartTime=2026-12-02T13:00:00 EndTime=2026-12-02T14:00:00 Deadline=N/A"
    assert "NodeList= SchedNodeList=n[1-2]" in lines


def test_a_reason_with_details_has_its_spaces_replaced() -> None:
    job = _held()
    job.held, job.reason = False, "ReqNodeNotAvail, UnavailableNodes:n1"
    assert sc.job_lines(job, _t(12, 0, 0))[3].startswith(
        "JobState=PENDING Reason=ReqNodeNotAvail,_UnavailableNodes:n1 ")


def test_io_paths_get_only_the_substitutions_scontrol_makes() -> None:
    """Real Slurm 22.05 shows dask-jobqueue's `-e dask-logs/dask-worker-%J.err` with %J as written
    (tests/differential); %A %a %j %u %x are put in, %a of a job outside an array as NO_VAL."""
    from cli.scontrol_show import shown_io_path
    job = JobInfo(job_id=70005, name="nm", user_name="alice", work_dir="/w")
    assert shown_io_path(job, "/w/dask-worker-%J.err") == "/w/dask-worker-%J.err"
    assert shown_io_path(job, "/w/o-%j-%x-%u-%A_%a-%N-%5j") == "/w/o-70005-nm-alice-70005_4294967294-%N-%5j"
    task = JobInfo(job_id=70009, array_job_id=70005, array_task_str="3", name="a", user_name="bob")
    assert shown_io_path(task, "/w/%A_%a.out") == "/w/70005_3.out"
    assert shown_io_path(job, "") == ""
