"""Live step usage for sstat, layer by layer: stepd's `usage` command, StepManager.query over the
control socket, the node agent's GetStepUsage, the core's permission rule and the
controller servicer's error translation."""
from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from pyslurm_common.auth import Identity
from pyslurm_common.cgroup_conf import CgroupConfig
from pyslurm_common.config import load_config
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.rpc import ctld_pb2, slurmd_pb2, types_pb2
from pyslurm_common.rpc_auth import Serving, _caller
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.steps import step_creation, step_usage_hosts
from pyslurm_ctld.core.topology import node_registered
from pyslurm_ctld.model.job import JobId, JobState
from pyslurm_ctld.shell.node_link import NodeLinkError
from pyslurm_ctld.rpc.servicer import ControllerServicer
from pyslurm_d import gpu_usage
from pyslurm_d import stepd as stepd_mod
from pyslurm_d.cgroup_limits import CgroupLimitError, Usage
from pyslurm_d.daemon import NodeAgentServicer
from pyslurm_d.nvml import GpuReading
from pyslurm_ctld.core.step_layout import StepShape
from pyslurm_d.step_messages import StepResult
from pyslurm_d.steps import StepdLauncher, StepError, StepGone, StepManager, StepPolicy
from tests.builders import job_request

ALICE, BOB, SLURM_UID = 1000, 1001, 450
MiB = 1024 * 1024


class FakeLimits:
    backend = "v2"

    def __init__(self, usage: Usage, current: int, error: CgroupLimitError | None = None) -> None:
        self._usage, self._current, self._error = usage, current, error

    def usage(self) -> Usage:
        if self._error is not None:
            raise self._error
        return self._usage

    def current_rss_bytes(self) -> int:
        return self._current


def _stepd(tmp_path: Path, limits: FakeLimits | None) -> stepd_mod.Stepd:
    launch = stepd_mod.Launch(
        job_id=42, uid=ALICE, gid=ALICE, user_name="alice", node_name="n1", script_path="/bin/true",
        argv=[], environment=[], work_dir="/tmp", std_out="/dev/null", std_err="/dev/null",
        std_in="/dev/null", append=False, umask=0o022, kill_wait=1)
    step = stepd_mod.Stepd(launch, tmp_path, tmp_path / "cg")
    step.limits = limits  # type: ignore[assignment]
    return step


# ---- stepd ------------------------------------------------------------------------------------


def test_stepd_usage_answers_one_json_line(tmp_path: Path) -> None:
    step = _stepd(tmp_path, FakeLimits(Usage(120 * MiB, 3_000_000, 500_000), 100 * MiB))
    reply = step._command(["usage"])
    assert "\n" not in reply
    assert json.loads(reply) == {"step": "batch", "ntasks": 1, "max_rss_bytes": 120 * MiB,
                                 "current_rss_bytes": 100 * MiB, "user_cpu_usec": 3_000_000,
                                 "system_cpu_usec": 500_000}


def test_stepd_usage_errors_and_the_other_commands_are_unchanged(tmp_path: Path) -> None:
    assert _stepd(tmp_path, None)._command(["usage"]) == "error step has no cgroup"
    broken = FakeLimits(Usage(0, 0, 0), 0, CgroupLimitError("/cg/memory.peak", "cannot read (EIO)"))
    assert _stepd(tmp_path, broken)._command(["usage"]) == "error /cg/memory.peak: cannot read (EIO)"
    step = _stepd(tmp_path, None)
    assert step._command(["usage", "extra"]) == "error unknown command usage"
    assert step._command(["bogus"]) == "error unknown command bogus"
    assert step._command([]) == "error empty command"


# ---- StepManager.query ----------------------------------------------------------------------------


async def _no_report(result: StepResult) -> None:
    return None


def _manager(tmp_path: Path) -> StepManager:
    policy = StepPolicy(cgroup=CgroupConfig(), backend="v2", node_tag="c_n1", real_memory_mb=1000,
                        gpu_devices={})
    return StepManager(tmp_path / "spool", tmp_path / "cg", "n1", _no_report, policy,
                       StepdLauncher(tmp_path / "server.sock"))


def _serve_once(steps: StepManager, step: stepd_mod.Stepd, job_id: int) -> threading.Thread:
    """A stepd control socket for *job_id* that answers one command through Stepd's own handler."""
    job_dir = steps.job_dir(job_id)
    job_dir.mkdir(parents=True)
    control = stepd_mod.control_socket(job_dir / "stepd.sock")
    steps._running.add((job_id, "batch"))

    def serve() -> None:
        with control:
            step._handle_control(control)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def test_query_returns_the_stepd_reply(tmp_path: Path) -> None:
    steps = _manager(tmp_path)
    step = _stepd(tmp_path, FakeLimits(Usage(2 * MiB, 10, 20), MiB))
    thread = _serve_once(steps, step, 42)
    reply = asyncio.run(steps.query(42, "usage"))
    thread.join(5)
    assert json.loads(reply)["max_rss_bytes"] == 2 * MiB


