"""srun's job and first step in one call (rpc/allocation_rpcs.py AllocateWithStep) against the
controller's shell with recording fakes and its real scheduling loop: a job the pass starts comes
back running with its step launched, journaled as SubmitBatchJob, the pass and CreateStep journal
them; a job the pass leaves pending comes back at once, without a step, however long srun would
have waited; a step refused comes back as its error, the job left running."""
from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from pyslurm_common.auth import Identity
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.rpc import ctld_pb2, types_pb2
from pyslurm_common.rpc_auth import Serving, _caller
from pyslurm_ctld.model.job import JobState
from pyslurm_ctld.rpc.servicer import ControllerServicer
from pyslurm_ctld.shell.controller import Controller
from pyslurm_ctld.shell.journal import Journal

from tests.builders import ALICE, BOB
from test_controller_shell import RecordingJournal, settled, shell
from test_node_reconcile import NoContext


class Context(NoContext):
    """What translate_errors needs of a call: a refusal raises it again, as the client would see it."""

    async def abort(self, code: object, details: str) -> None:
        raise SlurmError.from_status_details(details)


def _desc(**fields: object) -> types_pb2.JobDesc:
    return types_pb2.JobDesc(launcher="srun", argv=["true"], work_dir="/tmp", environment=["HOME=/tmp"],
                             num_tasks=1, ntasks_given=True, **fields)  # type: ignore[arg-type]


def _step(**fields: object) -> ctld_pb2.StepRequest:
    given: dict[str, object] = {"num_tasks": 1, "argv": ["true"], "work_dir": "/tmp", "io_port": 4000, "io_key": "ab"}
    return ctld_pb2.StepRequest(**{**given, **fields})  # type: ignore[arg-type]


def _allocate(tmp_path: Path, desc: types_pb2.JobDesc, step: ctld_pb2.StepRequest, uid: int = ALICE,
              wait_ms: int = 10_000) -> tuple[ctld_pb2.StepAllocationReply, float, list[str], list[str]]:
    """(reply, seconds it took, the journal's kinds, the node calls) with the scheduler running."""
    async def main() -> tuple[ctld_pb2.StepAllocationReply, float, list[str], list[str]]:
        ctl, journal, _, links = shell(tmp_path)
        stop = asyncio.Event()
        scheduler = asyncio.ensure_future(ctl.run_scheduler(stop))
        token = _caller.set(Identity(uid=uid, gid=uid, host="login"))
        began = time.monotonic()
        try:
            reply = await ControllerServicer(ctl, Serving()).AllocateWithStep(  # type: ignore[arg-type]
                ctld_pb2.StepAllocationRequest(job=desc, step=step, wait_ms=wait_ms), Context())
        finally:
            took = time.monotonic() - began
            _caller.reset(token)
            stop.set()
            await scheduler
        await settled(ctl)
        ctl.close()
        return reply, took, journal.kinds(), [call[0] for call in links.calls]
    return asyncio.run(main())


def test_a_job_the_pass_starts_comes_back_with_its_step(tmp_path: Path) -> None:
    reply, _, kinds, calls = _allocate(tmp_path, _desc(), _step(job_id=999))   # step.job_id: the new job's
    assert reply.job.state == "RUNNING" and reply.job.job_id == reply.job_id == reply.step.job_id
    assert (reply.step.step_id, reply.step.num_tasks, reply.step_error) == (0, 1, "")
    assert list(reply.step.nodes) == list(reply.job.node_names)
    assert kinds == ["submitted", "started", "step_started"] and calls == ["launch_tasks"]


def test_a_job_the_pass_leaves_pending_comes_back_at_once_without_a_step(tmp_path: Path) -> None:
    reply, took, kinds, calls = _allocate(tmp_path, _desc(hold=True), _step())
    assert reply.job.state == "PENDING" and not reply.HasField("step") and reply.step_error == ""
    assert took < 5, took     # one pass (the loop's periodic one at worst), not the 10 s srun allows
    assert kinds == ["submitted"] and calls == []


def test_a_refused_step_comes_back_as_its_error_with_the_job_running(tmp_path: Path) -> None:
    reply, _, kinds, calls = _allocate(tmp_path, _desc(), _step(argv=[]))
    assert reply.job.state == "RUNNING" and not reply.HasField("step")
    assert SlurmError.from_status_details(reply.step_error).strerror == Strerror.INVALID_ARGUMENT
    assert kinds == ["submitted", "started"] and calls == []


