"""sacct's full field table: usage figures of steps, the long format, waits, ids from the
daemon, --helpformat and the default time window."""

from __future__ import annotations

import calendar
import time

import pytest

from cli import sacct, sacct_fields
from cli.app import CliError
from pyslurm_common import units
from pyslurm_common.rpc.dbd_pb2 import JobRecord
from pyslurm_common.rpc.types_pb2 import JobInfo, StepInfo

T0 = calendar.timegm((2026, 12, 2, 11, 40, 35))


@pytest.fixture(autouse=True)
def _utc(utc: None) -> None:
    """Every test here runs in UTC."""


def _record() -> JobRecord:
    """Job 70 waited 30 s once eligible, ran 60 s with a batch step and a two-node srun step."""
    job = JobInfo(job_id=70, name="train", partition="debug", account="physics", state="COMPLETED",
                  user_name="alice", user_id=1001, group_name="alice", group_id=1001, num_cpus=4,
                  num_nodes=2, nodes="n[1-2]", submit_time=T0 - 40, eligible_time=T0 - 30,
                  start_time=T0, end_time=T0 + 60, time_limit_min=10, mem_per_node_mb=2048)
    batch = StepInfo(job_id=70, step_id="batch", name="batch", state="COMPLETED", start_time=T0,
                     end_time=T0 + 60, nodes="n1", num_cpus=2, num_tasks=1, max_rss_kb=2000,
                     user_cpu_usec=1_500_000, system_cpu_usec=4_000, max_rss_node="n1")
    srun = StepInfo(job_id=70, step_id="0", name="python", state="COMPLETED", start_time=T0 + 1,
                    end_time=T0 + 50, nodes="n[1-2]", num_cpus=4, num_tasks=4, max_rss_kb=4096,
                    user_cpu_usec=8_000_000, system_cpu_usec=0, max_rss_node="n2")
    return JobRecord(cluster="lab", job=job, steps=[batch, srun], alloc_cpus=4, db_index=12,
                     assoc_id=7, qos_id=1)


def _values(spec: str, record: JobRecord | None = None, now: int = T0 + 100) -> list[list[object]]:
    columns = sacct_fields.parse_fields(spec)
    return [sacct_fields.row_values(columns, row) for row in sacct_fields.rows([record or _record()], now=now)]


def test_memory_and_cpu_figures_of_steps() -> None:
    assert _values("JobID,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,AveCPU,MinCPU,MinCPUNode,TotalCPU") == [
        ["70", None, None, None, None, None, None, None, "00:09.504"],
        ["70.batch", "2000K", "n1", 0, "2000K", "00:01.504", "00:01.504", "n1", "00:01.504"],
        ["70.0", "4M", "n2", 0, "4M", "00:02.000", "00:02.000", "n2", "00:08.000"],
    ]


def test_figures_slurm_does_not_gather_here_are_zero_on_steps() -> None:
    got = _values("MaxVMSize,MaxVMSizeNode,AveDiskRead,MaxDiskWriteNode,MaxPages,ConsumedEnergy,ReqCPUFreqMin")
    assert got[0] == [None, None, None, None, None, "0", None]
    assert got[2] == ["0", "n2", "0", "n2", "0", "0", "Unknown"]


def test_tres_usage_fields() -> None:
    job, _, step = _values("TRESUsageInTot,TRESUsageInMaxNode,TRESUsageOutTot")
    assert job == [None, None, None]
    assert step == ["cpu=00:00:08,energy=0,fs/disk=0,mem=4M,pages=0,vmem=0",
                    "cpu=n2,energy=n2,fs/disk=n2,mem=n2,pages=n2,vmem=n2", "energy=0,fs/disk=0"]


def test_gpu_figures_join_the_tres_usage_of_a_step_that_had_gpus() -> None:
    record = _record()
    srun = record.steps[1]   # 4 tasks, one GPU on each node
    srun.gpus.add(node="n1", index=0, samples=5, util_ave=80, util_max=100, mem_max_bytes=2 * 2**30)
    srun.gpus.add(node="n2", index=1, samples=5, util_ave=40, util_max=90, mem_max_bytes=2**30)
    srun.gpus.add(node="n2", index=3, samples=0)   # never sampled: not counted
    ave, peak, total = _values("TRESUsageInAve,TRESUsageInMax,TRESUsageInTot", record)[2]
    assert ave == "cpu=00:00:02,energy=0,fs/disk=0,gres/gpumem=768M,gres/gpuutil=30,mem=4M,pages=0,vmem=0"
    assert peak == "cpu=00:00:02,energy=0,fs/disk=0,gres/gpumem=3G,gres/gpuutil=190,mem=4M,pages=0,vmem=0"
    assert total == "cpu=00:00:08,energy=0,fs/disk=0,gres/gpumem=3G,gres/gpuutil=120,mem=4M,pages=0,vmem=0"
    # the batch step had no GPU figures: no gres entries at all
    assert "gres/" not in str(_values("TRESUsageInTot", record)[1][0])


