"""pyslurmd: the node agent. Registers with the controller, heartbeats, and
runs job steps through stepd processes (see steps.py).

Only the controller (root / SlurmUser credentials) may call it.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Awaitable, Callable

import grpc
import psutil

from pyslurm_common import config as config_mod
from pyslurm_common import conf_records, controller_channel, daemon_log, job_credential, sd_notify
from pyslurm_common.auth import NODE_AGENT
from pyslurm_common.cgroup_conf import cgroup_conf_path, load_cgroup_config
from pyslurm_common.gres import GpuDevice, load_gres_conf
from pyslurm_common.daemon_runtime import (argument_parser, fatal, handle_reload, listen, load_cluster_identity,
                                           run_until_signalled, write_pid_file)
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.rpc import ctld_pb2, ctld_pb2_grpc, slurmd_pb2, slurmd_pb2_grpc, types_pb2
from pyslurm_common.rpc_auth import ServerAuth, Signer, caller, make_server, translate_errors

from . import cgroup, dynamic_node, gpu_usage, hardware, stepd_scope
from .gpu_job_mapping import JobMappingDir
from .gpu_sampler import GpuSampler, gpu_probe
from .nvml_recorded import RecordingError
from .step_messages import StepResult
from .steps import BATCH, PrologFailed, StepdLauncher, StepError, StepGone, StepManager, StepPolicy

log = logging.getLogger(__name__)
PROG = "pyslurmd"
MESSAGE_LIMIT = 1000
# Registration retries start fast: the controller is often starting at the same moment.
REGISTER_BACKOFF = (0.02, 0.05, 0.1, 0.2, 0.3, 0.5)


class NodeAgentServicer(slurmd_pb2_grpc.NodeAgentServicer):
    def __init__(self, steps: StepManager, privileged_uids: set[int], key: bytes,
                 reload: Callable[[], Awaitable[None]]) -> None:
        self.steps = steps
        self.privileged = privileged_uids
        self._key = key
        self.reload = reload   # re-read the configuration; raises SlurmError if it is refused

    def _require_controller(self) -> None:
        if caller().uid not in self.privileged:
            raise SlurmError(Strerror.ACCESS_DENIED)

    def _check_launch(self, launch: job_credential.Launch, credential: str) -> None:
        """Launch only what the controller signed for this node; log every launch and refusal."""
        what = f"job={launch.job_id} {'batch script' if launch.step == job_credential.BATCH_STEP else 'step ' + launch.step}"
        try:
            job_credential.verify(self._key, credential, launch)
        except job_credential.CredentialError as exc:
            log.error("%s launch for uid %d refused: %s (sent by uid %d from %s)", what, launch.uid, exc,
                      caller().uid, caller().host)
            expired = str(exc) != Strerror.INVALID_CREDENTIAL    # "Job credential expired" says more
            raise SlurmError(Strerror.INVALID_CREDENTIAL, str(exc) if expired else "") from exc
        log.info("%s launch for uid %d gid %d", what, launch.uid, launch.gid)

    @translate_errors
    async def LaunchBatch(self, request: slurmd_pb2.BatchLaunch, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_controller()
        self._check_launch(job_credential.batch_launch(request, self.steps.node_name), request.credential)
        try:
            await self.steps.launch_batch(request)
        except PrologFailed as exc:
            raise SlurmError(Strerror.PROLOG_FAILED, str(exc)) from exc
        except (StepError, OSError) as exc:
            raise SlurmError(Strerror.INTERNAL, f"launch of job {request.job_id} failed: {exc}") from exc
        return types_pb2.Empty()

    @translate_errors
    async def LaunchTasks(self, request: slurmd_pb2.TaskLaunch, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_controller()
        self._check_launch(job_credential.task_launch(request, self.steps.node_name), request.credential)
        try:
            await self.steps.launch_tasks(request)
        except (StepError, OSError) as exc:
            raise SlurmError(Strerror.INTERNAL, str(exc)) from exc
        return types_pb2.Empty()

    @translate_errors
    async def TerminateJob(self, request: slurmd_pb2.TerminateRequest, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_controller()
        await self.steps.command_quietly(request.job_id, f"terminate {request.cause or 'CANCELLED'}", request.step)
        return types_pb2.Empty()

    @translate_errors
    async def SignalJob(self, request: slurmd_pb2.NodeSignalRequest, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_controller()
        mode = "batch" if request.batch_only else "full" if request.full else "steps"
        if not request.step and not self.steps.steps_of(request.job_id):
            # Nothing here to take it yet (the launch still on its way, the Prolog running): say
            # so, and the controller tells scancel to try again, as slurmctld does.
            raise SlurmError(Strerror.TRANSITION_STATE_NO_UPDATE)
        await self.steps.command_quietly(request.job_id, f"signal {request.signal} {mode}", request.step)
        return types_pb2.Empty()

    @translate_errors
    async def SuspendJob(self, request: slurmd_pb2.SuspendRequest, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_controller()
        await self.steps.command_quietly(request.job_id, "suspend" if request.suspend else "resume")
        return types_pb2.Empty()

    @translate_errors
    async def NotifyJob(self, request: slurmd_pb2.JobMessage, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_controller()
        text = " ".join(request.text.split())[:MESSAGE_LIMIT]   # one line, bounded: stepd reads 4 KB
        await self.steps.command_quietly(request.job_id, f"notify {text}", request.step)
        return types_pb2.Empty()

    @translate_errors
    async def AttachStep(self, request: slurmd_pb2.StepAttach, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        """sattach (the controller checked the caller may see the step): the stepd copies the step's
        output to sattach's listener. A step already gone here has nothing left to send."""
        self._require_controller()
        words = (request.io_host, str(request.io_port), request.io_key)
        if (not request.step.isdigit() or not 0 < request.io_port <= 65535 or len(request.io_host) > 255
                or not 0 < len(request.io_key) <= 64 or any(len(w.split()) != 1 for w in words)):
            raise SlurmError(Strerror.INVALID_ARGUMENT, "bad attach request")
        try:
            await self.steps.command(request.job_id, "attach " + " ".join(words), request.step)
        except StepGone:
            pass
        except (StepError, OSError) as exc:
            raise SlurmError(Strerror.INTERNAL, f"attach to job {request.job_id}: {exc}") from exc
        return types_pb2.Empty()

    @translate_errors
    async def GetStepUsage(self, request: slurmd_pb2.NodeStepUsageQuery,
                           context: grpc.aio.ServicerContext) -> types_pb2.StepUsageList:
        """Live usage of the job's steps here: one step, or every step ("" step id); none when not running."""
        self._require_controller()
        infos = []
        for step in ([request.step_id] if request.step_id else self.steps.steps_of(request.job_id)):
            try:
                usage = json.loads(await self.steps.query(request.job_id, "usage", step))
                infos.append(types_pb2.StepUsageInfo(
                    job_id=request.job_id, step_id=str(usage["step"]), node=self.steps.node_name,
                    ntasks=int(usage["ntasks"]), max_rss_kb=int(usage["max_rss_bytes"]) // 1024,
                    current_rss_kb=int(usage["current_rss_bytes"]) // 1024,
                    user_cpu_usec=int(usage["user_cpu_usec"]), system_cpu_usec=int(usage["system_cpu_usec"]),
                    gpus=gpu_usage.messages(self.steps.node_name,
                                            gpu_usage.figures(self.steps.job_dir(request.job_id, step)))))
            except StepGone:
                continue
            except (StepError, OSError, ValueError, KeyError, TypeError) as exc:
                raise SlurmError(Strerror.INTERNAL, f"usage of job {request.job_id}: {exc}") from exc
        return types_pb2.StepUsageList(steps=infos)

    @translate_errors
    async def Ping(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        return types_pb2.Empty()

    @translate_errors
    async def Reconfigure(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_controller()
        await self.reload()
        return types_pb2.Empty()


class ControllerSession:
    """Registration, heartbeats and result reports towards the controller."""

    def __init__(self, setup: "NodeSetup", port: int, hw: hardware.Hardware, backend: str, signer: Signer) -> None:
        self.setup, self.port, self.hw, self.backend = setup, port, hw, backend
        cfg = setup.cfg
        self.stub = ctld_pb2_grpc.ControllerStub(controller_channel.to_controllers(cfg, signer))
        self.steps: StepManager | None = None
        self.gpus: GpuSampler | None = None

    @property
    def cfg(self) -> config_mod.SlurmConfig:
        return self.setup.cfg

    @property
    def node(self) -> conf_records.NodeConfig:
        return self.setup.node

    async def register(self) -> None:
        attempt = 0
        while True:
            report, launches = self.step_report()
            try:
                reply = await self.stub.RegisterNode(ctld_pb2.NodeRegistration(
                    name=self.node.name, cpus=self.hw.cpus, real_memory_mb=self.hw.real_memory_mb,
                    gres=self.setup.gres, address=self.setup.address, port=self.port,
                    boot_time=self.hw.boot_time, arch=self.hw.arch, os=self.hw.os,
                    hostname=socket.gethostname(), cgroup_backend=self.backend,
                    steps=report,
                    sockets=self.hw.sockets, cores_per_socket=self.hw.cores_per_socket,
                    threads_per_core=self.hw.threads_per_core, dynamic_conf=self.setup.dynamic_conf,
                ), timeout=5)
                log.info("registered as %s with the controller", self.node.name)
                await self.reconciled(reply.steps, launches)
                return
            except grpc.aio.AioRpcError as exc:
                if exc.code() == grpc.StatusCode.INVALID_ARGUMENT:
                    log.error("registration refused: %s", exc.details())
                else:
                    log.debug("registration failed (%s), retrying", exc.code().name)
                await asyncio.sleep(REGISTER_BACKOFF[min(attempt, len(REGISTER_BACKOFF) - 1)])
                attempt += 1

    async def run(self, stop: asyncio.Event) -> None:
        await self.register()
        await self.heartbeat(stop)

    async def heartbeat(self, stop: asyncio.Event) -> None:
        interval = min(10.0, max(0.5, self.cfg.slurmd_timeout / 3)) if self.cfg.slurmd_timeout else 10.0
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), interval)
                return
            except TimeoutError:
                pass
            report, launches = self.step_report()
            try:
                reply = await self.stub.NodeHeartbeat(ctld_pb2.Heartbeat(
                    name=self.node.name, cpu_load=psutil.getloadavg()[0],
                    free_memory_mb=psutil.virtual_memory().available // (1024 * 1024),
                    steps=report, gpu_activity=self.gpu_activity()),
                    timeout=5)
            except grpc.aio.AioRpcError as exc:
                log.warning("heartbeat failed: %s: %s", exc.code().name, exc.details())
                if exc.code() != grpc.StatusCode.UNAVAILABLE:
                    await self.register()
                continue
            await self.reconciled(reply, launches)

    def gpu_activity(self) -> list[ctld_pb2.JobGpuActivity]:
        activity = self.gpus.activity if self.gpus else {}
        return [ctld_pb2.JobGpuActivity(job_id=job_id, util_percent=util, sampled_at=at)
                for job_id, (util, at) in sorted(activity.items())]

    def step_report(self) -> tuple[ctld_pb2.NodeSteps, int]:
        """What this node holds: the steps it runs and the ends not acknowledged yet; and how many
        launches it had begun then."""
        report = ctld_pb2.NodeSteps()
        if self.steps is None:
            return report, 0
        report.running.extend(ctld_pb2.NodeStep(job_id=job_id, step=step)
                              for job_id, step in self.steps.running_steps())
        for result in self.steps.unacknowledged_ends():
            message = self.completion(result)
            if isinstance(message, ctld_pb2.StepCompletion):
                report.step_ends.append(message)
            else:
                report.batch_ends.append(message)
        return report, self.steps.launches

    async def reconciled(self, reply: ctld_pb2.StepReconciliation, launches: int) -> None:
        """Forget the ends the controller recorded; kill the steps it says must not run, unless
        launched after the report it answers (a requeued job started again here meanwhile).
        The kills are not waited for: the next heartbeat must not wait on a stepd (a node silent
        for SlurmdTimeout is declared down, with every job on it)."""
        if self.steps is None:
            return
        for key in reply.acknowledged:
            self.steps.acknowledge((key.job_id, key.step))
        for key in reply.kill:
            if not self.steps.launched_by((key.job_id, key.step), launches):
                continue
            log.info("job=%d step %s is over or unknown as far as the controller knows: terminating it",
                     key.job_id, key.step)
            self.steps.command_in_background(key.job_id, "terminate NODE FAILURE", key.step)

    async def report(self, result: StepResult) -> bool:
        """One try to tell the controller that a step ended; True when it has recorded it."""
        message = self.completion(result)
        method = "CompleteStep" if isinstance(message, ctld_pb2.StepCompletion) else "CompleteBatch"
        try:
            await getattr(self.stub, method)(message, timeout=10)
            return True
        except grpc.aio.AioRpcError as exc:
            log.warning("job=%d completion not delivered (%s), retrying", message.job_id, exc.code().name)
            return False

    def completion(self, result: StepResult) -> ctld_pb2.StepCompletion | ctld_pb2.BatchCompletion:
        common = dict(
            node=self.node.name, job_id=result.job_id, exit_code=result.exit_code, exit_signal=result.exit_signal,
            launch_failed=result.launch_failed, error=result.error, start_time=result.start_time,
            end_time=result.end_time or int(time.time()), kill_task_failed=result.kill_task_failed,
            out_of_memory=result.out_of_memory, max_rss_kb=result.max_rss_kb, user_cpu_usec=result.user_cpu_usec,
            system_cpu_usec=result.system_cpu_usec, stepd_lost=result.stepd_lost,
            gpus=gpu_usage.messages(self.node.name, result.gpus))
        if result.step != BATCH:
            return ctld_pb2.StepCompletion(step_id=int(result.step), cancelled=result.cancelled, **common)
        return ctld_pb2.BatchCompletion(epilog_failed=result.epilog_failed, **common)


