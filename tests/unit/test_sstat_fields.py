"""sstat: -j parsing, step choice, the field table and the command's messages (cli/sstat_fields.py,
cli/sstat.py; renderer and formats of cli-sacct-sacctmgr-sprio-sshare.md §1, §2.4)."""

from __future__ import annotations

from typing import Any

import pytest

from cli import sstat, sstat_fields
from cli.app import run
from cli.print_fields import FormatError, Parsable
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.rpc import messages as pb


def _usage(job_id: int = 42, step: str = "batch", **values: Any) -> Any:
    fields = dict(node="node1", ntasks=1, max_rss_kb=105_123, current_rss_kb=102_400,
                  user_cpu_usec=3_500_000, system_cpu_usec=250_000)
    fields.update(values)
    return pb.StepUsageInfo(job_id=job_id, step_id=step, **fields)


# ---- -j ---------------------------------------------------------------------------------------


def test_job_steps_are_parsed_from_repeated_and_comma_separated_items() -> None:
    parsed = sstat_fields.parse_job_steps(["42,43.batch", "44.0", "45.extern"])
    assert parsed == [sstat_fields.JobStep(42), sstat_fields.JobStep(43, "batch"),
                      sstat_fields.JobStep(44, "0"), sstat_fields.JobStep(45, "extern")]


@pytest.mark.parametrize("item", ["x", "42.foo", "42.", ".batch", "0", "-1", "4_2"])
def test_bad_job_ids_are_refused(item: str) -> None:
    with pytest.raises(ValueError, match=f"^Invalid job id: {item}$"):
        sstat_fields.parse_job_steps([item])


def test_a_given_step_selects_only_that_step() -> None:
    steps = [_usage(step="batch"), _usage(step="0")]
    assert [s.step_id for s in sstat_fields.select_steps(steps, "batch", False)] == ["batch"]
    assert sstat_fields.select_steps(steps, "3", True) == []


def test_without_a_step_the_lowest_running_step_is_shown_numbered_before_batch() -> None:
    steps = [_usage(step="extern"), _usage(step="batch"), _usage(step="10"), _usage(step="2")]
    assert [s.step_id for s in sstat_fields.select_steps(steps, None, False)] == ["2"]
    everything = sstat_fields.select_steps(steps, None, True)
    assert [s.step_id for s in everything] == ["2", "10", "batch", "extern"]
    # a plain batch job: its batch step (Slurm would show nothing here)
    assert [s.step_id for s in sstat_fields.select_steps([_usage()], None, False)] == ["batch"]


# ---- fields -----------------------------------------------------------------------------------


def test_default_fields_padded_like_sacct() -> None:
    columns = sstat_fields.parse_fields()
    lines = sstat_fields.render_sstat(columns, [_usage()])
    assert lines == [
        "JobID            MaxRSS MaxRSSNode MaxRSSTask     AveRSS     MinCPU MinCPUNode MinCPUTask "
        "    AveCPU   NTasks   TotalCPU ",
        "------------ ---------- ---------- ---------- ---------- ---------- ---------- ---------- "
        "---------- -------- ---------- ",
        "42.batch        105123K      node1          0       100M  00:03.750      node1          0 "
        " 00:03.750        1  00:03.750 ",
    ]


def test_parsable_output_and_field_abbreviations() -> None:
    columns = sstat_fields.parse_fields("jobid,maxrss,totalcpu,ntasks")
    assert [c.name for c in columns] == ["JobID", "MaxRSS", "TotalCPU", "NTasks"]
    step = _usage(user_cpu_usec=7_200_000_000, system_cpu_usec=0, max_rss_kb=2 * 1024 * 1024)
    assert sstat_fields.render_sstat(columns, [step], parsable=Parsable.NO_TRAILING) == [
        "JobID|MaxRSS|TotalCPU|NTasks", "42.batch|2G|02:00:00|1"]
    assert sstat_fields.render_sstat(columns, [step], parsable=Parsable.TRAILING, header=False) == [
        "42.batch|2G|02:00:00|1|"]


def test_averages_are_per_task() -> None:
    columns = sstat_fields.parse_fields("AveRSS,AveCPU,MinCPU,TotalCPU,Nodelist%-6")
    step = _usage(step="0", ntasks=4, current_rss_kb=4096, user_cpu_usec=8_000_000, system_cpu_usec=0)
    assert sstat_fields.row_values(columns, step) == ["1M", "00:02.000", "00:02.000", "00:08.000", "node1"]


def test_zero_usage_and_width_override() -> None:
    columns = sstat_fields.parse_fields("JobID%-8,MaxRSS%4")
    step = _usage(job_id=1234567, max_rss_kb=0, current_rss_kb=0, user_cpu_usec=0, system_cpu_usec=0)
    assert sstat_fields.render_sstat(columns, [step], header=False) == ["1234567+    0 "]


