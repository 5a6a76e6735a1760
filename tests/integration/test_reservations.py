"""Reservations on a real cluster, as root, alice and bob: only root may create them (Slurm's
error for others), jobs that name one run only on its nodes and only for its users, other jobs
stay off its nodes (MAINT with Slurm's reason), the reservation survives a controller restart, a
reservation in use cannot be deleted, and `scontrol show res` / `sinfo -T` / squeue show it."""
from __future__ import annotations

import signal

from .conftest import Cluster, wait_for


def _reasons(cluster: Cluster, job_id: int) -> str:
    return cluster.job_field(job_id, "r")


def test_only_root_creates_reservations(cluster: Cluster) -> None:
    result = cluster.run("scontrol", "create", "reservation", "starttime=now", "duration=10", "users=alice",
                         "nodes=node1", user="alice")
    assert (result.returncode, result.stderr) == (1, "Error creating the reservation: Invalid user id\n")
    result = cluster.run("scontrol", "create", "reservation", "starttime=now", "users=alice", "nodes=node1")
    assert (result.returncode, result.stderr) == (
        1, "scontrol: error: An end time or duration must be given.  No reservation created.\n")
    assert cluster.run("scontrol", "show", "res").stdout == "No reservations in the system\n"


def test_a_reservation_for_alice_across_a_restart(cluster: Cluster) -> None:
    created = cluster.run("scontrol", "create", "res", "ReservationName=lab", "StartTime=now", "Duration=30",
                          "Users=alice", "Nodes=node2", check=True)
    assert created.stdout == "Reservation created: lab\n"
    try:
        shown = cluster.run("scontrol", "show", "reservation", "lab", user="bob", check=True).stdout
        assert shown.startswith("ReservationName=lab StartTime=") and " Duration=00:30:00\n" in shown
        assert "   Nodes=node2 NodeCnt=1 CoreCnt=2 Features=(null) PartitionName=(null) Flags=SPEC_NODES\n" in shown
        assert "   Users=alice Groups=(null) Accounts=(null) Licenses=(null) State=ACTIVE " in shown
        rows = cluster.run("sinfo", "-T", check=True).stdout.splitlines()
        assert rows[0].split() == ["RESV_NAME", "STATE", "START_TIME", "END_TIME", "DURATION", "NODELIST"]
        assert rows[1].split()[:2] == ["lab", "ACTIVE"] and rows[1].split()[-2:] == ["00:30:00", "node2"]
        for user, name, error in (("bob", "lab", "Access denied to requested reservation"),
                                  ("alice", "nope", "Requested reservation is invalid")):
            refused = cluster.run("sbatch", f"--reservation={name}", "--wrap", "true", user=user)
            assert (refused.returncode, refused.stderr) == (1, f"sbatch: error: Batch job submission failed: {error}\n")
        go = cluster.work_dir("alice") / "resv.go"
        inside = cluster.sbatch("--reservation=lab", "-o", "/dev/null", "--wrap",
                                f"while [ ! -e {go} ]; do sleep 0.2; done", user="alice")
        cluster.wait_state(inside, "RUNNING")
        assert (cluster.job_field(inside, "N"), cluster.job_field(inside, "v")) == ("node2", "lab")
        assert "\n   Reservation=lab\n" in cluster.run("scontrol", "show", "job", str(inside)).stdout
        outside = cluster.sbatch("-w", "node2", "-t", "5", "-o", "/dev/null", "--wrap", "true", user="bob")
        other = "ReqNodeNotAvail, May be reserved for other job"   # real Slurm 22.05's words
        wait_for(lambda: _reasons(cluster, outside) == other)
        cluster.stop("ctld", signal.SIGKILL)
        cluster.start("ctld")
        wait_for(lambda: cluster.run("scontrol", "show", "res", "lab").stdout == shown, timeout=30)
        wait_for(lambda: _reasons(cluster, outside) == other, timeout=30)
        busy = cluster.run("scontrol", "delete", "reservation=lab")
        assert (busy.returncode, busy.stderr) == (1, "delete_reservation reservation=lab: Requested reservation is in use\n")
        go.touch()
        cluster.wait_state(inside, "COMPLETED", timeout=30)
        go.unlink()
    finally:
        cluster.run("scontrol", "delete", "ReservationName=lab")
    cluster.wait_state(outside, "COMPLETED", timeout=30)
    gone = cluster.run("scontrol", "show", "res", "lab")
    assert (gone.returncode, gone.stdout) == (1, "Reservation lab not found\n")   # as real Slurm 22.05 answers


