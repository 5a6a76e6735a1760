"""Attacks on the credentials, as an ordinary user and as a sniffer on the wire would try them.

* Port squatting: while a daemon is down (an upgrade, a crash), alice binds its port with a gRPC
  server that records the metadata of every call. The controller, the node agents and the auth agent
  keep calling it; not one credential may reach it, since none is sent before the server proved
  that it holds the cluster key, and the users see Slurm's "cannot reach" errors.
* Replay: a credential seen on the wire works once, for its own daemon instance, method and body:
  not again, not at another daemon, not with another body, not after the daemon restarted.
* Launch: a node agent runs nothing without the controller's job credential for exactly that launch.
"""
from __future__ import annotations

import asyncio
import json
import pwd
import signal
import subprocess
import textwrap
from pathlib import Path
from typing import Iterator

import grpc
import pytest

from pyslurm_common import job_credential
from pyslurm_common.auth import CONTROLLER, NODE_AGENT, Identity, load_key
from pyslurm_common.rpc import ctld_pb2, slurmd_pb2, slurmd_pb2_grpc, types_pb2
from pyslurm_common.rpc_auth import Signer, insecure_channel
from pyslurm_common.rpc_client import Peer, SignedChannel

from .conftest import BIN, Cluster, running_cluster, two_node_spec, wait_for

SQUATTER = textwrap.dedent('''\
    """A local user's process holding a stopped daemon's port: records every call's method and metadata."""
    import asyncio, json, sys
    import grpc

    port, log_path = int(sys.argv[1]), sys.argv[2]

    class Recorder(grpc.GenericRpcHandler):
        def service(self, details):
            with open(log_path, "a") as log:
                log.write(json.dumps([details.method, dict(details.invocation_metadata or ())]) + "\\n")
            async def answer(request, context):
                return b"\\x0a\\x05forge\\x12\\x05forge"   # its best guess at a Hello answer
            return grpc.unary_unary_rpc_method_handler(answer)

    async def main():
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((Recorder(),))
        server.add_insecure_port(f"0.0.0.0:{port}")
        await server.start()
        open(log_path + ".ready", "w").close()
        await server.wait_for_termination()

    asyncio.run(main())
''')


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with running_cluster(two_node_spec) as c:
        yield c


class Squatter:
    def __init__(self, cluster: Cluster, port: int) -> None:
        home = cluster.work_dir("alice")
        script = home / "squatter.py"
        script.write_text(SQUATTER)
        self.log = home / f"squat-{port}.jsonl"
        self.log.unlink(missing_ok=True)
        Path(f"{self.log}.ready").unlink(missing_ok=True)
        pw = pwd.getpwnam("alice")
        self.proc = subprocess.Popen([str(BIN / "python"), str(script), str(port), str(self.log)],
                                     user=pw.pw_uid, group=pw.pw_gid, cwd=home, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: Path(f"{self.log}.ready").exists() or self.proc.poll() is not None, timeout=30)
        assert self.proc.poll() is None, "the squatter could not bind the port"

    def calls(self) -> list[tuple[str, dict[str, str]]]:
        if not self.log.exists():
            return []
        return [tuple(json.loads(line)) for line in self.log.read_text().splitlines()]  # type: ignore[misc]

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def assert_nothing_usable_captured(squatter: Squatter) -> None:
    calls = squatter.calls()
    assert calls, "nobody called the squatter: the test proves nothing"
    assert {method for method, _ in calls} == {"/pyslurm.Auth/Hello"}
    assert not [metadata for _, metadata in calls if "x-pyslurm-cred" in metadata]


def test_a_squatter_on_the_accounting_port_gets_no_credential(cluster: Cluster) -> None:
    cluster.stop("dbd")
    squatter = Squatter(cluster, cluster.spec.dbd_port)
    try:
        job = cluster.sbatch("-o", "/dev/null", "--wrap", "true", user="bob")   # the controller's outbox sends it
        sacct = cluster.run("sacct", "-X", "-n", user="bob")                  # the auth agent forwards it
        assert (sacct.returncode, sacct.stderr) == (1, "sacct: error: Problem talking to the database: "
                                                       "Connection refused\n")
        cluster.wait_state(job, "COMPLETED")
        wait_for(lambda: len(squatter.calls()) >= 3, timeout=20)
        assert_nothing_usable_captured(squatter)
    finally:
        squatter.stop()
        cluster.start("dbd")
    wait_for(lambda: cluster.run("sacct", "-X", "-n", "-P", "-j", str(job), "-o", "State",
                                 user="bob").stdout == "COMPLETED\n", timeout=40)