@dataclass(frozen=True, slots=True)
class NodeSetup:
    """Everything this agent takes from the configuration files; rebuilt whole on reconfigure."""

    cfg: config_mod.SlurmConfig
    node: conf_records.NodeConfig
    policy: StepPolicy
    gpus: tuple[GpuDevice, ...]
    dynamic_conf: str        # the definition a dynamic node registers with; "" for slurm.conf nodes
    address: str             # where the controller reaches us; "": where our registration came from

    @property
    def gres(self) -> str:
        return f"gpu:{len(self.gpus)}" if self.gpus else ""


def node_setup(cfg: config_mod.SlurmConfig, node_name: str, dynamic: str | None, hw: hardware.Hardware,
               dev_root: Path, backend: str) -> NodeSetup:
    """This node's definition, GPUs and step policy from slurm.conf, gres.conf and cgroup.conf
    (and `--conf` for a dynamic node). Raises ConfigError naming file and line."""
    node_gres = load_gres_conf(cfg.path.parent / "gres.conf", node_name)
    gpus = hardware.detect_gpus(dev_root) if node_gres.autodetect else node_gres.gpus
    if dynamic is None:
        try:
            node = cfg.node(node_name)
        except KeyError:
            raise config_mod.ConfigError(cfg.path, None, f"node {node_name} is not in {cfg.path}") from None
        dynamic_conf = ""
    else:
        if any(n.name == node_name for n in cfg.nodes):
            raise config_mod.ConfigError(cfg.path, None, f"node {node_name} is in slurm.conf: start it without -Z")
        dynamic_conf = dynamic_node.definition(node_name, hw, dynamic, f"gpu:{len(gpus)}" if gpus else "")
        node = conf_records.parse_node_line(dynamic_conf, dynamic_node.ORIGIN)
    settings = cfg.slurmd_settings
    policy = StepPolicy(
        cgroup=load_cgroup_config(cgroup_conf_path(cfg.path)), backend=backend,
        node_tag=f"{cfg.cluster_name}_{node_name}", real_memory_mb=hw.real_memory_mb,
        gpu_devices={gpu.index: str(gpu.path) for gpu in gpus},
        unkillable_timeout=settings.unkillable_step_timeout_s, prolog=settings.prolog, epilog=settings.epilog,
        task_prolog=settings.task_prolog, task_epilog=settings.task_epilog,
        script_timeout=settings.prolog_epilog_timeout_s, gather_frequency=settings.gather_frequency_s)
    # A dynamic node without its own NodeAddr= (the address defaults to the name) is reached
    # where its registration comes from, as Slurm does.
    address = "" if dynamic is not None and node.address == node_name else node.address
    return NodeSetup(cfg, node, policy, tuple(gpus), dynamic_conf, address)


