"""The node's durable record of unacknowledged step ends (pyslurm_d/step_spool.py) and how the
node agent's StepManager reports them until the controller acknowledges them (pyslurm_d/steps.py).
"""
from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
import socket
import types
from pathlib import Path

import pytest

from pyslurm_common.cgroup_conf import CgroupConfig
from pyslurm_common.rpc import ctld_pb2, slurmd_pb2
from pyslurm_d.daemon import ControllerSession
from pyslurm_d.step_messages import StepResult
from pyslurm_d.step_spool import END_FILE, read_end, read_result, write_end
from pyslurm_d.steps import StepdLauncher, StepError, StepManager, StepPolicy


def test_an_end_is_written_whole_and_read_back(tmp_path: Path) -> None:
    write_end(tmp_path, StepResult(job_id=7, exit_code=3))
    assert read_end(tmp_path) == StepResult(job_id=7, exit_code=3)
    assert not (tmp_path / (END_FILE + ".tmp")).exists()
    (tmp_path / END_FILE).write_text('{"job_id": 7, "exit')   # torn by hand: treated as none
    assert read_end(tmp_path) is None


def test_a_stepd_without_a_result_ended_in_an_unknown_way(tmp_path: Path) -> None:
    lost = read_result(tmp_path, 7)
    assert (lost.job_id, lost.stepd_lost, lost.exit_signal) == (7, True, signal.SIGKILL)
    (tmp_path / "result.json").write_text(json.dumps({"job_id": 7, "exit_code": 2}))
    assert read_result(tmp_path, 7) == StepResult(job_id=7, exit_code=2)
    (tmp_path / "result.json").write_text(json.dumps({"job_id": 7, "exit_code": "2"}))   # not a result
    assert read_result(tmp_path, 7).stepd_lost


def _manager(tmp_path: Path, delivered: list[bool]) -> tuple[StepManager, list[StepResult]]:
    reports: list[StepResult] = []

    async def report(result: StepResult) -> bool:
        reports.append(result)
        return delivered.pop(0) if delivered else False

    policy = StepPolicy(cgroup=CgroupConfig(), backend="v2", node_tag="c_n1", real_memory_mb=1000, gpu_devices={})
    return StepManager(tmp_path / "spool", tmp_path / "cg", "n1", report, policy,
                       StepdLauncher(tmp_path / "server.sock")), reports


def test_an_end_is_reported_until_acknowledged_and_survives_an_agent_restart(tmp_path: Path) -> None:
    async def scenario() -> None:
        steps, reports = _manager(tmp_path, delivered=[False, False])
        job_dir = steps.job_dir(5)
        job_dir.mkdir(parents=True)
        (job_dir / "result.json").write_text(json.dumps({"job_id": 5, "exit_code": 1, "exit_signal": 0,
                                                         "launch_failed": False}))
        steps.recover()                                   # an agent that restarted after the step ended
        await asyncio.sleep(0.05)
        assert steps.running_steps() == [] and len(steps.unacknowledged_ends()) == 1
        assert read_end(job_dir) == reports[0] and reports[0].step == "batch" and reports[0].exit_code == 1
        # Another agent restart before the controller had it: the same end, not a new one.
        again, reports_again = _manager(tmp_path, delivered=[True])
        again.recover()
        await asyncio.sleep(0.05)
        assert reports_again[0] == reports[0] and not job_dir.exists()
        assert again.unacknowledged_ends() == []
        # The first agent's retries stop once the end is acknowledged (here: by a heartbeat reply).
        steps.acknowledge((5, "batch"))
        count = len(reports)
        await asyncio.sleep(0.7)
        assert len(reports) == count
    asyncio.run(scenario())


def test_an_end_is_flushed_to_disk_before_its_report_only_when_it_could_not_be_worked_out_again(
        tmp_path: Path) -> None:
    """A stepd's own result gives the same end after an agent restart: the controller taking it at
    once costs no fsync. A lost stepd's stand-in (its end time is now) is recorded first."""
    async def scenario() -> None:
        steps, reports = _manager(tmp_path, delivered=[True, True])
        recorded_at_report: list[bool] = []
        inner = steps._report

        async def report(result: StepResult) -> bool:
            recorded_at_report.append((steps.job_dir(result.job_id) / END_FILE).exists())
            return await inner(result)
        steps._report = report
        for job_id, result in ((5, {"job_id": 5, "exit_code": 0}), (6, None)):
            job_dir = steps.job_dir(job_id)
            job_dir.mkdir(parents=True)
            (job_dir / "stepd.pid").write_text("999999999")   # a stepd that is gone
            if result is not None:
                (job_dir / "result.json").write_text(json.dumps(result))
        steps.recover()
        await asyncio.sleep(0.1)
        assert [(r.job_id, r.stepd_lost) for r in sorted(reports, key=lambda r: r.job_id)] == [(5, False), (6, True)]
        assert dict(zip([r.job_id for r in reports], recorded_at_report)) == {5: False, 6: True}
        assert not steps.job_dir(5).exists() and not steps.job_dir(6).exists()
    asyncio.run(scenario())