def test_a_squatter_on_the_controller_port_gets_no_credential(cluster: Cluster) -> None:
    cluster.stop("ctld")
    squatter = Squatter(cluster, cluster.spec.ctld_port)
    try:
        squeue = cluster.run("squeue", user="bob")
        assert (squeue.returncode, squeue.stderr) == (
            1, "squeue: error: Unable to contact slurm controller (connect failure)\n")
        scancel = cluster.run("scancel", "-u", "bob", user="bob")
        assert scancel.returncode == 1
        wait_for(lambda: len(squatter.calls()) >= 4, timeout=20)      # node agents' heartbeats come too
        assert_nothing_usable_captured(squatter)
    finally:
        squatter.stop()
        cluster.start("ctld")
    cluster.wait_idle()


def test_a_squatter_on_a_node_agent_port_gets_no_credential(cluster: Cluster) -> None:
    node = cluster.spec.nodes[1]
    cluster.stop(node.name)
    squatter = Squatter(cluster, node.port)
    try:
        cluster.run("scontrol", "reconfigure")          # the controller calls every node agent
        wait_for(lambda: squatter.calls(), timeout=20)
        assert_nothing_usable_captured(squatter)
    finally:
        squatter.stop()
        cluster.start(node.name)
    cluster.wait_idle()


# ---- a credential seen on the wire --------------------------------------------------------------

Metadata = tuple[tuple[str, str], ...]


async def _send(address: str, method: str, body: bytes, metadata: Metadata) -> str:
    async with grpc.aio.insecure_channel(address) as channel:
        try:
            await channel.unary_unary(method)(body, metadata=metadata, timeout=5)
        except grpc.aio.AioRpcError as exc:
            return exc.details() or exc.code().name
    return "OK"


async def _sniffed(cluster: Cluster, method: str, body: bytes) -> Metadata:
    """Alice's credential for one call to the controller, as her auth agent makes it."""
    key = load_key(cluster.spec.key_file)
    alice = pwd.getpwnam("alice")
    ctld = Peer(insecure_channel(f"127.0.0.1:{cluster.spec.ctld_port}"), CONTROLLER, Signer(key))
    metadata = Signer(key, uid=alice.pw_uid, gid=alice.pw_gid).metadata(await ctld.audience(5), method, body)
    await ctld.channel.close()
    return metadata


def test_a_credential_seen_on_the_wire_works_once_for_its_own_call_only(cluster: Cluster) -> None:
    job = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300", user="alice")
    cluster.wait_state(job, "RUNNING")
    ctld = f"127.0.0.1:{cluster.spec.ctld_port}"
    method = "/pyslurm.Controller/SignalJobs"
    body = ctld_pb2.SignalRequest(job_ids=[job], signal=signal.SIGKILL, full=True).SerializeToString()
    other_body = ctld_pb2.SignalRequest(job_ids=[job + 1], signal=signal.SIGKILL).SerializeToString()
    metadata = asyncio.run(_sniffed(cluster, method, body))
    node = cluster.spec.nodes[0]
    outcomes = {
        "other body": asyncio.run(_send(ctld, method, other_body, metadata)),
        "other method": asyncio.run(_send(ctld, "/pyslurm.Controller/UpdateJobs", body, metadata)),
        "first use": asyncio.run(_send(ctld, method, body, metadata)),
        "again": asyncio.run(_send(ctld, method, body, metadata)),
        "accounting": asyncio.run(_send(f"127.0.0.1:{cluster.spec.dbd_port}", "/pyslurm.Accounting/Ping",
                                        types_pb2.Empty().SerializeToString(), metadata)),
        "node agent": asyncio.run(_send(f"127.0.0.1:{node.port}", method, body, metadata)),
    }
    wait_for(lambda: cluster.job_field(job, "T") not in ("RUNNING", "COMPLETING"), timeout=30)
    cluster.stop("ctld", signal.SIGKILL)
    cluster.start("ctld")
    wait_for(lambda: cluster.run("squeue").returncode == 0, timeout=30)
    outcomes["after restart"] = asyncio.run(_send(ctld, method, body, metadata))
    refused = "Authentication failure: "
    assert outcomes == {
        "other body": refused + "credential for another request",
        "other method": refused + "credential for another method",
        "first use": "OK",
        "again": refused + "credential replayed",
        "accounting": refused + "credential for another daemon instance",
        "node agent": refused + "credential for another daemon instance",
        "after restart": refused + "credential for another daemon instance",
    }
    cluster.wait_idle()