def main() -> None:
    parser = argument_parser(PROG, "pyslurm node agent")
    parser.add_argument("-N", dest="node_name", help="node name (default: short host name)")
    parser.add_argument("-C", dest="print_hw", action="store_true", help="print this node's hardware and exit")
    parser.add_argument("-Z", dest="dynamic", action="store_true",
                        help="dynamic node: register with the controller without being in slurm.conf")
    parser.add_argument("--conf", dest="node_conf", default="",
                        help='with -Z: this node\'s slurm.conf parameters, e.g. "RealMemory=8000 Gres=gpu:2"')
    parser.add_argument("--dev-root", type=Path, default=Path("/dev"),
                        help="where GPU autodetection looks for nvidia<N> devices (containers, tests)")
    parser.add_argument("--nvml-recording", type=Path, default=None,
                        help="answer GPU sampling from this recording instead of NVML (tests, demos)")
    opts = parser.parse_args()
    node_name = opts.node_name or socket.gethostname().split(".")[0]
    hw = hardware.detect()
    if opts.print_hw:
        print(hardware.node_line(node_name, hw))
        return
    if opts.node_conf and not opts.dynamic:
        fatal(PROG, "--conf is only for dynamic nodes (-Z)")
    cluster = load_cluster_identity(PROG, opts.conf)
    cfg, key = cluster.cfg, cluster.key
    dynamic = opts.node_conf if opts.dynamic else None
    try:
        root, backend = cgroup.detect(cfg.cluster_name, node_name)
        scope = stepd_scope.for_agent(cfg.cluster_name, node_name) if backend == "v2" else None
        if scope is not None:   # a service of systemd's: the job trees go into the stepds' scope
            root = scope.cgroup / root.name
        elif backend == "v2":
            cgroup.move_agent_to_leaf(root, node_name)
    except cgroup.CgroupError as exc:
        fatal(PROG, str(exc))
    try:
        setup = node_setup(cfg, node_name, dynamic, hw, opts.dev_root, backend)
    except config_mod.ConfigError as exc:
        fatal(PROG, str(exc))
    try:
        probe = gpu_probe(opts.nvml_recording)
    except (RecordingError, OSError) as exc:
        fatal(PROG, f"--nvml-recording: {exc}")

    def per_node(path: str | None) -> str | None:
        return cfg.node_path(path, node_name) if path else None

    daemon_log.setup_logging(cfg.slurmd_debug, per_node(cfg.slurmd_log_file), opts.verbose, opts.log_file,
                             opts.foreground)
    write_pid_file(opts.pid_file or per_node(cfg.slurmd_pid_file))
    port = setup.node.port or cfg.slurmd_port
    log.info("cgroup.conf: %s", setup.policy.cgroup)
    log.info("node %s: %d CPUs, %d MB, gres '%s' (%s), cgroup %s at %s%s", node_name, hw.cpus,
             hw.real_memory_mb, setup.gres, ", ".join(str(g.path) for g in setup.gpus) or "no GPUs", backend, root,
             f", dynamic: {setup.dynamic_conf}" if dynamic is not None else "")

    async def serve(stop: asyncio.Event) -> None:
        privileged = {0, cluster.slurm_uid}
        session = ControllerSession(setup, port, hw, backend, Signer(key))
        spool = cfg.spool_dir_for(node_name)
        launcher = StepdLauncher(spool / "stepd_server" / "socket", scope)
        with contextlib.suppress(StepError):   # logged; the first launch tries again
            await launcher.start_server()
        steps = StepManager(spool, root, node_name, session.report, setup.policy, launcher)
        session.steps = steps
        mapping_dir = cfg.slurmd_settings.gpu_job_mapping_dir
        mapping = JobMappingDir(Path(mapping_dir), setup.policy.gpu_devices) if mapping_dir else None
        session.gpus = GpuSampler(steps, probe, on_sample=mapping.update if mapping else None)

        async def reload() -> None:
            """Re-read the files; a running step keeps the policy it started with."""
            try:
                new_cfg = await asyncio.to_thread(config_mod.load_config, session.cfg.path)
                new = await asyncio.to_thread(node_setup, new_cfg, node_name, dynamic, hw, opts.dev_root, backend)
            except config_mod.ConfigError as exc:
                log.error("reconfigure refused, keeping the running configuration: %s", exc)
                raise SlurmError(Strerror.INVALID_ARGUMENT, str(exc)) from exc
            session.setup = new
            steps.policy = new.policy
            daemon_log.apply(new_cfg.slurmd_debug, per_node(new_cfg.slurmd_log_file))
            log.info("reconfigured from %s", new_cfg.path)
            await session.register()

        async def reload_on_hangup() -> None:
            with contextlib.suppress(SlurmError):   # a refusal is logged by reload()
                await reload()

        steps.recover()
        server = make_server(ServerAuth(key, NODE_AGENT, port))
        slurmd_pb2_grpc.add_NodeAgentServicer_to_server(NodeAgentServicer(steps, privileged, key, reload), server)
        listen(PROG, server, port)
        await server.start()
        handle_reload(reload_on_hangup)
        sd_notify.ready(f"node {node_name} listening on port {port}")
        beat = asyncio.create_task(session.run(stop))
        sampling = asyncio.create_task(session.gpus.run(stop))
        await stop.wait()
        beat.cancel()
        await sampling
        session.gpus.probe.close()
        await server.stop(grace=1)
        await launcher.stop()
        if not steps.running_steps():
            for leftover in (root / "system", root):  # empty by now: stepds leave through `system`
                try:
                    leftover.rmdir()
                except OSError:
                    pass

    run_until_signalled(serve)
