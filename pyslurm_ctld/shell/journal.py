"""The controller's durable event log (StateSaveLocation/journal.jsonl).

Every acknowledged change is appended as one JSON line and fsync'd before the
RPC that caused it is answered. Appends that arrive while a flush is running
are written together by the next flush (group commit), so a burst of
submissions costs one fsync, not one each. On start the controller replays
the log through the same update function it uses live, then compacts it.
A torn last line (crash mid-write) is ignored: it was never acknowledged.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path
from typing import Any, Iterable, Iterator

from pyslurm_common.record_fields import record_fields

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
Event = dict[str, Any]


class JournalError(Exception):
    """The journal cannot be read back as written: the controller must not start on a guess."""


class Journal:
    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        os.chmod(directory, 0o700)
        self.path = directory / "journal.jsonl"
        self._fd = -1
        self._pending: list[tuple[bytes, asyncio.Future[None]]] = []
        self._flushing = False

    def replay(self) -> Iterator[Event]:
        if not self.path.exists():
            return
        with self.path.open("rb") as f:
            lines = f.readlines()
        for number, line in enumerate(lines, 1):
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                if number == len(lines):
                    log.warning("%s:%d: ignoring torn last journal line", self.path, number)
                    return
                raise JournalError(f"{self.path}:{number}: corrupt journal line; refusing to guess") from None
            if event.get("v") != FORMAT_VERSION:
                raise JournalError(f"{self.path}:{number}: unknown journal format {event.get('v')}")
            yield event

    def rewrite(self, events: Iterable[Event]) -> None:
        """Atomically replace the log with `events` (compaction), then open it for appends."""
        tmp = self.path.with_suffix(".tmp")
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
            for event in events:
                f.write(_encode(event))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        dir_fd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    async def append(self, event: Event) -> None:
        await self.enqueue(event)

    def enqueue(self, event: Event) -> asyncio.Future[None]:
        """Queue `event`'s line behind every line queued before it; the future is done once it
        is on disk (its fsync shared with every line queued meanwhile)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((_encode(event), future))
        if not self._flushing:
            asyncio.get_running_loop().create_task(self._flush())
        return future

    async def _flush(self) -> None:
        self._flushing = True
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                data = b"".join(line for line, _ in batch)
                try:
                    await asyncio.to_thread(self._write, data)
                except OSError as exc:
                    for _, future in batch:
                        future.set_exception(exc)
                    continue
                for _, future in batch:
                    future.set_result(None)
        finally:
            self._flushing = False

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _encode(event: Event) -> bytes:
    """One line; nested records (events.event_record leaves them) are written as their fields."""
    return (json.dumps({"v": FORMAT_VERSION, **event}, separators=(",", ":"), default=record_fields)
            + "\n").encode()