# ---- launches ---------------------------------------------------------------------------------------

async def _launch(cluster: Cluster, launch: slurmd_pb2.BatchLaunch) -> str:
    key = load_key(cluster.spec.key_file)
    node = cluster.spec.nodes[0]
    channel = insecure_channel(f"127.0.0.1:{node.port}")
    stub = slurmd_pb2_grpc.NodeAgentStub(SignedChannel(Peer(channel, NODE_AGENT, Signer(key))))
    try:
        await stub.LaunchBatch(launch, timeout=10, identity=Identity(0, 0, "attacker"))
    except grpc.aio.AioRpcError as exc:
        return exc.details() or ""
    finally:
        await channel.close()
    return "OK"


def test_a_node_agent_launches_nothing_without_the_controllers_job_credential(cluster: Cluster,
                                                                              tmp_path: Path) -> None:
    marker = tmp_path / "ran-as-root"
    script = f"#!/bin/sh\ntouch {marker}\n"
    launch = slurmd_pb2.BatchLaunch(job_id=999_999, uid=0, gid=0, user_name="root", script=script,
                                    work_dir="/tmp", std_out="/dev/null", std_err="/dev/null", cpus=1,
                                    memory_mb=10, cpu_ids=[0])
    node = cluster.spec.nodes[0].name
    assert asyncio.run(_launch(cluster, launch)) == "Invalid job credential"
    key = load_key(cluster.spec.key_file)
    other_script = slurmd_pb2.BatchLaunch()
    other_script.CopyFrom(launch)
    other_script.script = "#!/bin/sh\ntrue\n"        # the controller signed a harmless script
    launch.credential = job_credential.sign(key, job_credential.batch_launch(other_script, node))
    assert asyncio.run(_launch(cluster, launch)) == "Invalid job credential"
    other_node = cluster.spec.nodes[1].name           # signed for the other node
    launch.credential = job_credential.sign(key, job_credential.batch_launch(launch, other_node))
    assert asyncio.run(_launch(cluster, launch)) == "Invalid job credential"
    assert not marker.exists()
    log = (cluster.spec.log_dir / f"pyslurmd-{node}.log").read_text()
    assert "job=999999 batch script launch for uid 0 refused: Invalid job credential" in log


# ---- the auth agent under a local user's crafted connections ------------------------------------

AGENT_ABUSE = textwrap.dedent('''\
    """Crafted connections to the auth agent's socket: huge declared frames, garbage, silence."""
    import socket, struct, sys, time

    path = sys.argv[1]
    conns = []
    for declared in (200 * 1024 * 1024, 250 * 1024 * 1024):     # "a 200 MB request is coming"
        s = socket.socket(socket.AF_UNIX); s.connect(path)
        try:
            s.sendall(struct.pack("!I", declared) + b"x" * (1 << 20))
        except BrokenPipeError:     # refused before the megabyte was through
            pass
        conns.append(s)
    garbage = socket.socket(socket.AF_UNIX); garbage.connect(path)
    garbage.sendall(struct.pack("!I", 3) + b"\\xff\\xff\\xff")   # a method name longer than the frame
    conns.append(garbage)
    time.sleep(1)
    closed = 0
    for s in conns:
        s.settimeout(5)
        try:
            while s.recv(1 << 16):  # a refusal's answer first, for a request too long
                pass
            closed += 1
        except OSError:
            closed += 1
    print(closed)
''')


def _rss_kb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])


