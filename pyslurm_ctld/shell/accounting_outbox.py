"""Durable outbox of job records, node events and reservation changes for the accounting daemon.

Job records queued within WRITE_LINGER seconds (or while the previous write was running) go to disk
together as one bundle, `<ns>.batch`: a serialized `JobRecordBatch`, written to a temporary name,
fsync'd and renamed, so a stream of records costs one fsync and one file per WRITE_LINGER, not one
per record or per loop turn (a 500-task array queues about two records per task, in loop turns of
their own as the tasks start and end). A job record may wait in memory that long because the
journal holds the job it describes: a controller that restarts re-queues every job it knows
(Controller.resend_accounting), and `flush` puts the queue on disk before jobs are purged. Node
events and reservation changes, which nothing re-queues, are written at once. Bundles are named by
the time they were written, so they sort in the order they happened. A sender task reads the oldest
bundles, merges them (a job's later snapshot replaces its earlier one: records are full snapshots;
node events and reservation changes are not, each is kept, in the order of its time) and ships them
in batches of at most BATCH records; a bundle is deleted only once everything in it was
acknowledged. Records survive a controller crash while the accounting daemon is down; nothing is
dropped, only retried (the daemon takes every record idempotently). Outside a burst the sender
waits LINGER seconds before it reads, so that the accounting daemon gets a few tasks' records per
transaction instead of one.
"""
from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path

import grpc

from pyslurm_common.daemon_runtime import wait_first
from pyslurm_common.rpc import dbd_pb2, dbd_pb2_grpc
from pyslurm_common.auth import ACCOUNTING
from pyslurm_common.rpc_auth import Signer, insecure_channel
from pyslurm_common.rpc_client import signed_channel

log = logging.getLogger(__name__)
BATCH = 500
BUNDLE_SUFFIX = ".batch"
# One record per file, as controllers before the bundles wrote them: still sent, before any bundle.
_SINGLE_RECORD_FIELDS = {".rec": "records", ".ev": "node_events", ".rv": "reservations"}
LINGER = 0.1
WRITE_LINGER = 0.05
RETRY_SECONDS = (0.5, 1, 2, 5)
JobKey = tuple[int, int]


class AccountingOutbox:
    def __init__(self, directory: Path, dbd_address: str | None, signer: Signer) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self._address = dbd_address
        self._signer = signer
        self._wake = asyncio.Event()
        self._pending = _Merged()
        self._writer: asyncio.Task[None] | None = None
        self._hurry = asyncio.Event()   # write what is queued now, without lingering
        self._sizes: dict[str, int] = {}   # bundle file name -> how many records it holds

    def put(self, record: dbd_pb2.JobRecord) -> None:
        """Queue a record; it reaches disk with the others queued within WRITE_LINGER seconds."""
        self._pending.records[_key(record)] = record
        self._queued()

    def put_node_event(self, record: dbd_pb2.NodeEventRecord) -> None:
        """Queue a node or cluster event, after every event queued before it; written at once."""
        self._pending.node_events.append(record)
        self._hurry.set()
        self._queued()

    def put_reservation(self, record: dbd_pb2.ReservationRecord) -> None:
        """Queue a reservation's change, after every change queued before it (like node events)."""
        self._pending.reservations.append(record)
        self._hurry.set()
        self._queued()

    async def flush(self) -> None:
        """Return once everything queued so far is on disk."""
        if self._writer is not None:
            self._hurry.set()
            await asyncio.wait([self._writer])   # a failed write is the writer's to report

    def _queued(self) -> None:
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write_pending())

    async def _write_pending(self) -> None:
        try:
            await wait_first(self._hurry, timeout=WRITE_LINGER)
            while self._pending.size():
                self._hurry.clear()
                batch, self._pending = self._pending, _Merged()
                name = await asyncio.to_thread(self._write_bundle, batch.message().SerializeToString())
                self._sizes[name] = batch.size()
                self._wake.set()
        finally:
            self._writer = None
            self._hurry.clear()

    def _write_bundle(self, data: bytes) -> str:
        name = f"{time.time_ns():020d}{BUNDLE_SUFFIX}"
        tmp = self.directory / f".{name}.tmp"
        with tmp.open("wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.directory / name)
        fd = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        return name

    def _bundles(self) -> list[Path]:
        found = [p for p in self.directory.iterdir() if p.suffix == BUNDLE_SUFFIX or p.suffix in _SINGLE_RECORD_FIELDS]
        return sorted(found, key=lambda p: (p.suffix == BUNDLE_SUFFIX, p.name))

    def backlog(self) -> int:
        """Records not yet acknowledged (a job's snapshots count once per bundle). Each bundle is
        read once: sdiag asks often, and a long accounting outage leaves many."""
        bundles = self._bundles()
        names = {path.name for path in bundles}
        self._sizes = {name: size for name, size in self._sizes.items() if name in names}
        for path in bundles:
            if path.name not in self._sizes:
                try:
                    self._sizes[path.name] = _Merged.of(path).size()
                except FileNotFoundError:
                    continue
        return sum(self._sizes.values())

    async def run_sender(self, stop: asyncio.Event) -> None:
        if self._address is None:
            return
        stub = dbd_pb2_grpc.AccountingStub(signed_channel(self._address, ACCOUNTING, self._signer, insecure_channel))
        failures = 0
        while not stop.is_set():
            bundles = self._bundles()
            if not bundles:
                self._wake.clear()
                await wait_first(self._wake, stop, timeout=5)
                await wait_first(stop, timeout=LINGER)
                continue
            taken, merged = await asyncio.to_thread(_take, bundles)
            try:
                for batch in merged.messages():
                    await stub.RecordJobs(batch, timeout=30)
            except grpc.aio.AioRpcError as exc:
                delay = RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)]
                failures += 1
                log.warning("accounting unreachable (%s), %d records queued; retrying in %ss",
                            exc.code().name, merged.size(), delay)
                await wait_first(stop, timeout=delay)
                continue
            failures = 0
            await asyncio.to_thread(_remove, taken)