def test_running_step_has_no_figures_yet() -> None:
    record = _record()
    record.steps[1].end_time = 0
    assert _values("MaxRSS,MaxRSSNode", record)[2] == [None, None]


def test_peak_node_of_records_from_before_it_was_kept_is_the_first_node() -> None:
    record = _record()
    record.steps[1].max_rss_node = ""
    assert _values("MaxRSSNode", record)[2] == ["n1"]


def test_wait_ids_layout_and_flags() -> None:
    got = _values("Reserved,ResvCPURAW,Planned,Suspended,AssocID,DBIndex,QOSRAW,Layout,Flags,Comment")
    assert got == [
        ["00:00:30", 120, "00:00:30", "00:00:00", 7, 12, 1, None, "SchedMain", None],
        [None, None, None, None, 7, 12, None, "Unknown", None, None],
        [None, None, None, None, 7, 12, None, "Block", None, None],
    ]


def test_suspended_time_counts_the_current_suspension_to_now() -> None:
    record = _record()
    record.job.state, record.job.end_time = "SUSPENDED", 0
    record.job.suspended_secs, record.job.suspend_time = 50, T0 + 40
    assert _values("Suspended", record, now=T0 + 100)[0] == ["00:01:50"]
    record.job.suspend_time = 0
    assert _values("Suspended", record, now=T0 + 100)[0] == ["00:00:50"]


def test_elapsed_stops_while_suspended() -> None:
    """Real Slurm 22.05.8: suspended 4 s after the start, sacct 5 s later: Elapsed 00:00:04,
    Suspended 00:00:06 a second later; resumed, 3 s on: RUNNING 00:00:08 (the 6 s not counted)."""
    record = _record()
    start = record.job.start_time
    record.job.state, record.job.end_time, record.job.suspend_time = "SUSPENDED", 0, start + 4
    assert _values("Elapsed,Suspended", record, now=start + 10)[0] == ["00:00:04", "00:00:06"]
    record.job.state, record.job.suspend_time, record.job.suspended_secs = "RUNNING", start + 10, 6
    assert _values("Elapsed,Suspended", record, now=start + 14)[0] == ["00:00:08", "00:00:06"]


def test_pending_job_waits_until_now() -> None:
    record = JobRecord(cluster="lab", job=JobInfo(job_id=5, state="PENDING", submit_time=T0, eligible_time=T0,
                                                  num_cpus=2))
    assert _values("Reserved,ResvCPURAW,Flags", record, now=T0 + 65) == [["00:01:05", 130, None]]


def test_long_format_resolves_every_field_and_renders() -> None:
    columns = sacct_fields.parse_fields(sacct_fields.LONG_FIELDS)
    names = [c.name for c in columns]
    assert names[:4] == ["JobID", "JobIDRaw", "JobName", "Partition"]
    assert names[-3:] == ["TRESUsageOutMaxTask", "TRESUsageOutAve", "TRESUsageOutTot"]
    assert len(names) == len(set(names)) == 54
    header, dashes, *rows = sacct_fields.render_sacct(columns, sacct_fields.rows([_record()], now=T0 + 100))
    assert header.startswith("JobID        JobIDRaw        JobName  Partition  MaxVMSize  MaxVMSizeNode ")
    assert len(rows) == 3 and len(header) == len(dashes) == len(rows[0])


def test_helpformat_lists_every_field_in_columns() -> None:
    lines = sacct_fields.help_format()
    assert lines[0].split() == ["Account", "AdminComment", "AllocCPUS", "AllocNodes"]
    assert sorted(" ".join(lines).split(), key=str.lower) == sorted(sacct_fields.FIELDS, key=str.lower)


# --- default window (sacct(1) DEFAULT TIME WINDOW) ------------------------------------------

NOW = float(calendar.timegm((2026, 12, 2, 15, 0, 0)))
MIDNIGHT = calendar.timegm((2026, 12, 2, 0, 0, 0))


@pytest.mark.parametrize(("jobs", "states", "window"), [
    (False, False, (MIDNIGHT, 0)),          # since midnight, until now
    (True, False, (0, 0)),                  # -j: since the epoch
    (False, True, (int(NOW), int(NOW))),    # -s: what is in that state now
    (True, True, (0, int(NOW))),            # -j -s: any time until now
])
def test_default_window(jobs: bool, states: bool, window: tuple[int, int]) -> None:
    assert time.timezone == 0
    assert sacct._window(None, None, jobs, states, NOW) == window