def test_unknown_field() -> None:
    with pytest.raises(FormatError, match='Invalid field requested: "Bogus"'):
        sstat_fields.parse_fields("JobID,Bogus")


def test_help_format_is_slurms_51_fields() -> None:
    lines = sstat_fields.help_format()   # real sstat 22.05.8's -e, first and last lines
    assert len(" ".join(lines).split()) == 51
    assert lines[0] == "AveCPU              AveCPUFreq          AveDiskRead         AveDiskWrite       "
    assert lines[-1] == "TRESUsageOutMinNode TRESUsageOutMinTask TRESUsageOutTot    "
    assert set(" ".join(lines).split()) | {"TotalCPU"} == set(sstat_fields.FIELDS)


def test_fields_nothing_gathers_print_as_slurm_without_the_plugins() -> None:
    columns = sstat_fields.parse_fields("MaxVMSize,AveDiskRead,MaxPagesNode,ReqCPUFreqGov,TRESUsageOutMaxTask")
    assert sstat_fields.row_values(columns, _usage()) == [0, 0, "node1", "Unknown", "energy=0,fs/disk=0"]


# ---- the command ------------------------------------------------------------------------------


@pytest.fixture()
def controller(monkeypatch: pytest.MonkeyPatch) -> dict[int, Any]:
    """Replies of GetStepUsage by job id: a list of steps, or a SlurmError to raise."""
    replies: dict[int, Any] = {}

    def call(method: str, request: Any, reply_type: Any, timeout: float = 30.0) -> Any:
        assert method == "GetStepUsage"
        reply = replies[request.job_id]
        if isinstance(reply, SlurmError):
            raise reply
        return reply_type(steps=[s for s in reply if request.step_id in ("", s.step_id)])

    monkeypatch.setattr(sstat.client, "controller", call)
    return replies


def _run(*args: str) -> int:
    with pytest.raises(SystemExit) as exit_info:
        run("sstat", sstat.sstat, list(args))
    return int(exit_info.value.code or 0)


def test_sstat_prints_the_running_step(controller: dict[int, Any], capsys: pytest.CaptureFixture[str]) -> None:
    controller[42] = [_usage()]
    assert _run("-j", "42", "-P", "-o", "JobID,MaxRSS,NTasks") == 0
    assert capsys.readouterr() == ("JobID|MaxRSS|NTasks\n42.batch|105123K|1\n", "")


def test_sstat_errors_per_job_and_exit_1(controller: dict[int, Any], capsys: pytest.CaptureFixture[str]) -> None:
    controller[42] = [_usage()]
    controller[43] = []
    controller[44] = SlurmError(Strerror.ACCESS_DENIED)
    controller[45] = SlurmError(Strerror.INVALID_JOB_ID)
    assert _run("-j", "43,42,44", "-j", "45", "-j", "42.0", "-n", "-p", "-o", "jobid") == 1
    out, err = capsys.readouterr()
    assert out == "42.batch|\n"
    assert err.splitlines() == [
        "sstat: error: no steps running for job 43",
        "sstat: error: couldn't get steps for job 44: Access/permission denied",
        "sstat: error: couldn't get steps for job 45: Invalid job id specified",
        "sstat: error: no steps running for job 42.0",
    ]


def test_sstat_needs_jobs(controller: dict[int, Any], capsys: pytest.CaptureFixture[str]) -> None:
    assert _run() == 1
    assert capsys.readouterr().err == "sstat: error: You didn't give me any jobs to stat.\n"
    assert _run("-j", "42", "-o", "bogus") == 1
    assert capsys.readouterr().err == 'sstat: error: Invalid field requested: "bogus"\n'


def test_tres_usage_so_far_includes_the_gpus_sampled() -> None:
    step = _usage(ntasks=2, user_cpu_usec=120_000_000, system_cpu_usec=0)
    step.gpus.add(node="node1", index=1, samples=3, util_ave=55, util_max=97, mem_max_bytes=512 * 2**20)
    columns = sstat_fields.parse_fields("TRESUsageInAve,TRESUsageInMax,TRESUsageInTot")
    assert sstat_fields.row_values(columns, step) == [
        "cpu=00:01:00,energy=0,fs/disk=0,gres/gpumem=256M,gres/gpuutil=27,mem=105123K,pages=0,vmem=0",
        "cpu=00:01:00,energy=0,fs/disk=0,gres/gpumem=512M,gres/gpuutil=97,mem=105123K,pages=0,vmem=0",
        "cpu=00:02:00,energy=0,fs/disk=0,gres/gpumem=512M,gres/gpuutil=55,mem=105123K,pages=0,vmem=0"]
    assert "gres/" not in str(sstat_fields.row_values(columns, _usage())[0])
