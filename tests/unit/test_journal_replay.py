"""The controller's failure paths: an event that does not apply is never journaled (Controller.commit),
one in the journal that fails on replay is set aside (journal_replay.py: kept, logged on one line),
and a call to a node agent that fails unexpectedly is logged at once."""
from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from pyslurm_common.config import load_config
from pyslurm_common.rpc_auth import Signer
from pyslurm_ctld.shell import controller
from pyslurm_ctld.shell.controller import Controller
from pyslurm_ctld.model.events import JobTimeLimitChanged
from pyslurm_ctld.model.job import JobId
from pyslurm_ctld.shell.journal import Journal
from pyslurm_ctld.shell.journal_replay import SET_ASIDE_NAME, replay

CONF = """ClusterName=c
SlurmctldHost=localhost
StateSaveLocation={state}
NodeName=n1 CPUs=2 RealMemory=1000
PartitionName=p Nodes=n1 Default=YES
"""


def test_an_event_that_fails_is_set_aside_and_the_rest_applied(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    journal = Journal(tmp_path)
    journal.rewrite([{"kind": "a", "job_id": 1}, {"kind": "bad", "job_id": 7, "x": "y\nz"}, {"kind": "a", "job_id": 2}])
    applied: list[dict[str, Any]] = []

    def apply(data: dict[str, Any]) -> None:
        if data["kind"] == "bad":
            raise ValueError("cannot\nbe applied")
        applied.append(data)

    with caplog.at_level(logging.ERROR):
        result = replay(journal, apply, now=1234)
    assert (result.applied, result.set_aside) == (2, 1)
    assert [d["job_id"] for d in applied] == [1, 2]
    kept = [json.loads(line) for line in (tmp_path / SET_ASIDE_NAME).read_text().splitlines()]
    assert kept == [{"set_aside_at": 1234, "error": "ValueError: cannot be applied",
                     "event": {"v": 1, "kind": "bad", "job_id": 7, "x": "y\nz"}}]
    assert [r.getMessage() for r in caplog.records] == [
        f"job=7 journal event 'bad' does not apply, skipped and kept in {tmp_path / SET_ASIDE_NAME}: "
        "ValueError: cannot be applied"]


def test_commit_applies_before_it_journals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "slurm.conf"
    path.write_text(CONF.format(state=tmp_path / "state"))

    async def main() -> list[dict[str, Any]]:
        ctl = Controller(load_config(path), 0, Signer(b"test-key"))
        ctl.recover()

        def fails(state: object, event: object) -> list[object]:
            raise RuntimeError("does not apply")

        monkeypatch.setattr(controller, "apply", fails)
        with pytest.raises(RuntimeError):
            await ctl.commit(JobTimeLimitChanged(JobId(42), 5))
        ctl.close()
        return list(Journal(tmp_path / "state").replay())

    assert [event["kind"] for event in asyncio.run(main())] == ["ids_used"]   # the compaction's; nothing else


def test_a_node_call_that_fails_unexpectedly_is_logged_at_once(tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "slurm.conf"
    path.write_text(CONF.format(state=tmp_path / "state"))

    async def main() -> None:
        ctl = Controller(load_config(path), 0, Signer(b"test-key"))

        async def broken_call() -> None:
            raise ValueError("bad\nreply")

        ctl._spawn(broken_call())
        await asyncio.sleep(0.01)
        assert ctl.agent_queue_size == 0
        ctl.close()

    with caplog.at_level(logging.ERROR):
        asyncio.run(main())
    assert [r.getMessage() for r in caplog.records] == [
        "test_a_node_call_that_fails_unexpectedly_is_logged_at_once.<locals>.main.<locals>.broken_call failed: "
        "ValueError: bad reply"]
