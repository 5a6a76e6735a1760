"""print_fields renderer and sacct fields (cli-sacct-sacctmgr-sprio-sshare.md §1–2)."""

from __future__ import annotations

import calendar

import pytest

from cli import print_fields as pf
from cli import sacct_fields as sa
from cli import sacct_usage
from pyslurm_common.rpc.dbd_pb2 import JobRecord
from pyslurm_common.rpc.types_pb2 import JobInfo, StepInfo

T0 = calendar.timegm((2026, 12, 2, 11, 40, 35))


@pytest.fixture(autouse=True)
def _utc(utc: None) -> None:
    """Every test here runs in UTC."""


def _record(job_id: int, state: str, exit_code: int, *steps: StepInfo) -> JobRecord:
    job = JobInfo(
        job_id=job_id, name="wrap", partition="debug", account="root", state=state,
        exit_code=exit_code, user_name="root", user_id=0, group_name="root", num_cpus=1,
        num_nodes=1, nodes="localhost", submit_time=T0 - 1, eligible_time=T0 - 1,
        start_time=T0, end_time=T0, time_limit_min=-1, mem_per_cpu_mb=1024, qos="normal",
        work_dir="/tmp",
    )
    batch = StepInfo(job_id=job_id, step_id="batch", state=state, exit_code=exit_code,
                     start_time=T0, end_time=T0, nodes="localhost", num_cpus=1)
    return JobRecord(cluster="cluster", job=job, steps=[batch, *steps], alloc_cpus=1)


def _verified_records() -> list[JobRecord]:
    true_step = StepInfo(job_id=663, step_id="0", name="true", state="COMPLETED",
                         start_time=T0, end_time=T0, nodes="localhost", num_cpus=1)
    return [_record(662, "FAILED", 3), _record(663, "COMPLETED", 0, true_step)]


def test_default_output_verified() -> None:
    lines = sa.render_sacct(sa.parse_fields(), sa.rows(_verified_records(), now=T0 + 5))
    assert lines == [
        "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode ",
        "------------ ---------- ---------- ---------- ---------- ---------- -------- ",
        "662                wrap      debug       root          1     FAILED      3:0 ",
        "662.batch         batch                  root          1     FAILED      3:0 ",
        "663                wrap      debug       root          1  COMPLETED      0:0 ",
        "663.batch         batch                  root          1  COMPLETED      0:0 ",
        "663.0              true                  root          1  COMPLETED      0:0 ",
    ]


def test_parsable2_verified() -> None:
    cols = sa.parse_fields("JobID,JobName,State,ExitCode,Elapsed")
    lines = sa.render_sacct(cols, sa.rows(_verified_records(), now=T0 + 5),
                            parsable=pf.Parsable.NO_TRAILING)
    assert lines[:3] == [
        "JobID|JobName|State|ExitCode|Elapsed",
        "662|wrap|FAILED|3:0|00:00:00",
        "662.batch|batch|FAILED|3:0|00:00:00",
    ]


def test_submitit_and_snakemake_queries() -> None:
    recs = _verified_records()
    cols = sa.parse_fields("JobID,State")
    assert sa.render_sacct(cols, sa.rows(recs[:1], now=T0),
                           parsable=pf.Parsable.NO_TRAILING) == [
        "JobID|State", "662|FAILED", "662.batch|FAILED"]
    cols = sa.parse_fields("JobIdRaw,State")
    assert sa.render_sacct(cols, sa.rows(recs, True, now=T0), header=False,
                           parsable=pf.Parsable.NO_TRAILING) == ["662|FAILED", "663|COMPLETED"]


def test_parsable_trailing_and_delimiter() -> None:
    cols = sa.parse_fields("jobid,state")
    rows = sa.rows(_verified_records()[:1], True, now=T0)
    assert sa.render_sacct(cols, rows, parsable=pf.Parsable.TRAILING) == [
        "JobID|State|", "662|FAILED|"]
    assert sa.render_sacct(cols, rows, parsable=pf.Parsable.NO_TRAILING, delimiter=",") == [
        "JobID,State", "662,FAILED"]


