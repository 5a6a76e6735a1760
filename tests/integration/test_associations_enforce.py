"""AccountingStorageEnforce against the real accounting daemon: sacctmgr's associations and QOS
reach the controller's cache (and its durable copy) within a second, and the controller keeps
enforcing them from that copy while the accounting daemon is down."""
from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.rpc import dbd_pb2

from .conftest import Cluster, running_cluster, two_node_spec, wait_for

ENFORCE = "AccountingStorageEnforce=associations,limits,qos"


def _spec(root: Path, name: str):  # type: ignore[no-untyped-def]
    spec = two_node_spec(root, name)
    return dataclasses.replace(spec, extra=(*spec.extra, ENFORCE,
                                            "PartitionName=chemonly Nodes=node1 AllowAccounts=chem",
                                            "PartitionName=nohigh Nodes=node1 DenyQos=high",
                                            "PartitionName=capped Nodes=node2 QOS=partcap"))


@pytest.fixture(scope="module")
def lab() -> Iterator[Cluster]:
    with running_cluster(_spec, wait_idle=False) as c:   # sinfo -N lists nodes once per partition
        wait_for(lambda: c.run("sinfo", "-h", "-N", "-p", "debug", "-o", "%t").stdout == "idle\nidle\n", 30)
        wait_for(lambda: c.run("sacctmgr", "-n", "show", "cluster").returncode == 0)
        yield c


def _mgr(cluster: Cluster, *args: str) -> None:
    cluster.run("sacctmgr", "-i", *args, check=True)


def _cached(cluster: Cluster) -> dbd_pb2.AssociationState:
    path = cluster.spec.state_dir / "ctld" / "associations.state"
    return dbd_pb2.AssociationState.FromString(path.read_bytes()) if path.exists() else dbd_pb2.AssociationState()


def _within(seconds: float, predicate) -> None:  # type: ignore[no-untyped-def]
    """``predicate`` becomes true within ``seconds`` (polled; the point is the deadline).

    What is bounded is when the effect is visible, not how long one check takes: a check (an
    sbatch, several hundred ms on a loaded two-core machine) that started before the deadline
    and saw nothing proves nothing late, so the last one that counts is the first to start
    after it."""
    deadline = time.monotonic() + seconds
    while True:
        started = time.monotonic()
        if predicate():
            return
        assert started < deadline, f"not within {seconds}s"
        time.sleep(0.02)


def test_sacctmgr_change_reaches_the_controllers_durable_cache_within_a_second(lab: Cluster) -> None:
    _mgr(lab, "add", "account", "optics", "Fairshare=30", "GrpTRES=cpu=3")
    _within(1.0, lambda: any(a.key.account == "optics" for a in _cached(lab).associations))
    optics = next(a for a in _cached(lab).associations if a.key.account == "optics" and not a.key.user)
    assert (optics.shares, optics.limits.grp_tres, optics.parent_account) == (30, "cpu=3", "root")
    _mgr(lab, "add", "qos", "fast", "Priority=50", "Preempt=normal", "PreemptMode=requeue")
    _within(1.0, lambda: any(q.name == "fast" for q in _cached(lab).qos))
    fast = next(q for q in _cached(lab).qos if q.name == "fast")
    assert (fast.priority, list(fast.preempt), fast.preempt_mode) == (50, ["normal"], "requeue")


REFUSED_ACCOUNT = ("sbatch: error: Batch job submission failed: "
                   "Invalid account or account/partition combination specified\n")


def _submit(cluster: Cluster, user: str, *args: str):  # type: ignore[no-untyped-def]
    return cluster.run("sbatch", "--parsable", "--hold", *args, "--wrap", "true", user=user)


def _accepted(cluster: Cluster, user: str, *args: str) -> int:
    out = _submit(cluster, user, *args)
    assert out.returncode == 0, out.stderr
    return int(out.stdout.strip())