def test_maintenance_keeps_jobs_off_with_slurms_reason(cluster: Cluster) -> None:
    cluster.run("scontrol", "create", "reservation", "ReservationName=maint", "StartTime=now", "Duration=10",
                "Users=root", "Nodes=ALL", "Flags=MAINT,IGNORE_JOBS", check=True)
    try:
        waiting = cluster.sbatch("-o", "/dev/null", "--wrap", "true", user="bob")
        wait_for(lambda: _reasons(cluster, waiting) == "ReqNodeNotAvail, Reserved for maintenance")
        shown = cluster.run("scontrol", "show", "job", str(waiting)).stdout
        assert " Reason=ReqNodeNotAvail,_Reserved_for_maintenance " in shown
        assert cluster.run("sinfo", "-h", "-N", "-o", "%N %t").stdout == "node1 maint\nnode2 maint\n"
        updated = cluster.run("scontrol", "update", "ReservationName=maint", "Flags=-MAINT", check=True)
        assert updated.stdout == "Reservation updated.\n"
        wait_for(lambda: _reasons(cluster, waiting) == "ReqNodeNotAvail, May be reserved for other job")
        assert "State=IDLE+RESERVED " in cluster.run("scontrol", "show", "node", "node1").stdout
    finally:
        cluster.run("scontrol", "delete", "ReservationName=maint", check=True)
    cluster.wait_state(waiting, "COMPLETED", timeout=30)


def test_accounting_records_reservations_and_the_jobs_in_them(cluster: Cluster) -> None:
    cluster.run("scontrol", "create", "reservation", "ReservationName=acct", "StartTime=now", "Duration=30",
                "Users=alice", "Nodes=node1", check=True)
    try:
        job = cluster.sbatch("--reservation=acct", "-o", "/dev/null", "--wrap", "true", user="alice")
        cluster.wait_state(job, "COMPLETED", timeout=30)
        wait_for(lambda: cluster.run("sacct", "-X", "-n", "-P", "-j", str(job), "-o", "JobID,Reservation",
                                     user="alice").stdout == f"{job}|acct\n", timeout=30)
    finally:
        cluster.run("scontrol", "delete", "ReservationName=acct", check=True)
    fields = "Name,TRES,NodeNames,Flags"
    wait_for(lambda: cluster.run("sacctmgr", "-n", "-P", "show", "reservation", "names=acct", f"format={fields}",
                                 user="bob").stdout == "acct|cpu=2|node1|SPEC_NODES\n", timeout=30)
    # ReservationId: the reservation's id, as sacctmgr numbers it (real Slurm 22.05 fills it)
    resv_id = cluster.run("sacctmgr", "-n", "-P", "show", "reservation", "names=acct", "format=Id",
                          user="bob", check=True).stdout.strip()
    shown = cluster.run("sacct", "-n", "-P", "-j", str(job), "-o", "JobID,ReservationId", user="alice", check=True)
    assert resv_id.isdigit() and shown.stdout.splitlines()[0] == f"{job}|{resv_id}"
    listed = cluster.run("sacctmgr", "show", "reservation", user="bob", check=True).stdout.splitlines()
    assert listed[0].split() == ["Cluster", "Name", "TRES", "TimeStart", "TimeEnd", "UnusedWall"]
    assert any(line.split()[1:3] == ["acct", "cpu=2"] for line in listed[2:])


def test_a_job_ends_with_its_reservation(cluster: Cluster) -> None:
    cluster.run("scontrol", "create", "reservation", "ReservationName=brief", "StartTime=now",
                "EndTime=now+8seconds", "Users=alice", "Nodes=node1", check=True)
    job = cluster.sbatch("--reservation=brief", "-o", "/dev/null", "--wrap", "sleep 300", user="alice")
    cluster.wait_state(job, "TIMEOUT", timeout=40)
    assert cluster.job_field(job, "r") == "TimeLimit"
    wait_for(lambda: cluster.run("scontrol", "show", "res").stdout == "No reservations in the system\n")