def test_cancelled_by_is_cut_with_plus() -> None:
    rec = _record(670, "CANCELLED", 0)
    rec.job.cancelled, rec.job.cancelled_by = True, 0
    cols = sa.parse_fields("State,State%20")
    lines = sa.render_sacct(cols, sa.rows([rec], True, now=T0))
    assert lines[2] == "CANCELLED+       CANCELLED by 0 "
    assert sa.render_sacct(cols, sa.rows([rec], True, now=T0),
                           parsable=pf.Parsable.NO_TRAILING)[1] == "CANCELLED by 0|CANCELLED by 0"


def test_prefix_matching_and_width_overrides() -> None:
    cols = sa.parse_fields("jobid,elap%-12,STATE%5,nodel,alloc")
    assert [(c.name, c.width) for c in cols] == [
        ("JobID", -12), ("Elapsed", -12), ("State", 5), ("NodeList", 15), ("AllocCPUS", 10)]
    with pytest.raises(pf.FormatError) as err:
        sa.parse_fields("JobID,bogus")
    assert str(err.value) == 'Invalid field requested: "bogus"'


def test_job_and_step_field_values() -> None:
    rec = _verified_records()[0]
    cols = sa.parse_fields(
        "JobIDRaw,Start,End,Submit,Eligible,Timelimit,NodeList,User,UID,Group,ReqMem,"
        "ReqCPUS,NNodes,AllocNodes,WorkDir,Reason,Restarts,Cluster,QOS,ElapsedRaw,NCPUS"
    )
    job_row, step_row = (sa.row_values(cols, r) for r in sa.rows([rec], now=T0))
    ts, sub = "2026-12-02T11:40:35", "2026-12-02T11:40:34"
    assert job_row == ["662", ts, ts, sub, sub, "UNLIMITED", "localhost", "root", 0, "root",
                       "1G", 1, 1, 1, "/tmp", "None", 0, "cluster", "normal", 0, 1]
    assert step_row == ["662.batch", ts, ts, sub, sub, None, "localhost", None, None, None,
                        "1G", 1, 1, 1, "/tmp", None, None, "cluster", None, 0, 1]


def test_pending_job_values() -> None:
    rec = JobRecord(cluster="c", job=JobInfo(job_id=9, state="PENDING", reason="Priority",
                                             submit_time=T0, num_nodes=1, num_cpus=2))
    cols = sa.parse_fields("AllocCPUS,Start,End,NodeList,Elapsed,Reason,Timelimit,State")
    lines = sa.render_sacct(cols, sa.rows([rec], now=T0 + 100), header=False)
    assert lines == ["         0             Unknown             Unknown   None assigned "
                     "  00:00:00               Priority Partition+    PENDING "]


def test_running_elapsed_uses_now() -> None:
    rec = _verified_records()[0]
    rec.job.state, rec.job.end_time = "RUNNING", 0
    rec.steps[0].state, rec.steps[0].end_time = "RUNNING", 0
    cols = sa.parse_fields("Elapsed,End")
    got = [sa.row_values(cols, r) for r in sa.rows([rec], now=T0 + 3723)]
    assert got == [["01:02:03", "Unknown"], ["01:02:03", "Unknown"]]


def test_renderer_numbers_and_blanks() -> None:
    cols = [pf.Column("N", 3), pf.Column("S", -4), pf.Column("B", 2)]
    assert pf.render(cols, [[12345, "abcdef", None]]) == [
        "  N S     B ", "--- ---- -- ", "12345 abc+    "]


@pytest.mark.parametrize(("kb", "text"), [(0, "0"), (1024, "1M"), (2000, "2000K"), (3 * 1024 * 1024, "3G"),
                                          (1536, "1536K")])
def test_sizes_are_promoted_only_when_exact(kb: int, text: str) -> None:
    assert sacct_usage.format_kb(kb) == text


@pytest.mark.parametrize(("usec", "text"), [(4_000, "00:00.004"), (61_250_000, "01:01.250"),
                                            (3_600_000_000, "01:00:00"), (90_061_000_000, "1-01:01:01")])
def test_cpu_times(usec: int, text: str) -> None:
    assert sacct_usage.format_cpu_time(usec) == text


def test_absurd_widths_are_refused() -> None:
    """`%999999999` would print a gigabyte per cell; a 20-digit one overflowed."""
    for spec in ("jobid%99999999999999999999", "jobid%-999999999"):
        with pytest.raises(pf.FormatError):
            pf.parse_field_list(spec, {"JobID": 12})
