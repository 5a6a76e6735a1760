"""Durable outbox of job records, node events and reservation changes for the accounting daemon.

Each job has one file, `<job_id>-<submit_time>.rec`, holding its latest
serialized `JobRecord`; a newer snapshot atomically replaces an unsent older
one (records are full snapshots, so only the latest matters). Node events are
not snapshots (a node that went down and came back is two periods' worth), so
each has a file of its own, `node-<time>-<ns>.ev`, named so that they sort in
the order they happened; so does each change of a reservation, `resv-<time>-<ns>.rv`.
A sender task ships files in batches and deletes a file only if it was not replaced while in
flight. Files are fsync'd, so
records survive a controller crash while the accounting daemon is down;
nothing is dropped, only retried (the daemon takes every record idempotently).
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
JOB_SUFFIX = ".rec"
EVENT_SUFFIX = ".ev"
RESERVATION_SUFFIX = ".rv"
_SUFFIXES = (JOB_SUFFIX, EVENT_SUFFIX, RESERVATION_SUFFIX)
RETRY_SECONDS = (0.5, 1, 2, 5)


class AccountingOutbox:
    def __init__(self, directory: Path, dbd_address: str | None, signer: Signer) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self._address = dbd_address
        self._signer = signer
        self._wake = asyncio.Event()
        self._pending: dict[str, bytes] = {}
        self._writing = False

    def put(self, record: dbd_pb2.JobRecord) -> None:
        """Queue a record; it reaches disk in the next write batch (same loop turn)."""
        self._queue(f"{record.job.job_id}-{record.job.submit_time}{JOB_SUFFIX}", record.SerializeToString())

    def put_node_event(self, record: dbd_pb2.NodeEventRecord) -> None:
        """Queue a node or cluster event, after every event queued before it."""
        self._queue(f"node-{record.time:012d}-{time.time_ns():020d}{EVENT_SUFFIX}", record.SerializeToString())

    def put_reservation(self, record: dbd_pb2.ReservationRecord) -> None:
        """Queue a reservation's change, after every change queued before it (like node events)."""
        self._queue(f"resv-{record.time:012d}-{time.time_ns():020d}{RESERVATION_SUFFIX}", record.SerializeToString())

    def _queue(self, name: str, data: bytes) -> None:
        self._pending[name] = data
        if not self._writing:
            self._writing = True
            asyncio.get_running_loop().create_task(self._write_pending())

    async def _write_pending(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending, {}
                await asyncio.to_thread(self._write_files, batch)
                self._wake.set()
        finally:
            self._writing = False

    def _write_files(self, batch: dict[str, bytes]) -> None:
        for name, data in batch.items():
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

    def backlog(self) -> int:
        return sum(1 for p in self.directory.iterdir() if p.suffix in _SUFFIXES)

    async def run_sender(self, stop: asyncio.Event) -> None:
        if self._address is None:
            return
        stub = dbd_pb2_grpc.AccountingStub(signed_channel(self._address, ACCOUNTING, self._signer, insecure_channel))
        failures = 0
        while not stop.is_set():
            files = sorted(p for p in self.directory.iterdir() if p.suffix in _SUFFIXES)[:BATCH]
            if not files:
                self._wake.clear()
                await wait_first(self._wake, stop, timeout=5)
                continue
            sent = await asyncio.to_thread(self._read_files, files)
            batch = dbd_pb2.JobRecordBatch()
            for path, _, data in sent:
                target = {EVENT_SUFFIX: batch.node_events, RESERVATION_SUFFIX: batch.reservations}.get(
                    path.suffix, batch.records)
                target.add().ParseFromString(data)
            try:
                await stub.RecordJobs(batch, timeout=30)
            except grpc.aio.AioRpcError as exc:
                delay = RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)]
                failures += 1
                log.warning("accounting unreachable (%s), %d records queued; retrying in %ss",
                            exc.code().name, self.backlog(), delay)
                await wait_first(stop, timeout=delay)
                continue
            failures = 0
            await asyncio.to_thread(self._remove_unchanged, sent)

    @staticmethod
    def _read_files(files: list[Path]) -> list[tuple[Path, int, bytes]]:
        out = []
        for path in files:
            try:
                with path.open("rb") as f:
                    out.append((path, os.fstat(f.fileno()).st_ino, f.read()))
            except FileNotFoundError:
                continue
        return out

    @staticmethod
    def _remove_unchanged(sent: list[tuple[Path, int, bytes]]) -> None:
        for path, inode, _ in sent:
            try:
                if path.stat().st_ino == inode:  # replaced files carry a newer snapshot: keep them
                    path.unlink()
            except FileNotFoundError:
                pass