def test_a_user_without_association_cannot_submit(lab: Cluster) -> None:
    shown = lab.run("scontrol", "show", "config").stdout.splitlines()
    assert "AccountingStorageEnforce = associations,limits,qos" in shown
    out = _submit(lab, "bob")
    assert (out.returncode, out.stdout, out.stderr) == (1, "", REFUSED_ACCOUNT)
    srun = lab.run("srun", "true", user="bob")
    assert srun.returncode == 1
    assert srun.stderr.endswith("srun: error: Unable to allocate resources: "
                                "Invalid account or account/partition combination specified\n")
    salloc = lab.run("salloc", "true", user="bob")
    assert salloc.returncode == 1
    assert salloc.stderr.endswith("salloc: error: Job submit/allocate failed: "
                                  "Invalid account or account/partition combination specified\n")
    assert lab.run("squeue", "-h", "-u", "bob").stdout == ""


def test_default_account_qos_and_checked_account_and_qos(lab: Cluster) -> None:
    _mgr(lab, "add", "account", "physics")
    _mgr(lab, "add", "account", "chem")
    _mgr(lab, "add", "qos", "high")
    _mgr(lab, "add", "user", "alice", "Account=physics")
    job = None

    def submitted() -> bool:
        nonlocal job
        out = _submit(lab, "alice")
        job = int(out.stdout) if out.returncode == 0 else None
        return job is not None

    _within(1.0, submitted)       # sacctmgr's change reaches the controller within a second
    assert lab.run("squeue", "-h", "-j", str(job), "-o", "%a|%q").stdout == "physics|normal\n"
    shown = lab.run("scontrol", "show", "job", str(job)).stdout
    assert "Account=physics QOS=normal" in shown
    assert _submit(lab, "alice", "-A", "chem").stderr == REFUSED_ACCOUNT
    assert _submit(lab, "alice", "-A", "nosuch").stderr == REFUSED_ACCOUNT
    refused = _submit(lab, "alice", "--qos", "high")
    assert (refused.returncode, refused.stderr) == (
        1, "sbatch: error: Batch job submission failed: Invalid qos specification\n")
    _mgr(lab, "modify", "user", "alice", "set", "QOS+=high")
    _within(1.0, lambda: _submit(lab, "alice", "--qos", "high").returncode == 0)
    _mgr(lab, "add", "user", "alice", "Account=chem", "DefaultQOS=high", "QOS=normal,high")
    _within(1.0, lambda: _submit(lab, "alice", "-A", "chem").returncode == 0)
    chem = _accepted(lab, "alice", "-A", "chem")
    assert lab.run("squeue", "-h", "-j", str(chem), "-o", "%a|%q").stdout == "chem|high\n"
    lab.run("scancel", "-u", "alice", check=True)


def test_dbd_down_submissions_are_still_checked_from_the_cache_also_after_a_controller_restart(lab: Cluster) -> None:
    lab.stop("dbd")
    try:
        for restarted in (False, True):
            if restarted:
                lab.stop("ctld")
                lab.start("ctld")
                wait_for(lambda: lab.run("squeue").returncode == 0)
            assert _submit(lab, "bob").stderr == REFUSED_ACCOUNT
            assert _submit(lab, "alice", "-A", "nosuch").stderr == REFUSED_ACCOUNT
            job = _accepted(lab, "alice")
            assert lab.run("squeue", "-h", "-j", str(job), "-o", "%a|%q").stdout == "physics|normal\n"
    finally:
        lab.start("dbd")
        lab.run("scancel", "-u", "alice", check=True)
    # The accounting daemon is back: a change made now reaches the controller again. Its watch
    # waits for the connection, which gRPC retries at least every half second
    # (rpc_auth.RECONNECT_OPTIONS): it is back on the daemon within about 0.6 s of the daemon
    # listening, then a change arrives as in the first test (a second). Bounded on the cache,
    # the mechanism itself; the sbatch after it (itself several hundred ms on a loaded box) is
    # not part of the promise.
    wait_for(lambda: lab.run("sacctmgr", "-n", "show", "cluster").returncode == 0)
    _mgr(lab, "add", "user", "bob", "Account=chem")
    _within(1.0 + 0.6, lambda: any(a.key.user == "bob" for a in _cached(lab).associations))
    _accepted(lab, "bob")
    lab.run("scancel", "-u", "bob", check=True)


POLICY = "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)"


def _reason(cluster: Cluster, job: int) -> str:
    return cluster.run("squeue", "-h", "-j", str(job), "-o", "%T %r").stdout.strip()