def test_crafted_connections_cannot_make_the_auth_agent_hold_much(cluster: Cluster) -> None:
    agent = cluster.procs["agent"].pid
    before = _rss_kb(agent)
    script = cluster.work_dir("alice") / "agent_abuse.py"
    script.write_text(AGENT_ABUSE)
    result = cluster.run(str(BIN / "python"), str(script), str(cluster.spec.auth_socket), user="alice")
    assert (result.returncode, result.stdout, result.stderr) == (0, "3\n", "")   # each one closed at once
    assert _rss_kb(agent) - before < 20 * 1024
    log = (cluster.spec.log_dir / "agent.stderr").read_text()
    uid = pwd.getpwnam("alice").pw_uid
    assert f"request from uid {uid} refused: frame too large (209715200 bytes, at most 16777216)" in log
    assert f"request from uid {uid} refused: malformed request (3 bytes)" in log
    assert "Traceback" not in log
    assert cluster.run("squeue", user="alice").returncode == 0               # still serving


AGENT_FLOOD = textwrap.dedent('''\
    """One user's 32 connections, each declaring the largest request the agent takes (16 MiB) and
    sending all of it but the last byte, held open while the agent's memory is read."""
    import socket, struct, sys, time

    path, size = sys.argv[1], 16 * 1024 * 1024
    conns, refused = [], 0
    for _ in range(32):
        s = socket.socket(socket.AF_UNIX); s.connect(path); s.settimeout(10)
        try:
            s.sendall(struct.pack("!I", size) + b"\\0" * (size - 1))
        except OSError:         # refused before its body was read
            refused += 1
        conns.append(s)
    print(refused, flush=True)
    sys.stdin.read()            # hold them until told
''')


def test_one_users_many_large_requests_cannot_make_the_auth_agent_hold_much(cluster: Cluster) -> None:
    """The agent runs as root for every local user: one user's connections may make it hold at most
    agent.daemon.BYTES_PER_USER (32 MiB) of requests, not 32 x 16 MiB; other users are served meanwhile."""
    agent = cluster.procs["agent"].pid
    before = _rss_kb(agent)
    script = cluster.work_dir("alice") / "agent_flood.py"
    script.write_text(AGENT_FLOOD)
    alice = pwd.getpwnam("alice")
    flood = subprocess.Popen([str(BIN / "python"), str(script), str(cluster.spec.auth_socket)], user=alice.pw_uid,
                             group=alice.pw_gid, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert flood.stdout is not None and flood.stdin is not None
        refused = int(flood.stdout.readline())
        grown_mb = (_rss_kb(agent) - before) / 1024
        served = cluster.run("squeue", "-h", "-u", "bob", user="bob")
        flood.stdin.close()
    finally:
        flood.wait(timeout=60)
    assert refused >= 30        # two fit the budget; the rest are closed without their bodies read
    assert grown_mb < 80, f"the agent grew by {grown_mb:.0f} MB"   # was ~520 MB
    assert (served.returncode, served.stderr) == (0, "")
    log = (cluster.spec.log_dir / "agent.stderr").read_text()
    assert f"uid {alice.pw_uid} has 33554432 bytes of requests in hand already: request refused" in log
    assert cluster.run("squeue", user="alice").returncode == 0      # her budget is back once they closed


def test_a_script_longer_than_the_agent_takes_gets_slurms_refusal_not_a_connect_failure(cluster: Cluster) -> None:
    """Slurm 22.05's sbatch of a 20 MB script (4 MB is max_script_size's default): `sbatch: error:
    Batch job submission failed: Pathname of a file, directory or other parameter too long`, exit 1.
    The agent refuses such a request (over protocol.MAX_REQUEST) unread, with that answer."""
    script = cluster.work_dir("alice") / "huge.sh"
    script.write_text("#!/bin/sh\n" + "#" * (20 * 1024 * 1024) + "\ntrue\n")
    result = cluster.run("sbatch", "-o", "/dev/null", str(script), user="alice")
    assert (result.returncode, result.stdout, result.stderr) == (
        1, "", "sbatch: error: Batch job submission failed: Pathname of a file, directory or other parameter "
               "too long\n")


def test_a_second_auth_agent_does_not_take_over_a_live_agents_socket(cluster: Cluster) -> None:
    second = subprocess.run([str(BIN / "pyslurmsackd")], env=cluster.env, capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL)
    assert second.returncode == 1
    assert second.stderr.splitlines()[-1] == (f"pyslurmsackd: fatal: Unable to bind listen socket "
                                             f"{cluster.spec.auth_socket}: another agent is listening on it")
    assert cluster.run("squeue", user="alice").returncode == 0               # the first one still serves