def test_the_submission_is_checked_as_sbatch_s(tmp_path: Path) -> None:
    async def main() -> tuple[str, list[str]]:
        ctl, journal, _, _ = shell(tmp_path)
        token = _caller.set(Identity(uid=BOB, gid=BOB, host="login"))
        try:
            await ControllerServicer(ctl, Serving()).AllocateWithStep(  # type: ignore[arg-type]
                ctld_pb2.StepAllocationRequest(job=_desc(nice=-5), step=_step(), wait_ms=10), Context())
        except SlurmError as exc:
            return exc.strerror, journal.kinds()
        finally:
            _caller.reset(token)
        return "", journal.kinds()
    # a user's negative --nice on a new job: Slurm's ESLURM_INVALID_NICE, as sbatch gets it (23e8af9)
    assert asyncio.run(main()) == (Strerror.INVALID_NICE, [])


def _call(ctl: Controller, desc: types_pb2.JobDesc) -> asyncio.Task[ctld_pb2.StepAllocationReply]:
    """AllocateWithStep as alice, under way as a task (no scheduling loop runs: only the call's own pass)."""
    token = _caller.set(Identity(uid=ALICE, gid=ALICE, host="login"))
    try:
        return asyncio.ensure_future(ControllerServicer(ctl, Serving()).AllocateWithStep(  # type: ignore[arg-type]
            ctld_pb2.StepAllocationRequest(job=desc, step=_step(), wait_ms=10_000), Context()))
    finally:
        _caller.reset(token)


def test_a_job_that_can_start_at_once_is_submitted_started_and_given_its_step_in_one_journal_flush(
        tmp_path: Path) -> None:
    async def main() -> None:
        ctl, journal, _, links = shell(tmp_path, RecordingJournal(tmp_path / "journal.jsonl", hold=True))
        call = _call(ctl, _desc())
        for _ in range(5):
            await asyncio.sleep(0)
        # All three lines queued without a scheduler timer or an fsync between them; nothing
        # launched and no answer before they are on disk.
        assert journal.kinds() == ["submitted", "started", "step_started"]
        assert not call.done() and links.calls == []
        journal.flush()
        reply = await call
        assert reply.job.state == "RUNNING" and reply.step.step_id == 0
        await settled(ctl)
        assert [c[0] for c in links.calls] == ["launch_tasks"]
    asyncio.run(main())


def test_the_one_flush_survives_a_restart_with_the_job_running_and_its_step(tmp_path: Path,
                                                                             monkeypatch: Any) -> None:
    flushes: list[bytes] = []
    write = Journal._write
    monkeypatch.setattr(Journal, "_write", lambda self, data: (flushes.append(data), write(self, data))[1])

    async def main() -> int:
        ctl, _, _, _ = shell(tmp_path)
        ctl.journal = Journal(ctl.cfg.state_save_location)
        ctl.journal.rewrite([])
        reply = await _call(ctl, _desc())
        await settled(ctl)
        ctl.close()
        return reply.job_id
    job_id = asyncio.run(main())
    assert len(flushes) == 1 and flushes[0].count(b"\n") == 3
    again, _, _, _ = shell(tmp_path)    # as after kill -9 once srun had its answer
    again.journal = Journal(again.cfg.state_save_location)
    again.recover()
    job = again.state.jobs[job_id]
    assert job.state is JobState.RUNNING and [s.step_id for s in job.steps] == [0]


def test_while_passes_are_held_back_the_call_waits_for_the_loop_s_pass(tmp_path: Path) -> None:
    async def main() -> tuple[ctld_pb2.StepAllocationReply, int, list[str]]:
        ctl, journal, _, _ = shell(tmp_path)
        ctl._next_pass_at = asyncio.get_running_loop().time() + 3600   # as after a long pass (PASS_GAP_FACTOR)
        assert ctl.pass_now() is None and ctl.passes_begun == 0
        stop = asyncio.Event()
        scheduler = asyncio.ensure_future(ctl.run_scheduler(stop))
        reply = await _call(ctl, _desc())
        stop.set()
        await scheduler
        await settled(ctl)
        return reply, ctl.passes_begun, journal.kinds()
    reply, passes, kinds = asyncio.run(main())
    assert reply.job.state == "RUNNING" and reply.step.step_id == 0
    assert passes >= 1 and kinds == ["submitted", "started", "step_started"]
