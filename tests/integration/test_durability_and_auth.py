"""Crash safety of acknowledged work, node failure, and refusal of forged calls."""
from __future__ import annotations

import asyncio
import signal
import time

import grpc
import pytest

from pyslurm_common.auth import CONTROLLER, CRED_METADATA_KEY, Identity, load_key, sign
from pyslurm_common.rpc import ctld_pb2, ctld_pb2_grpc
from pyslurm_common.rpc_auth import Signer, insecure_channel
from pyslurm_common.rpc_client import Peer

from .conftest import SLURMD_TIMEOUT, Cluster, wait_for


def test_pending_jobs_survive_kill_9_of_the_controller(cluster: Cluster) -> None:
    ids = [cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "true", user="alice") for _ in range(50)]
    cluster.stop("ctld", signal.SIGKILL)
    cluster.start("ctld")
    cluster.wait_idle()
    listed = cluster.run("squeue", "-h", "-u", "alice", "-t", "PD", "-o", "%i %r").stdout.split("\n")
    assert {f"{i} JobHeldUser" for i in ids} <= set(listed)
    cluster.run("scontrol", "release", ",".join(map(str, ids)), user="alice", check=True)
    wait_for(lambda: all(cluster.job_field(i, "T") == "COMPLETED" for i in ids), timeout=60)
    new_id = cluster.sbatch("--hold", "--wrap", "true", user="alice")
    assert new_id > max(ids)  # ids are never reused after a restart
    cluster.run("scancel", str(new_id), user="alice", check=True)


def test_accounting_records_wait_for_the_accounting_daemon(cluster: Cluster) -> None:
    cluster.stop("dbd")
    job_id = cluster.sbatch("--wrap", "true", user="bob")
    cluster.wait_state(job_id, "COMPLETED")
    cluster.stop("ctld", signal.SIGKILL)  # the queued record must survive this too
    cluster.start("ctld")
    cluster.start("dbd")
    cluster.wait_idle()
    wait_for(lambda: cluster.run("sacct", "-n", "-X", "-P", "-j", str(job_id), "-o", "JobID,State",
                                 user="bob").stdout == f"{job_id}|COMPLETED\n", timeout=30)


def test_every_record_arrives_exactly_once_after_an_outage_and_a_controller_restart(cluster: Cluster) -> None:
    cluster.stop("dbd")
    steps = cluster.sbatch("-N", "2", "-o", "/dev/null", "--wrap", "srun -N 2 true; srun -N 1 true", user="alice")
    plain = [cluster.sbatch("-o", "/dev/null", "--wrap", "true", user="bob") for _ in range(5)]
    failed = cluster.sbatch("-o", "/dev/null", "--wrap", "exit 3", user="bob")
    running = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 4", user="alice")   # ends after the outage
    for job in (steps, *plain):
        cluster.wait_state(job, "COMPLETED", timeout=40)
    cluster.wait_state(failed, "FAILED")
    cluster.stop("ctld", signal.SIGKILL)   # queued records must survive this
    cluster.start("ctld")
    cluster.start("dbd")
    cluster.wait_state(running, "COMPLETED", timeout=40)
    ids = [steps, *plain, failed, running]
    expected = sorted([f"{steps}|COMPLETED", f"{steps}.batch|COMPLETED", f"{steps}.0|COMPLETED",
                       f"{steps}.1|COMPLETED", f"{failed}|FAILED", f"{failed}.batch|FAILED",
                       f"{running}|COMPLETED", f"{running}.batch|COMPLETED",
                       *(f"{j}|COMPLETED" for j in plain), *(f"{j}.batch|COMPLETED" for j in plain)])

    def listed() -> list[str]:
        # -D: every record of each id, so a record that arrived twice would show twice
        out = cluster.run("sacct", "-D", "-n", "-P", "-j", ",".join(map(str, ids)), "-o", "JobID,State").stdout
        return sorted(out.splitlines())

    wait_for(lambda: listed() == expected, timeout=40)
    time.sleep(2)                            # the outbox has nothing more to say
    assert listed() == expected


