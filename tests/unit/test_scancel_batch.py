"""scancel of many ids in one call (servicer SignalJobs over Controller.staged): each typed id is
decided and applied in turn, as one call per id would be, and the call is answered once all of
them are on disk, which takes one fsync rather than one per id. What the journal holds replays to
the same state."""
from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

from pyslurm_common.auth import Identity
from pyslurm_common.config import load_config
from pyslurm_common.errors import Strerror
from pyslurm_common.rpc import ctld_pb2
from pyslurm_common.rpc_auth import Serving, Signer, _caller
from pyslurm_ctld.shell.controller import Controller
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.model.events import event_from_dict
from pyslurm_ctld.model.job import JobState
from pyslurm_ctld.shell.journal import Journal
from pyslurm_ctld.rpc.servicer import ControllerServicer

from tests.builders import ALICE, BOB, RAW, SLURM_UID, USERS
from test_journal_replay import CONF
from test_node_reconcile import NoContext


def test_many_ids_are_cancelled_in_order_with_one_fsync_and_replay_the_same(tmp_path: Path) -> None:
    path = tmp_path / "slurm.conf"
    path.write_text(CONF.format(state=tmp_path / "state"))

    async def main() -> tuple[list[tuple[str, str]], int, Controller]:
        ctl = Controller(load_config(path), SLURM_UID, Signer(b"test-key"))
        ctl.recover()
        ids = []
        for uid in [ALICE] * 20 + [BOB]:
            event = submission(ctl.state, dataclasses.replace(RAW), uid, uid, USERS[uid], USERS[uid], True, 100)
            await ctl.commit(event)
            ids.append(event.job.job_id)
        writes = 0
        write = ctl.journal._write

        def counting(data: bytes) -> None:
            nonlocal writes
            writes += 1
            write(data)
        ctl.journal._write = counting  # type: ignore[method-assign]
        specs = [str(i) for i in ids[:20]] + [str(ids[0]), str(ids[20]), "999999", "1_x"]
        token = _caller.set(Identity(uid=ALICE, gid=ALICE, host="login"))
        try:
            reply = await ControllerServicer(ctl, Serving()).SignalJobs(  # type: ignore[arg-type]
                ctld_pb2.SignalRequest(job_specs=specs), NoContext())
        finally:
            _caller.reset(token)
        ctl.close()
        return [(r.job_spec, r.error) for r in reply.results], writes, ctl

    results, writes, ctl = asyncio.run(main())
    ids = sorted(ctl.state.jobs)
    assert results[:20] == [(str(i), "") for i in ids[:20]]
    assert results[20:] == [(str(ids[0]), Strerror.ALREADY_DONE), (str(ids[20]), Strerror.ACCESS_DENIED),
                            ("999999", Strerror.INVALID_JOB_ID), ("1_x", Strerror.INVALID_JOB_ID)]
    assert writes == 1
    assert [ctl.state.jobs[i].state for i in ids] == [JobState.CANCELLED] * 20 + [JobState.PENDING]
    replayed = ClusterState(load_config(path), SLURM_UID)
    for data in Journal(tmp_path / "state").replay():
        apply(replayed, event_from_dict(data))
    assert {i: j.state for i, j in replayed.jobs.items()} == {i: j.state for i, j in ctl.state.jobs.items()}