def _grant(cluster: Cluster, qos: str, *limits: str) -> None:
    """A new QOS with ``limits`` that alice may use (she is in physics by the tests above)."""
    _mgr(cluster, "add", "qos", qos, *limits)
    _mgr(cluster, "modify", "user", "alice", "set", f"QOS+={qos}")
    _within(1.0, lambda: _submit(cluster, "alice", "--qos", qos, "-t", "1").returncode == 0)
    cluster.run("scancel", "-u", "alice", check=True)


def test_qos_submit_limit_refuses_with_the_reason_as_detail(lab: Cluster) -> None:
    _grant(lab, "few", "MaxSubmitJobsPerUser=2")
    _accepted(lab, "alice", "--qos", "few")
    _accepted(lab, "alice", "--qos", "few")
    out = _submit(lab, "alice", "--qos", "few")
    assert (out.returncode, out.stderr) == (
        1, f"sbatch: error: QOSMaxSubmitJobPerUserLimit\nsbatch: error: Batch job submission failed: {POLICY}\n")
    array = _submit(lab, "alice", "--qos", "few", "--array", "1-3")
    assert array.returncode == 1
    lab.run("scancel", "-u", "alice", check=True)
    _within(5.0, lambda: _submit(lab, "alice", "--qos", "few").returncode == 0)
    lab.run("scancel", "-u", "alice", check=True)


def test_jobs_over_a_running_limit_pend_with_slurms_reason_and_start_when_it_frees(lab: Cluster) -> None:
    _grant(lab, "onejob", "MaxJobsPerUser=1")
    first = lab.sbatch("--qos", "onejob", "--wrap", "sleep 60", user="alice")
    second = lab.sbatch("--qos", "onejob", "--wrap", "sleep 60", user="alice")
    lab.wait_state(first, "RUNNING")
    wait_for(lambda: _reason(lab, second) == "PENDING QOSMaxJobsPerUserLimit")
    lab.run("scancel", str(first), check=True)
    lab.wait_state(second, "RUNNING")
    lab.run("scancel", "-u", "alice", check=True)


def test_wall_limit_pends_or_with_deny_on_limit_is_refused_and_sets_a_missing_time_limit(lab: Cluster) -> None:
    _grant(lab, "short", "MaxWall=10")
    over = lab.sbatch("--qos", "short", "-t", "20", "--wrap", "true", user="alice")
    wait_for(lambda: _reason(lab, over) == "PENDING QOSMaxWallDurationPerJobLimit")
    fits = lab.sbatch("--qos", "short", "--hold", "--wrap", "true", user="alice")
    assert lab.job_field(fits, "l") == "10:00"
    _mgr(lab, "modify", "qos", "short", "set", "Flags=DenyOnLimit")
    _within(1.0, lambda: _submit(lab, "alice", "--qos", "short", "-t", "20").returncode == 1)
    out = _submit(lab, "alice", "--qos", "short", "-t", "20")
    assert out.stderr == f"sbatch: error: QOSMaxWallDurationPerJobLimit\nsbatch: error: Batch job submission failed: {POLICY}\n"
    lab.run("scancel", "-u", "alice", check=True)


def test_account_group_cpu_limit_holds_the_accounts_jobs(lab: Cluster) -> None:
    _mgr(lab, "modify", "account", "physics", "set", "GrpTRES=cpu=2")
    try:
        first = lab.sbatch("-c", "2", "--wrap", "sleep 60", user="alice")
        lab.wait_state(first, "RUNNING")
        second = lab.sbatch("-c", "1", "--wrap", "sleep 60", user="alice")
        wait_for(lambda: _reason(lab, second) == "PENDING AssocGrpCpuLimit")
        other = lab.sbatch("-c", "1", "--wrap", "sleep 60", user="bob")   # chem: not held back
        lab.wait_state(other, "RUNNING")
    finally:
        _mgr(lab, "modify", "account", "physics", "set", "GrpTRES=cpu=-1")
        lab.run("scancel", "-u", "alice")
        lab.run("scancel", "-u", "bob")