def test_query_raises_on_error_replies_and_missing_steps(tmp_path: Path) -> None:
    steps = _manager(tmp_path)
    thread = _serve_once(steps, _stepd(tmp_path, None), 42)
    with pytest.raises(StepError, match="^error step has no cgroup$") as info:
        asyncio.run(steps.query(42, "usage"))
    thread.join(5)
    assert not isinstance(info.value, StepGone)
    with pytest.raises(StepGone):
        asyncio.run(steps.query(7, "usage"))           # never ran here
    with pytest.raises(StepGone):                      # the socket is left, its stepd is gone
        asyncio.run(steps.query(42, "usage"))


def test_command_still_wants_ok(tmp_path: Path) -> None:
    steps = _manager(tmp_path)
    step = _stepd(tmp_path, FakeLimits(Usage(0, 0, 0), 0))
    thread = _serve_once(steps, step, 42)
    with pytest.raises(StepError):
        asyncio.run(steps.command(42, "usage"))         # a JSON reply is not "ok"
    thread.join(5)
    asyncio.run(steps.command_quietly(42, "usage"))    # gone by now: logged, not raised


# ---- node agent -------------------------------------------------------------------------------------


class Aborted(Exception):
    pass


class FakeContext:
    async def abort(self, code: Any, details: str) -> None:
        raise Aborted(code.name, details)


class FakeSteps:
    """The job's steps on the node: `running` ones, each answering `reply` to a query."""

    node_name = "n1"

    def __init__(self, reply: str | Exception, running: tuple[str, ...] = ("batch",),
                 spool: Path = Path("/nonexistent")) -> None:
        self.reply = reply
        self.running = running
        self.spool = spool                 # where the steps' GPU tallies are (gpu_usage.py)
        self.asked: list[tuple[int, str, str]] = []

    def steps_of(self, job_id: int) -> list[str]:
        return list(self.running)

    def job_dir(self, job_id: int, step: str = "batch") -> Path:
        return self.spool / f"job{job_id}.{step}"

    async def query(self, job_id: int, words: str, step: str = "batch") -> str:
        self.asked.append((job_id, words, step))
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


async def _never_reloaded() -> None:
    raise AssertionError("sstat must not reconfigure the node")


def _node_usage(steps: FakeSteps, uid: int = 0, **query: Any) -> Any:
    servicer = NodeAgentServicer(steps, {0, SLURM_UID}, b"k" * 64, reload=_never_reloaded)  # type: ignore[arg-type]
    token = _caller.set(Identity(uid=uid, gid=uid, host="head"))
    try:
        request = slurmd_pb2.NodeStepUsageQuery(job_id=42, **query)
        return asyncio.run(servicer.GetStepUsage(request, FakeContext()))
    finally:
        _caller.reset(token)


def test_node_agent_reports_the_batch_step_in_kb() -> None:
    line = json.dumps({"step": "batch", "ntasks": 1, "max_rss_bytes": 100 * MiB + 512,
                       "current_rss_bytes": 90 * MiB, "user_cpu_usec": 7, "system_cpu_usec": 3})
    steps = FakeSteps(line)
    reply = _node_usage(steps)
    assert steps.asked == [(42, "usage", "batch")]
    [info] = reply.steps
    assert (info.job_id, info.step_id, info.node, info.ntasks) == (42, "batch", "n1", 1)
    assert (info.max_rss_kb, info.current_rss_kb) == (102400, 92160)
    assert (info.user_cpu_usec, info.system_cpu_usec) == (7, 3)
    assert len(_node_usage(FakeSteps(line), step_id="batch").steps) == 1


def test_node_agent_adds_the_gpus_sampled_so_far(tmp_path: Path) -> None:
    line = json.dumps({"step": "batch", "ntasks": 1, "max_rss_bytes": MiB, "current_rss_bytes": MiB,
                       "user_cpu_usec": 1, "system_cpu_usec": 1})
    steps = FakeSteps(line, spool=tmp_path)
    step_dir = steps.job_dir(42)
    step_dir.mkdir()
    gpu_usage.fold(step_dir, 42, {2: GpuReading(2, utilization_percent=70, memory_used_bytes=3 * MiB)})
    [info] = _node_usage(steps).steps
    [gpu] = info.gpus
    assert (gpu.node, gpu.index, gpu.samples, gpu.util_max, gpu.mem_max_bytes) == ("n1", 2, 1, 70, 3 * MiB)


def test_node_agent_asks_one_step_or_every_step_here_and_skips_gone_ones() -> None:
    line = json.dumps({"step": "0", "ntasks": 2, "max_rss_bytes": MiB, "current_rss_bytes": MiB,
                       "user_cpu_usec": 1, "system_cpu_usec": 1})
    steps = FakeSteps(line, running=("batch", "0", "1"))
    assert [i.ntasks for i in _node_usage(steps, step_id="0").steps] == [2]
    assert steps.asked == [(42, "usage", "0")]
    steps.asked.clear()
    assert len(_node_usage(steps).steps) == 3
    assert [step for _, _, step in steps.asked] == ["batch", "0", "1"]
    assert list(_node_usage(FakeSteps(StepGone("job 42 has no step here"))).steps) == []


