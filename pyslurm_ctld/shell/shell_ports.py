"""The shell's I/O, as the controller sees it: the journal, the accounting outbox and the links
to the node agents. The daemon passes the real ones (journal.py, accounting_outbox.py,
node_link.py); the controller's unit tests pass recording fakes and check, without a disk or a
node, that a commit is journal → apply → effects (HyperQueue's side-effect port, Nomad's
planner harness).
"""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Iterable, Iterator, Protocol

from pyslurm_common.rpc import dbd_pb2, slurmd_pb2, types_pb2


class JournalPort(Protocol):
    path: Path

    def replay(self) -> Iterator[dict[str, Any]]:
        """Every line written, in order (JournalError for one that cannot be read)."""

    def rewrite(self, events: Iterable[dict[str, Any]]) -> None:
        """Replace the whole journal with `events` (compaction), atomically."""

    def enqueue(self, event: dict[str, Any]) -> asyncio.Future[None]:
        """Queue a line; the future is done once it is on disk (OSError if it cannot be)."""

    def close(self) -> None: ...


class AccountingPort(Protocol):
    def put(self, record: dbd_pb2.JobRecord) -> None:
        """Queue a job's record for the accounting daemon (kept until it has it)."""

    def put_node_event(self, record: dbd_pb2.NodeEventRecord) -> None: ...

    async def flush(self) -> None:
        """Return once every record queued so far is on disk."""

    def backlog(self) -> int:
        """Records not yet delivered (sdiag)."""

    async def run_sender(self, stop: asyncio.Event) -> None: ...


class NodeLinkPort(Protocol):
    """Calls to the node agents; each raises node_link.NodeLinkError when the node does not take it."""

    async def launch(self, node: str, address: str, launch: slurmd_pb2.BatchLaunch) -> None: ...

    async def launch_tasks(self, node: str, address: str, launch: slurmd_pb2.TaskLaunch) -> None: ...

    async def terminate(self, node: str, address: str, job_id: int, cause: str, step: str = "") -> None: ...

    async def signal(self, node: str, address: str, job_id: int, signal: int, batch_only: bool, full: bool,
                     step: str = "") -> None: ...

    async def suspend(self, node: str, address: str, job_id: int, suspend: bool) -> None: ...

    async def notify(self, node: str, address: str, job_id: int, step: str, text: str) -> None: ...

    async def step_usage(self, node: str, address: str, job_id: int, step_id: str) -> types_pb2.StepUsageList: ...

    async def reconfigure(self, node: str, address: str) -> None: ...