class _Merged:
    """Records, node events and reservation changes in the order they were queued; a job's later
    snapshot replaces the earlier one."""

    def __init__(self) -> None:
        self.records: dict[JobKey, dbd_pb2.JobRecord] = {}
        self.node_events: list[dbd_pb2.NodeEventRecord] = []
        self.reservations: list[dbd_pb2.ReservationRecord] = []

    @classmethod
    def of(cls, path: Path) -> _Merged:
        merged = cls()
        merged.add(_parse(path))
        return merged

    def size(self) -> int:
        return len(self.records) + len(self.node_events) + len(self.reservations)

    def add(self, batch: dbd_pb2.JobRecordBatch) -> None:
        for record in batch.records:
            self.records[_key(record)] = record
        self.node_events.extend(batch.node_events)
        self.reservations.extend(batch.reservations)

    def message(self) -> dbd_pb2.JobRecordBatch:
        return dbd_pb2.JobRecordBatch(records=self.records.values(), node_events=self.node_events,
                                      reservations=self.reservations)

    def messages(self) -> list[dbd_pb2.JobRecordBatch]:
        """RPC-sized batches; node events and reservation changes sorted by when they happened
        (stable, so the queue order decides between equal times)."""
        items = ([("records", r) for r in self.records.values()]
                 + [("node_events", e) for e in sorted(self.node_events, key=lambda e: e.time)]
                 + [("reservations", r) for r in sorted(self.reservations, key=lambda r: r.time)])
        batches = []
        for start in range(0, len(items), BATCH):
            batch = dbd_pb2.JobRecordBatch()
            for field, item in items[start:start + BATCH]:
                getattr(batch, field).append(item)
            batches.append(batch)
        return batches


def _key(record: dbd_pb2.JobRecord) -> JobKey:
    return record.job.job_id, record.job.submit_time


def _parse(path: Path) -> dbd_pb2.JobRecordBatch:
    data = path.read_bytes()
    if path.suffix == BUNDLE_SUFFIX:
        return dbd_pb2.JobRecordBatch.FromString(data)
    batch = dbd_pb2.JobRecordBatch()
    getattr(batch, _SINGLE_RECORD_FIELDS[path.suffix]).add().ParseFromString(data)
    return batch


def _take(bundles: list[Path]) -> tuple[list[Path], _Merged]:
    """The oldest bundles holding about BATCH records (at least one bundle), merged."""
    taken: list[Path] = []
    merged = _Merged()
    for path in bundles:
        if taken and merged.size() >= BATCH:
            break
        merged.add(_parse(path))
        taken.append(path)
    return taken, merged


def _remove(bundles: list[Path]) -> None:
    for path in bundles:
        path.unlink(missing_ok=True)