def test_node_agent_errors_and_callers() -> None:
    with pytest.raises(Aborted) as info:
        _node_usage(FakeSteps(StepError("error /cg: cannot read")))
    assert info.value.args[0] == "INTERNAL" and "cannot read" in info.value.args[1]
    with pytest.raises(Aborted) as info:
        _node_usage(FakeSteps("not json"))
    assert info.value.args[0] == "INTERNAL"
    with pytest.raises(Aborted) as info:
        _node_usage(FakeSteps("{}"), uid=ALICE)           # only the controller may ask
    assert info.value.args == ("PERMISSION_DENIED", "Access/permission denied")


# ---- the core ------------------------------------------------------------------------------------------

CONF = """\
ClusterName=lab
SlurmctldHost=head
NodeName=n1 CPUs=4 RealMemory=4000
NodeName=n2 CPUs=4 RealMemory=4000
PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=60
"""

RAW = job_request(requeue=False)


def _jobs(tmp_path: Path) -> tuple[ClusterState, JobId, JobId]:
    """A manager with one running job of alice's (on two nodes) and one pending (too big)."""
    (tmp_path / "slurm.conf").write_text(CONF)
    mgr = ClusterState(load_config(tmp_path / "slurm.conf"), slurm_uid=SLURM_UID)
    for name in mgr.nodes:
        node_registered(mgr, name, 0.0, cpus=4, real_memory_mb=4000)
    running = submission(mgr, dataclasses.replace(RAW, min_nodes=2), ALICE, ALICE, "alice", "alice", False, 100)
    apply(mgr, running)
    for event in schedule_pass(mgr, 200):
        apply(mgr, event)
    pending = submission(mgr, dataclasses.replace(RAW, cpus_per_task=4), ALICE, ALICE, "alice", "alice", False, 300)
    apply(mgr, pending)
    assert mgr.jobs[running.job.job_id].state is JobState.RUNNING
    return mgr, running.job.job_id, pending.job.job_id


def test_usage_is_asked_of_the_nodes_running_the_steps_by_the_owner_or_privileged(tmp_path: Path) -> None:
    mgr, running, pending = _jobs(tmp_path)
    allocation = mgr.jobs[running].allocation
    assert allocation is not None and len(allocation.nodes) == 2
    for uid in (ALICE, 0, SLURM_UID):
        assert step_usage_hosts(mgr, running, "batch", uid) == (allocation.batch_host,)
        assert step_usage_hosts(mgr, running, "", uid) == allocation.nodes
    assert step_usage_hosts(mgr, running, "0", ALICE) == ()          # no such step (yet)
    apply(mgr, step_creation(mgr, running, ALICE, StepShape(min_nodes=2), "x", ("x",), 250))
    assert step_usage_hosts(mgr, running, "0", ALICE) == allocation.nodes
    assert step_usage_hosts(mgr, pending, "", ALICE) == ()


def test_usage_of_someone_elses_or_an_unknown_job_is_refused(tmp_path: Path) -> None:
    mgr, running, pending = _jobs(tmp_path)
    for job_id in (running, pending):
        with pytest.raises(SlurmError) as info:
            step_usage_hosts(mgr, job_id, "", BOB)
        assert info.value.strerror == Strerror.ACCESS_DENIED
    with pytest.raises(SlurmError) as info:
        step_usage_hosts(mgr, 999, "", ALICE)
    assert info.value.strerror == Strerror.INVALID_JOB_ID


# ---- controller servicer ------------------------------------------------------------------------------


class FakeController:
    def __init__(self, error: Exception | None) -> None:
        self.error = error
        self.asked: list[tuple[int, str, int]] = []

    async def step_usage(self, job_id: int, step_id: str, uid: int) -> Any:
        self.asked.append((job_id, step_id, uid))
        if self.error is not None:
            raise self.error
        return types_pb2.StepUsageList()


def _ctld_usage(ctl: FakeController) -> Any:
    token = _caller.set(Identity(uid=ALICE, gid=ALICE, host="login"))
    try:
        request = ctld_pb2.StepUsageQuery(job_id=42, step_id="batch")
        return asyncio.run(ControllerServicer(ctl, Serving()).GetStepUsage(request, FakeContext()))  # type: ignore[arg-type]
    finally:
        _caller.reset(token)


def test_controller_servicer_passes_the_caller_and_translates_errors() -> None:
    ctl = FakeController(None)
    assert list(_ctld_usage(ctl).steps) == []
    assert ctl.asked == [(42, "batch", ALICE)]
    with pytest.raises(Aborted) as info:
        _ctld_usage(FakeController(NodeLinkError("GetStepUsage on n1: UNAVAILABLE: down")))
    assert info.value.args[1].endswith("\nCommunication connection failure")
    with pytest.raises(Aborted) as info:
        _ctld_usage(FakeController(SlurmError(Strerror.ACCESS_DENIED)))
    assert info.value.args == ("PERMISSION_DENIED", "Access/permission denied")
