"""Numbers out of Slurm's range, from alice through the real CLIs and straight on the wire: each
is refused with Slurm's words, nothing is journaled, and squeue, scontrol show job and a restarted
controller keep working for everyone (a TimeLimit of 99999999999999999999 once broke all three)."""
from __future__ import annotations

import pytest

from .conftest import BIN, Cluster, wait_for

HUGE = "99999999999999999999"


@pytest.mark.parametrize(("args", "error"), [
    (("sbatch", "-t", HUGE), "sbatch: error: Invalid --time specification"),
    (("sbatch", "-n", HUGE), "sbatch: error: Numeric argument (9223372036854775807) to big for --ntasks."),
    (("sbatch", "-c", "65535"), "sbatch: error: Invalid --cpus-per-task specification"),
    (("sbatch", "--ntasks-per-node", "65534", "-N", "99999"), "sbatch: error: Invalid --ntasks-per-node specification"),
    (("sbatch", "--mem", "99999999999999999999999"), "sbatch: error: Invalid --mem specification"),
    (("sbatch", "--mem-per-cpu", "9999999999T"), "sbatch: error: Invalid --mem-per-cpu specification"),
    (("sbatch", "--nice=2147483646"), "sbatch: error: Invalid --nice value, out of range (+/- 2147483645)"),
    (("sbatch", "--array=0-99999999999"), "sbatch: error: Invalid --array specification"),
    (("sbatch", "--gpus", HUGE), "sbatch: error: Invalid --gpus specification"),
    (("sbatch", "--begin", f"now+{HUGE}"), "sbatch: error: Invalid --begin specification"),
    (("sbatch", "--dependency", f"afterok:{HUGE}"), None),   # the controller's refusal, below
    (("scancel", HUGE), f"scancel: error: Invalid job id {HUGE}"),
    (("scancel", f"{HUGE}.0"), f"scancel: error: Invalid job id {HUGE}.0"),
    (("scontrol", "update", f"jobid={HUGE}", "TimeLimit=5"), f"scontrol: error: Invalid job id: {HUGE}"),
    (("scontrol", "show", "step", f"{HUGE}.0"), "scontrol: error: Invalid job step id specified"),
])
def test_cli_refuses_numbers_out_of_range(cluster: Cluster, args: tuple[str, ...], error: str | None) -> None:
    extra = ("--wrap", "true") if args[0] == "sbatch" else ()
    result = cluster.run(*args, *extra, user="alice")
    assert result.returncode == (255 if args[1].startswith("--mem") else 1), result   # real sbatch's codes
    assert "Traceback" not in result.stderr and "<class" not in result.stderr
    if error is not None:
        assert result.stderr.splitlines()[-1] == error
    else:
        assert result.stderr.startswith("sbatch: error: "), result.stderr


def test_scontrol_update_numbers_out_of_range_change_nothing(cluster: Cluster) -> None:
    job = cluster.sbatch("--hold", "-t", "10", "-o", "/dev/null", "--array=1-2", "--wrap", "true", user="alice")
    for setting, error in [
        (f"TimeLimit={HUGE}", "Invalid TimeLimit value"),
        (f"TimeLimit+={HUGE}", "Invalid TimeLimit value"),
        ("TimeLimit=4294967294", "Invalid TimeLimit value"),
        (f"Priority={HUGE}", f"Invalid Priority value: {HUGE}"),
        ("Nice=2147483646", "Nice value out of range (+/- 2147483645). Value ignored"),
        (f"NumCPUs={HUGE}", f"Invalid NumCPUs value: {HUGE}"),
        (f"ArrayTaskThrottle={HUGE}", "Invalid ArrayTaskThrottle value"),
    ]:
        result = cluster.run("scontrol", "update", f"jobid={job}", setting, user="alice")
        assert (result.returncode, result.stderr) == (1, f"scontrol: error: {error}\n"), setting
    # Within the wire type but beyond Slurm's range: the controller's own check answers, as root.
    big = cluster.run("scontrol", "update", f"jobid={job}", "TimeLimit+=4294967290", user="root")
    assert big.stderr == f"Requested time limit is invalid (missing or exceeds some limit) for job {job}\n"
    assert cluster.job_field(job, "l") == "10:00"
    cluster.run("scancel", str(job), user="alice", check=True)


