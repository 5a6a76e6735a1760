"""The controller's accounting outbox: job snapshots and node events go to disk, then to the
accounting daemon in one batch (node events in the order they happened), and leave the disk only
once acknowledged. A real gRPC server (with pyslurmdbd's authentication) stands in for pyslurmdbd."""
from __future__ import annotations

import asyncio
from pathlib import Path

import grpc

from pyslurm_common.rpc import dbd_pb2, dbd_pb2_grpc, types_pb2
from pyslurm_common.auth import ACCOUNTING
from pyslurm_common.rpc_auth import ServerAuth, Signer, make_server
from pyslurm_ctld.shell.accounting_outbox import AccountingOutbox

KEY = b"k" * 32


class _Recorder(dbd_pb2_grpc.AccountingServicer):
    def __init__(self) -> None:
        self.batches: list[dbd_pb2.JobRecordBatch] = []

    async def RecordJobs(self, request: dbd_pb2.JobRecordBatch, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self.batches.append(request)
        return types_pb2.Empty()


def _job(job_id: int, state: str) -> dbd_pb2.JobRecord:
    return dbd_pb2.JobRecord(cluster="lab", job=types_pb2.JobInfo(job_id=job_id, submit_time=100, state=state))


def _event(node: str, state: str, time: int) -> dbd_pb2.NodeEventRecord:
    return dbd_pb2.NodeEventRecord(cluster="lab", node=node, state=state, time=time)


async def _drain(directory: Path) -> tuple[list[dbd_pb2.JobRecordBatch], int]:
    """Start a sender on what `directory` holds and wait until everything was acknowledged."""
    recorder = _Recorder()
    server = make_server(ServerAuth(KEY, ACCOUNTING, 0))
    dbd_pb2_grpc.add_AccountingServicer_to_server(recorder, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    sender = AccountingOutbox(directory, f"127.0.0.1:{port}", Signer(KEY))
    stop = asyncio.Event()
    task = asyncio.create_task(sender.run_sender(stop))
    while sender.backlog():
        await asyncio.sleep(0.01)
    stop.set()
    await task
    await server.stop(None)
    return recorder.batches, sender.backlog()


async def _exercise(directory: Path) -> tuple[list[dbd_pb2.JobRecordBatch], int, int]:
    outbox = AccountingOutbox(directory, None, Signer(KEY))
    outbox.put(_job(7, "RUNNING"))
    outbox.put_node_event(_event("n1", "DOWN", 300))
    outbox.put(_job(7, "COMPLETED"))          # replaces the unsent snapshot
    outbox.put_node_event(_event("n1", "", 400))
    outbox.put_node_event(_event("n2", "DRAIN", 200))
    while outbox.backlog() < 4:
        await asyncio.sleep(0.01)
    queued = outbox.backlog()
    batches, left = await _drain(directory)
    return batches, queued, left


def test_records_and_events_survive_on_disk_and_go_in_order(tmp_path: Path) -> None:
    batches, queued, left = asyncio.run(_exercise(tmp_path / "outbox"))
    assert (queued, left) == (4, 0)
    (batch,) = batches
    assert [(r.job.job_id, r.job.state) for r in batch.records] == [(7, "COMPLETED")]
    assert [(e.node, e.state, e.time) for e in batch.node_events] == [("n2", "DRAIN", 200), ("n1", "DOWN", 300),
                                                                      ("n1", "", 400)]


async def _burst(directory: Path, jobs: int) -> tuple[list[Path], list[dbd_pb2.JobRecordBatch], int]:
    outbox = AccountingOutbox(directory, None, Signer(KEY))
    for job_id in range(1, jobs + 1):   # one loop turn: one bundle, one fsync
        outbox.put(_job(job_id, "RUNNING"))
        outbox.put(_job(job_id, "COMPLETED"))
    while outbox.backlog() < jobs:
        await asyncio.sleep(0.01)
    bundles = sorted(directory.iterdir())
    batches, left = await _drain(directory)
    return bundles, batches, left


def test_a_burst_is_one_bundle_on_disk_and_goes_in_rpc_sized_batches(tmp_path: Path) -> None:
    bundles, batches, left = asyncio.run(_burst(tmp_path / "outbox", 1200))
    assert [p.suffix for p in bundles] == [".batch"] and left == 0
    assert [len(b.records) for b in batches] == [500, 500, 200]
    sent = [(r.job.job_id, r.job.state) for b in batches for r in b.records]
    assert sent == [(job_id, "COMPLETED") for job_id in range(1, 1201)]


async def _after_upgrade(directory: Path) -> tuple[list[dbd_pb2.JobRecordBatch], int]:
    directory.mkdir()
    (directory / "7-100.rec").write_bytes(_job(7, "RUNNING").SerializeToString())
    (directory / f"node-{300:012d}-{1:020d}.ev").write_bytes(_event("n1", "DOWN", 300).SerializeToString())
    outbox = AccountingOutbox(directory, None, Signer(KEY))
    outbox.put(_job(7, "COMPLETED"))
    while len(list(directory.glob("*.batch"))) < 1:
        await asyncio.sleep(0.01)
    return await _drain(directory)


def test_single_record_files_of_an_older_controller_go_first(tmp_path: Path) -> None:
    batches, left = asyncio.run(_after_upgrade(tmp_path / "outbox"))
    assert left == 0 and not list((tmp_path / "outbox").iterdir())
    assert [(r.job.job_id, r.job.state) for b in batches for r in b.records] == [(7, "COMPLETED")]
    assert [(e.node, e.state) for b in batches for e in b.node_events] == [("n1", "DOWN")]


async def _stream(directory: Path) -> tuple[list[Path], list[dbd_pb2.JobRecordBatch], int]:
    outbox = AccountingOutbox(directory, None, Signer(KEY))
    outbox.put(_job(1, "RUNNING"))
    for _ in range(5):          # loop turns of their own, as a task's start and a later one's end
        await asyncio.sleep(0)
    outbox.put(_job(2, "COMPLETED"))
    await outbox.flush()        # what a purge waits for: everything queued is on disk
    bundles = sorted(directory.iterdir())
    batches, left = await _drain(directory)
    return bundles, batches, left


def test_records_of_a_stream_share_a_bundle_and_a_flush_puts_them_on_disk(tmp_path: Path) -> None:
    bundles, batches, left = asyncio.run(_stream(tmp_path / "outbox"))
    assert [p.suffix for p in bundles] == [".batch"] and left == 0
    assert [(r.job.job_id, r.job.state) for b in batches for r in b.records] == [(1, "RUNNING"), (2, "COMPLETED")]