def test_partition_access_lists_and_the_partition_qos(lab: Cluster) -> None:
    assert _submit(lab, "alice", "-p", "chemonly").stderr == REFUSED_ACCOUNT
    bob = _accepted(lab, "bob", "-p", "chemonly")
    denied = _submit(lab, "alice", "-p", "nohigh", "--qos", "high")
    assert (denied.returncode, denied.stderr) == (
        1, "sbatch: error: Batch job submission failed: Invalid qos specification\n")
    alice = _accepted(lab, "alice", "-p", "nohigh")
    lab.run("scancel", str(bob), str(alice), check=True)
    shown = lab.run("scontrol", "show", "partition", "chemonly").stdout.splitlines()
    assert shown[1:3] == ["   AllowGroups=ALL AllowAccounts=chem AllowQos=ALL", "   AllocNodes=ALL Default=NO QoS=N/A"]
    assert "   AllowGroups=ALL AllowAccounts=ALL DenyQos=high" in lab.run(
        "scontrol", "show", "partition", "nohigh").stdout.splitlines()
    assert "   AllocNodes=ALL Default=NO QoS=partcap" in lab.run(
        "scontrol", "show", "partition", "capped").stdout.splitlines()
    _mgr(lab, "add", "qos", "partcap", "GrpJobs=1")
    try:
        first = lab.sbatch("-p", "capped", "--wrap", "sleep 60", user="alice")
        lab.wait_state(first, "RUNNING")
        second = lab.sbatch("-p", "capped", "--wrap", "sleep 60", user="alice")
        wait_for(lambda: _reason(lab, second) == "PENDING QOSGrpJobsLimit")
        assert lab.run("squeue", "-h", "-j", str(second), "-o", "%q").stdout == "normal\n"
    finally:
        lab.run("scancel", "-u", "alice")


def test_scontrol_update_of_a_pending_jobs_account_and_qos(lab: Cluster) -> None:
    job = _accepted(lab, "alice")
    assert lab.run("squeue", "-h", "-j", str(job), "-o", "%a|%q").stdout == "physics|normal\n"
    lab.run("scontrol", "update", f"jobid={job}", "account=chem", "qos=high", user="alice", check=True)
    assert lab.run("squeue", "-h", "-j", str(job), "-o", "%a|%q").stdout == "chem|high\n"
    refused = lab.run("scontrol", "update", f"jobid={job}", "account=nosuch", user="alice")
    assert refused.returncode == 1
    assert "Invalid account or account/partition combination specified" in refused.stderr
    other = lab.run("scontrol", "update", f"jobid={job}", "qos=normal", user="bob")
    assert (other.returncode, other.stderr) == (1, f"Invalid user id for job {job}\n")
    assert lab.run("squeue", "-h", "-j", str(job), "-o", "%a|%q").stdout == "chem|high\n"
    _mgr(lab, "modify", "user", "bob", "set", "AdminLevel=Operator")      # operators may change others' jobs
    _within(1.0, lambda: lab.run("scontrol", "update", f"jobid={job}", "qos=normal", user="bob").returncode == 0)
    assert lab.run("squeue", "-h", "-j", str(job), "-o", "%a|%q").stdout == "chem|normal\n"
    _mgr(lab, "modify", "user", "bob", "set", "AdminLevel=None")
    lab.run("scancel", str(job), check=True)


def test_accounting_records_the_account_and_qos_charged(lab: Cluster) -> None:
    job = lab.sbatch("--qos", "normal", "--wrap", "true", user="alice")
    lab.wait_state(job, "COMPLETED")
    wait_for(lambda: lab.run("sacct", "-X", "-n", "-P", "-j", str(job), "-o", "Account,QOS,State",
                             user="alice").stdout == "physics|normal|COMPLETED\n")


def test_deleting_an_association_cancels_its_jobs(lab: Cluster) -> None:
    chem = _accepted(lab, "alice", "-A", "chem")
    physics = _accepted(lab, "alice", "-A", "physics")
    _mgr(lab, "delete", "user", "alice", "where", "account=chem")
    _within(1.0, lambda: lab.job_field(chem, "T") == "CANCELLED")
    assert lab.job_field(physics, "T") == "PENDING"
    assert _submit(lab, "alice", "-A", "chem").stderr == REFUSED_ACCOUNT
    lab.run("scancel", str(physics), check=True)