def test_a_flex_hourly_reservation(cluster: Cluster) -> None:
    """Flags=FLEX,HOURLY shown as real Slurm 22.05 shows them; a job of a FLEX reservation that
    starts in an hour runs now, on a node outside it."""
    cluster.run("scontrol", "create", "reservation", "ReservationName=flex", "StartTime=now+1hour", "Duration=30",
                "Users=alice", "Nodes=node1", "Flags=hourly,flex", check=True)
    try:
        shown = cluster.run("scontrol", "show", "res", "flex", check=True).stdout
        assert "   Nodes=node1 NodeCnt=1 CoreCnt=2 Features=(null) PartitionName=(null) " \
               "Flags=FLEX,HOURLY,SPEC_NODES\n" in shown
        early = cluster.sbatch("--reservation=flex", "-w", "node2", "-o", "/dev/null", "--wrap", "true", user="alice")
        cluster.wait_state(early, "COMPLETED", timeout=30)
    finally:
        cluster.run("scontrol", "delete", "ReservationName=flex", check=True)


def test_a_core_reservation(cluster: Cluster) -> None:
    """CoreCnt=1, laid out as real Slurm 22.05 shows it (its cores listed while in force); other
    users' jobs use the node's other core, a job needing both waits for Resources (as there)."""
    cluster.run("scontrol", "create", "reservation", "ReservationName=core", "StartTime=now", "Duration=30",
                "Users=alice", "CoreCnt=1", check=True)
    try:
        shown = cluster.run("scontrol", "show", "res", "core", check=True).stdout
        assert "   Nodes=node1 NodeCnt=1 CoreCnt=1 Features=(null) PartitionName=debug Flags=\n" \
               "     NodeName=node1 CoreIDs=0\n   TRES=cpu=1\n" in shown
        both = cluster.sbatch("-n2", "-w", "node1", "-o", "/dev/null", "--wrap", "true", user="bob")
        wait_for(lambda: _reasons(cluster, both) == "Resources")
        beside = cluster.sbatch("-n1", "-t", "1", "-w", "node1", "-o", "/dev/null", "--wrap", "true", user="bob")
        inside = cluster.sbatch("--reservation=core", "-o", "/dev/null", "--wrap", "true", user="alice")
        for job in (beside, inside):
            cluster.wait_state(job, "COMPLETED", timeout=30)
        assert cluster.job_field(inside, "N") == "node1" and cluster.job_field(both, "T") == "PENDING"
    finally:
        cluster.run("scontrol", "delete", "ReservationName=core", check=True)
    cluster.wait_state(both, "COMPLETED", timeout=30)


def test_refusals_in_real_slurms_words(cluster: Cluster) -> None:
    for args, user, stderr in (
            (("update", "ReservationName=nope", "Duration=5"), "alice",
             "Error updating the reservation: Invalid user id\nslurm_update error: Invalid user id\n"),
            (("update", "ReservationName=nope", "Duration=5"), None,
             "Error updating the reservation: Requested reservation is invalid\n"
             "slurm_update error: Requested reservation is invalid\n"),
            (("delete", "ReservationName=nope"), "alice", "delete_reservation ReservationName=nope: Invalid user id\n"),
            (("create", "res", "starttime=now", "duration=5", "users=root", "nodes=node1", "flags=bogus"), None,
             "scontrol: error: Error parsing flags bogus.  No reservation created.\n"),
            (("create", "res", "starttime=now", "duration=5", "users=root", "nodes=node1", "foo=bar"), None,
             "scontrol: error: Unknown parameter foo=bar.  No reservation created.\n"),
            (("create", "res", "starttime=now", "duration=5", "users=nosuchuser", "nodes=node1"), None,
             "Error creating the reservation: Invalid user id\n")):
        result = cluster.run("scontrol", *args, user=user)
        assert (result.returncode, result.stderr) == (1, stderr), args


def test_scontrol_update_job_reservation(cluster: Cluster) -> None:
    cluster.run("scontrol", "create", "reservation", "ReservationName=later", "StartTime=now+1hour", "Duration=30",
                "Users=alice", "Nodes=node1", check=True)
    try:
        mine = cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "true", user="alice")
        theirs = cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "true", user="bob")
        cluster.run("scontrol", "update", f"jobid={mine}", "Reservation=later", user="alice", check=True)
        assert cluster.job_field(mine, "v") == "later"
        refused = cluster.run("scontrol", "update", f"jobid={theirs}", "Reservation=later", user="bob")
        assert refused.returncode == 1 and "Access denied to requested reservation" in refused.stderr
        cluster.run("scontrol", "release", str(mine), user="alice", check=True)
        wait_for(lambda: cluster.job_field(mine, "r") == "Reservation")
        cluster.run("scancel", str(mine), str(theirs))
    finally:
        cluster.run("scontrol", "delete", "ReservationName=later", check=True)
