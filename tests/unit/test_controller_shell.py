"""The controller's shell (controller.py) with its I/O passed in: recording fakes for the
journal, the accounting outbox and the node links show that a commit is journal → apply →
effects, with no disk and no node agent."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Iterable, Iterator

from pyslurm_common.config import load_config
from pyslurm_common.rpc import dbd_pb2, slurmd_pb2
from pyslurm_common.rpc_auth import Signer
from pyslurm_ctld.shell.controller import Controller
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.cancel import cancellation
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.model.job import JobState
from pyslurm_ctld.shell.node_link import NodeLinkError
from tests.builders import ALICE, CONF, RAW, SLURM_UID, USERS, register_node


class RecordingJournal:
    """Lines in memory; with `hold`, none is "on disk" until `flush` says so."""

    def __init__(self, path: Path, hold: bool = False) -> None:
        self.path, self.hold = path, hold
        self.lines: list[dict[str, Any]] = []
        self._waiting: list[asyncio.Future[None]] = []

    def replay(self) -> Iterator[dict[str, Any]]:
        return iter(list(self.lines))

    def rewrite(self, events: Iterable[dict[str, Any]]) -> None:
        self.lines = list(events)

    def enqueue(self, event: dict[str, Any]) -> asyncio.Future[None]:
        self.lines.append(event)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(future)
        if not self.hold:
            self.flush()
        return future

    def flush(self) -> None:
        for future in self._waiting:
            future.set_result(None)
        self._waiting = []

    def kinds(self) -> list[str]:
        return [line["kind"] for line in self.lines]

    def close(self) -> None:
        pass


class RecordingOutbox:
    def __init__(self) -> None:
        self.records: list[dbd_pb2.JobRecord] = []
        self.node_events: list[dbd_pb2.NodeEventRecord] = []

    def put(self, record: dbd_pb2.JobRecord) -> None:
        self.records.append(record)

    def put_node_event(self, record: dbd_pb2.NodeEventRecord) -> None:
        self.node_events.append(record)

    def backlog(self) -> int:
        return len(self.records)

    async def flush(self) -> None:
        pass

    async def run_sender(self, stop: asyncio.Event) -> None:
        await stop.wait()


class RecordingLinks:
    """Every call to a node agent, as (method, node, job id); methods in `refuse` fail."""

    def __init__(self, refuse: Iterable[str] = ()) -> None:
        self.calls: list[tuple[str, str, int]] = []
        self.refuse = set(refuse)

    def _record(self, method: str, node: str, job_id: int) -> None:
        self.calls.append((method, node, job_id))
        if method in self.refuse:
            raise NodeLinkError(f"{method} refused", "FAILED_PRECONDITION")

    async def launch(self, node: str, address: str, launch: slurmd_pb2.BatchLaunch) -> None:
        self._record("launch", node, launch.job_id)

    async def launch_tasks(self, node: str, address: str, launch: slurmd_pb2.TaskLaunch) -> None:
        self._record("launch_tasks", node, launch.job_id)

    async def terminate(self, node: str, address: str, job_id: int, cause: str, step: str = "") -> None:
        self._record("terminate", node, job_id)

    async def signal(self, node: str, address: str, job_id: int, signal: int, batch_only: bool, full: bool,
                     step: str = "") -> None:
        self._record("signal", node, job_id)

    async def suspend(self, node: str, address: str, job_id: int, suspend: bool) -> None:
        self._record("suspend", node, job_id)

    async def notify(self, node: str, address: str, job_id: int, step: str, text: str) -> None:
        self._record("notify", node, job_id)

    async def step_usage(self, node: str, address: str, job_id: int, step_id: str) -> Any:
        self._record("step_usage", node, job_id)

    async def reconfigure(self, node: str, address: str) -> None:
        self._record("reconfigure", node, 0)


def shell(tmp_path: Path, journal: RecordingJournal | None = None,
          links: RecordingLinks | None = None) -> tuple[Controller, RecordingJournal, RecordingOutbox, RecordingLinks]:
    path = tmp_path / "slurm.conf"
    path.write_text(CONF + f"StateSaveLocation={tmp_path / 'state'}\n")
    journal = journal or RecordingJournal(tmp_path / "journal.jsonl")
    outbox, links = RecordingOutbox(), links or RecordingLinks()
    ctl = Controller(load_config(path), SLURM_UID, Signer(b"test-key"), journal=journal, outbox=outbox, links=links)
    for name in ctl.state.nodes:
        register_node(ctl.state, name, now=0.0)
    return ctl, journal, outbox, links


async def settled(ctl: Controller) -> None:
    """Wait for the node calls the effects started."""
    while ctl.agent_queue_size:
        await asyncio.sleep(0.001)


def test_a_commit_applies_journals_and_performs_its_effects_only_once_on_disk(tmp_path: Path) -> None:
    async def main() -> None:
        ctl, journal, outbox, _ = shell(tmp_path, journal=RecordingJournal(tmp_path, hold=True))
        event = submission(ctl.state, RAW, ALICE, ALICE, USERS[ALICE], USERS[ALICE], False, 100)
        done = asyncio.ensure_future(ctl.staged(event))
        await asyncio.sleep(0.01)
        assert ctl.state.jobs[event.job.job_id].state is JobState.PENDING   # applied
        assert journal.kinds() == ["submitted"] and outbox.records == []     # queued, not on disk: no effect
        journal.flush()
        await done
        assert [r.job.job_id for r in outbox.records] == [event.job.job_id]
    asyncio.run(main())


def test_a_start_launches_on_the_batch_host_and_a_cancel_terminates_there(tmp_path: Path) -> None:
    async def main() -> None:
        ctl, journal, outbox, links = shell(tmp_path)
        await ctl.commit(submission(ctl.state, RAW, ALICE, ALICE, USERS[ALICE], USERS[ALICE], False, 100))
        for event in schedule_pass(ctl.state, 200):
            await ctl.commit(event)
        await settled(ctl)
        job = next(iter(ctl.state.jobs.values()))
        assert job.state is JobState.RUNNING and job.allocation is not None
        assert links.calls == [("launch", job.allocation.batch_host, job.job_id)]
        await ctl.commit(cancellation(ctl.state, job.job_id, ALICE, 300))
        await settled(ctl)
        assert links.calls[1:] == [("terminate", node, job.job_id) for node in job.allocation.nodes]
        assert journal.kinds() == ["submitted", "started", "cancelled"]
        assert [r.job.state for r in outbox.records] == ["PENDING", "RUNNING", "CANCELLED"]
    asyncio.run(main())


def test_a_launch_the_node_refuses_puts_the_job_back_in_the_queue(tmp_path: Path) -> None:
    async def main() -> None:
        ctl, journal, _, links = shell(tmp_path, links=RecordingLinks(refuse={"launch"}))
        await ctl.commit(submission(ctl.state, RAW, ALICE, ALICE, USERS[ALICE], USERS[ALICE], False, 100))
        for event in schedule_pass(ctl.state, 200):
            await ctl.commit(event)
        await settled(ctl)
        job = next(iter(ctl.state.jobs.values()))
        assert [call[0] for call in links.calls] == ["launch"]
        assert journal.kinds() == ["submitted", "started", "requeued"]
        assert job.state is not JobState.RUNNING and job.restarts == 1
    asyncio.run(main())