def test_state_query_with_a_start_ends_at_the_start() -> None:
    start, end = sacct._window("2026-12-01T10:00:00", None, False, True, NOW)
    assert start == end == calendar.timegm((2026, 12, 1, 10, 0, 0))
    assert sacct._window("2026-12-01T10:00:00", "now", False, True, NOW)[1] == int(NOW)


def test_only_step_derived_columns_need_steps_with_allocations_only() -> None:
    assert not sacct_fields.needs_steps(sacct_fields.parse_fields("JobID,State,Elapsed,AllocTRES"))
    assert sacct_fields.needs_steps(sacct_fields.parse_fields("JobID,TotalCPU"))
    assert sacct_fields.needs_steps(sacct_fields.parse_fields("DerivedExitCode"))


def test_truncate_clips_start_end_and_elapsed_to_the_window() -> None:
    first, last = T0 - 600, T0 + 30
    done, running = _record(), _record()          # done ran T0..T0+60; running since T0
    running.job.state, running.job.end_time = "RUNNING", 0
    done.job.start_time = T0 - 900
    columns = sacct_fields.parse_fields("Start,End,ElapsedRaw")
    got = [sacct_fields.row_values(columns, row)
           for row in sacct_fields.rows([done, running], True, now=T0 + 100, truncate_to=(first, last))]
    assert got == [["2026-12-02T11:30:35", "2026-12-02T11:41:05", 630],
                   ["2026-12-02T11:40:35", "2026-12-02T11:41:05", 30]]
    plain = [sacct_fields.row_values(columns, row) for row in sacct_fields.rows([done], True, now=T0 + 100)]
    assert plain == [["2026-12-02T11:25:35", "2026-12-02T11:41:35", 960]]


def _sized(spec: str, sizes: units.SizeFormat) -> list[list[object]]:
    columns = sacct_fields.parse_fields(spec)
    return [sacct_fields.row_values(columns, row)
            for row in sacct_fields.rows([_record()], now=T0 + 100, sizes=sizes)]


def test_noconvert_prints_sizes_in_their_counted_unit() -> None:
    """Peak memory is counted in bytes, requested memory in megabytes (sacct(1) --noconvert)."""
    got = _sized("MaxRSS,AveRSS,ReqMem,ReqTRES,MaxVMSize", units.SizeFormat(convert=False))
    assert got[0] == [None, None, "4096M", "billing=4,cpu=4,mem=4096M,node=2", None]
    assert got[1][:3] == ["2048000", "2048000", "4096M"]
    assert got[2][:3] == ["4194304", "4194304", "4096M"]
    assert got[2][4] == "0"


def test_units_prints_every_size_in_that_unit() -> None:
    got = _sized("MaxRSS,ReqMem,AllocTRES,TRESUsageInTot", units.SizeFormat("M"))
    assert got[0][1:3] == ["4096M", "billing=4,cpu=4,mem=4096M,node=2"]
    assert got[1][0] == "1.95M"
    assert got[2][0] == "4M"
    assert "mem=1.95M," in got[1][3]
    assert _sized("ReqMem,MaxRSS", units.SizeFormat("G"))[1] == ["4G", "0.00G"]


@pytest.mark.parametrize(("text", "unit"), [("M", "M"), ("g", "G"), ("Tera", "T"), ("p", "P")])
def test_units_option_reads_its_first_letter(text: str, unit: str) -> None:
    assert sacct._size_unit(text) == unit


@pytest.mark.parametrize("text", ["X", "", "b"])
def test_units_option_rejects_other_letters(text: str) -> None:
    with pytest.raises(CliError) as err:
        sacct._size_unit(text)
    assert err.value.lines == (f"Invalid unit type '{text[:1]}'. Possible options are KMGTP",)


def test_constraints_and_submit_line_are_job_fields() -> None:
    record = _record()
    record.job.features, record.job.submit_line = "fast&ib", "sbatch -C fast&ib -N 2 train.sh"
    assert _values("Constraints,SubmitLine", record) == [
        ["fast&ib", "sbatch -C fast&ib -N 2 train.sh"], [None, None], [None, None]]
    lines = sacct_fields.render_sacct(sacct_fields.parse_fields("SubmitLine"),
                                      sacct_fields.rows([record], allocations_only=True, now=T0))
    assert lines[2] == "sbatch -C fast&ib -+ "   # width 20, cut with a '+'