def test_the_scripts_environment_is_kept_on_disk_only_for_an_epilog(tmp_path: Path) -> None:
    """script_env.json is for an Epilog after a restart of this agent: without one, no file."""
    async def scenario() -> None:
        files: dict[str, list[str]] = {}
        for epilog in (None, "/etc/pyslurm/epilog"):
            steps, _ = _manager(tmp_path / str(bool(epilog)), delivered=[])
            steps.policy = dataclasses.replace(steps.policy, epilog=epilog)

            async def started(key: tuple[int, str], launch: object, steps: StepManager = steps) -> str:
                files[str(bool(epilog))] = sorted(os.listdir(steps.job_dir(*key)))
                return ""
            steps._start_stepd = started   # type: ignore[method-assign]
            await steps.launch_batch(slurmd_pb2.BatchLaunch(job_id=4, uid=os.getuid(), gid=os.getgid(),
                                                            script="#!/bin/sh\ntrue\n", work_dir="/tmp"))
        assert files == {"False": ["slurm_script"], "True": ["script_env.json", "slurm_script"]}
    asyncio.run(scenario())


def test_a_kill_answering_an_earlier_report_spares_a_later_run_of_the_same_step(tmp_path: Path) -> None:
    """A heartbeat reply about a report sent before this launch began must not kill it."""
    async def scenario() -> None:
        steps, _ = _manager(tmp_path, delivered=[])
        seen = steps.launches
        go = asyncio.Event()

        async def launch() -> None:
            await go.wait()
            raise StepError("prolog failed")
        pending = asyncio.ensure_future(steps._unstoppable((8, "batch"), launch()))
        await asyncio.sleep(0)
        assert steps.running_steps() == [(8, "batch")]
        assert not steps.launched_by((8, "batch"), seen) and steps.launched_by((8, "batch"), steps.launches)
        go.set()
        with pytest.raises(StepError):
            await pending
        assert steps.running_steps() == []     # no stepd was started: the step is let go
    asyncio.run(scenario())


def test_a_launch_cut_short_before_its_stepd_started_is_forgotten(tmp_path: Path) -> None:
    """The agent died during the Prolog: nothing ran, so there is nothing to report (the controller,
    which the node no longer tells about the job, requeues it)."""
    async def scenario() -> None:
        steps, reports = _manager(tmp_path, delivered=[])
        job_dir = steps.job_dir(9)
        job_dir.mkdir(parents=True)
        (job_dir / "script_env.json").write_text("{}")
        steps.recover()
        await asyncio.sleep(0.05)
        assert (steps.running_steps(), steps.unacknowledged_ends(), reports) == ([], [], [])
        assert not job_dir.exists()
    asyncio.run(scenario())


def test_the_controllers_kills_do_not_hold_up_the_next_heartbeat(tmp_path: Path) -> None:
    """A stepd listens before its step has started and answers only once it serves: a kill sent
    to it then must not stall the heartbeat loop past SlurmdTimeout (its node declared down)."""
    async def scenario() -> None:
        steps, _ = _manager(tmp_path, delivered=[])
        job_dir = steps.job_dir(9, "0")
        job_dir.mkdir(parents=True)
        starting = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)   # a stepd still starting
        starting.bind(str(job_dir / "stepd.sock"))
        starting.listen(1)
        starting.setblocking(False)
        steps._running.add((9, "0"))
        session = types.SimpleNamespace(steps=steps)
        reply = ctld_pb2.StepReconciliation(kill=[ctld_pb2.NodeStep(job_id=9, step="0")])
        await asyncio.wait_for(ControllerSession.reconciled(session, reply, steps.launches), 0.5)  # type: ignore[arg-type]
        conn, _ = await asyncio.get_running_loop().sock_accept(starting)   # the kill still went out
        conn.setblocking(False)
        assert (await asyncio.get_running_loop().sock_recv(conn, 100)) == b"terminate NODE FAILURE\n"
        conn.sendall(b"ok\n")
        conn.close()
        starting.close()
    asyncio.run(scenario())