def test_node_that_stops_answering_goes_down_and_its_job_node_fails(cluster: Cluster) -> None:
    blocker = cluster.sbatch("-c", "2", "-o", "/dev/null", "--wrap", "sleep 300", user="alice")
    cluster.wait_state(blocker, "RUNNING")
    busy = cluster.job_field(blocker, "N")
    other = "node2" if busy == "node1" else "node1"
    # --no-requeue: a requeueable batch job would be requeued (JobRequeue=1, as in Slurm)
    victim = cluster.sbatch("--no-requeue", "-o", "/dev/null", "--wrap", "sleep 300", user="alice")
    cluster.wait_state(victim, "RUNNING")
    assert cluster.job_field(victim, "N") == other
    cluster.stop(other, signal.SIGKILL)
    cluster.wait_state(victim, "NODE_FAIL", timeout=SLURMD_TIMEOUT + 10)
    sinfo = cluster.run("sinfo", "-h", "-N", "-o", "%N %t").stdout
    assert f"{other} down*" in sinfo
    cluster.start(other)  # ReturnToService=1: back once it registers; it must also reap the orphan
    cluster.run("scancel", str(blocker), user="alice", check=True)
    cluster.wait_idle()


async def _call_with(cluster: Cluster, credential: str | None) -> grpc.StatusCode:
    address = f"127.0.0.1:{cluster.spec.ctld_port}"
    async with grpc.aio.insecure_channel(address) as channel:
        stub = ctld_pb2_grpc.ControllerStub(channel)
        metadata = ((CRED_METADATA_KEY, credential),) if credential is not None else ()
        try:
            await stub.GetJobs(ctld_pb2.JobQuery(), metadata=metadata, timeout=5)
        except grpc.aio.AioRpcError as exc:
            return exc.code()
    return grpc.StatusCode.OK


async def _controller_audience(cluster: Cluster) -> str:
    peer = Peer(insecure_channel(f"127.0.0.1:{cluster.spec.ctld_port}"), CONTROLLER, Signer(load_key(cluster.spec.key_file)))
    audience = await peer.audience(5)
    await peer.channel.close()
    return audience


@pytest.mark.parametrize("forgery", ["missing", "wrong-key", "tampered", "replayed"])
def test_forged_credentials_are_refused(cluster: Cluster, forgery: str) -> None:
    key = load_key(cluster.spec.key_file)
    audience = asyncio.run(_controller_audience(cluster))
    method, body = "/pyslurm.Controller/GetJobs", ctld_pb2.JobQuery().SerializeToString()

    def credential_as(uid: int, key_: bytes = key) -> str:
        return sign(key_, Identity(uid=uid, gid=0, host="itest"), audience, method, body)

    assert asyncio.run(_call_with(cluster, credential_as(0))) == grpc.StatusCode.OK
    valid = credential_as(0)
    credential = {
        "missing": None,
        "wrong-key": credential_as(0, b"x" * 64),
        "tampered": valid.replace("v2 0 0", "v2 1001 0", 1),
        "replayed": valid,
    }[forgery]
    if forgery == "replayed":
        assert asyncio.run(_call_with(cluster, valid)) == grpc.StatusCode.OK
    assert asyncio.run(_call_with(cluster, credential)) == grpc.StatusCode.UNAUTHENTICATED


def test_users_cannot_read_the_cluster_key(cluster: Cluster) -> None:
    result = cluster.run("cat", str(cluster.spec.key_file), user="bob")
    assert result.returncode != 0 and "Permission denied" in result.stderr


def test_only_root_may_register_nodes_or_drain_them(cluster: Cluster) -> None:
    denied = cluster.run("scontrol", "update", "nodename=node1", "state=drain", "reason=x", user="bob")
    assert (denied.returncode, denied.stderr) == (1, "slurm_update error: Invalid user id\n")
    cluster.run("scontrol", "update", "nodename=node1", "state=drain", "reason=maintenance", check=True)
    assert "node1 drain" in cluster.run("sinfo", "-h", "-N", "-o", "%N %t").stdout
    cluster.run("scontrol", "update", "nodename=node1", "state=resume", check=True)
    cluster.wait_idle()