# Straight to the controller, past the CLI's checks: what a crafted client sends.
_WIRE = """
import sys
from cli import client
from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

def desc(**numbers):
    return pb.JobDesc(name="wire", script="#!/bin/sh\\ntrue\\n", work_dir="/tmp", std_out="/dev/null",
                      environment=["PATH=/bin"], **numbers)

job_id = int(sys.argv[1])
attempts = [
    ("SubmitBatchJob", pb.SubmitRequest(job=desc(time_limit_min=(1 << 63) - 1)), pb.SubmitReply),
    ("SubmitBatchJob", pb.SubmitRequest(job=desc(time_limit_min=-7)), pb.SubmitReply),
    ("SubmitBatchJob", pb.SubmitRequest(job=desc(min_nodes=0xFFFFFFFF)), pb.SubmitReply),
    ("SubmitBatchJob", pb.SubmitRequest(job=desc(num_tasks=0xFFFFFFFE)), pb.SubmitReply),
    ("SubmitBatchJob", pb.SubmitRequest(job=desc(cpus_per_task=0xFFFFFFFF)), pb.SubmitReply),
    ("SubmitBatchJob", pb.SubmitRequest(job=desc(mem_per_cpu_mb=(1 << 64) - 1)), pb.SubmitReply),
    ("SubmitBatchJob", pb.SubmitRequest(job=desc(nice=-(1 << 31))), pb.SubmitReply),
    ("SubmitBatchJob", pb.SubmitRequest(job=desc(begin_time=(1 << 63) - 1)), pb.SubmitReply),
    ("SubmitBatchJob", pb.SubmitRequest(job=desc(array="0-99999999999")), pb.SubmitReply),
    ("SubmitBatchJob", pb.SubmitRequest(job=desc(gres="gpu:99999999999")), pb.SubmitReply),
]
for setting in ("TimeLimit=99999999999999999999", "Priority=4294967295", "Nice=-99999999999",
                "NumCPUs=99999999999999999999", "ArrayTaskThrottle=99999999999999999999"):
    attempts.append(("UpdateJobs", pb.JobUpdateRequest(job_ids=[job_id], action="update", settings=[setting]),
                     pb.JobUpdateReply))
attempts += [
    ("CreateStep", pb.StepRequest(job_id=job_id, argv=["true"], pty=True, pty_rows=70000, pty_cols=80), pb.StepReply),
    ("SignalJobs", pb.SignalRequest(job_ids=[job_id], signal=99999), pb.SignalReply),
]
for method, request, reply_type in attempts:
    try:
        reply = client.controller(method, request, reply_type)
    except SlurmError as exc:
        print("refused:", exc.strerror)
        continue
    errors = [r.error for r in getattr(reply, "results", [])]
    print("refused:", errors[0] if errors and errors[0] else f"ACCEPTED {reply}")
"""


def test_wire_numbers_out_of_range_are_refused_and_survive_a_restart(cluster: Cluster) -> None:
    job = cluster.sbatch("--hold", "-t", "10", "-o", "/dev/null", "--wrap", "true", user="alice")
    result = cluster.run(str(BIN / "python"), "-c", _WIRE, str(job), user="alice")
    assert result.returncode == 0, result.stderr
    answers = result.stdout.splitlines()
    assert len(answers) == 17 and not any("ACCEPTED" in a for a in answers), answers
    assert answers[:2] == ["refused: Requested time limit is invalid (missing or exceeds some limit)"] * 2
    assert answers[2:8] == ["refused: Node count specification invalid", "refused: Task count specification invalid",
                            "refused: CPU count specification invalid",
                            "refused: Memory required by task is not available", "refused: Invalid --nice value",
                            "refused: Invalid time specified"]
    assert answers[8:10] == ["refused: Invalid job array specification",
                             "refused: Invalid generic resource (gres) specification"]
    assert answers[10] == "refused: Requested time limit is invalid (missing or exceeds some limit)"
    assert answers[15:] == ["refused: Invalid argument"] * 2
    # Everyone can still read the queue, also after a restart replays the journal.
    cluster.stop("ctld")
    cluster.start("ctld")
    wait_for(lambda: cluster.run("squeue", "-h", "-j", str(job), "-o", "%i %l", user="bob").stdout == f"{job} 10:00\n",
             30)
    assert "TimeLimit=00:10:00" in cluster.run("scontrol", "show", "job", str(job), user="bob", check=True).stdout
    cluster.run("scancel", str(job), user="alice", check=True)
