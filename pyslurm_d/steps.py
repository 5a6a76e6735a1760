"""pyslurmd's side of job steps: spool directories, stepd processes, results.

A step is `(job id, step)` with step "batch" or an srun step number. Its spool
directory, `<SlurmdSpoolDir>/job<%05d id>` for the batch step and
`job<%05d id>.<step>` for the others (root, mode 0711), holds
the script (the user's, mode 0700), the stepd's pid and control socket,
the stepd's `result.json` and finally the end to report (step_spool.py). The
directory is removed only after the controller acknowledged the end, so a
restarted pyslurmd finds and reports what finished while it was away, and
re-attaches to stepds still running. A stepd that dies without a result
leaves its tasks and cgroups behind: they are killed and removed
(cgroup_sweep.py), and its end is reported as lost.

A launch, once it reached this agent, runs to its end even if the controller
that asked for it goes away meanwhile (its RPC is cancelled then): a
half-done launch would leave a step that nobody watches.
"""
from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Awaitable, Callable

from pyslurm_common.cgroup_conf import CgroupConfig, memory_limits
from pyslurm_common.rpc import slurmd_pb2

from . import cgroup_sweep, gpu_usage, user_login_env
from .cgroup import CgroupError, warm_migration
from .launch import Launch
from .prolog import run_script, script_environment
from .step_messages import StepdPlace, StepResult, encode
from .step_spool import END_FILE, read_end, read_result, write_end
from .stepd_scope import StepdScope

log = logging.getLogger(__name__)
STEPD_START_TIMEOUT = 30.0
SERVER_START_TIMEOUT = 10.0
ORPHAN_POLL = 0.5
REPORT_RETRY = 0.5

StepKey = tuple[int, str]     # (job id, "batch" | "0" | "1" ...)
BATCH = "batch"


@dataclass(frozen=True, slots=True)
class StepPolicy:
    """How this node confines steps: cgroup.conf plus what the node has."""

    cgroup: CgroupConfig
    backend: str                      # "hybrid" or "v2"
    node_tag: str                     # <cluster>_<node>, names the cgroup trees
    real_memory_mb: int               # physical memory, caps memory limits (MaxRAMPercent)
    gpu_devices: dict[int, str]       # global GPU index -> device node
    unkillable_timeout: int = 60
    prolog: str | None = None         # slurm.conf Prolog / Epilog, run as root around each job
    epilog: str | None = None
    script_timeout: float | None = None   # PrologEpilogTimeout (None: unlimited)
    gather_frequency: int = 30            # JobAcctGatherFrequency task sampling, seconds
    task_prolog: str = ""                 # slurm.conf TaskProlog / TaskEpilog, run as the user around each task
    task_epilog: str = ""

    def confine(self, launch: Launch, msg: slurmd_pb2.BatchLaunch | slurmd_pb2.TaskLaunch) -> Launch:
        """`launch` with this node's limits for the CPUs, memory and GPUs `msg` was given."""
        cfg = self.cgroup
        memory, memory_swap = (memory_limits(cfg, msg.memory_mb, self.real_memory_mb)
                               if cfg.constrain_ram_space else (None, None))
        allocated = set(msg.gpu_indices)
        return dataclasses.replace(
            launch, cgroup_backend=self.backend, node_tag=self.node_tag,
            cpu_ids=list(msg.cpu_ids), constrain_cpus=cfg.constrain_cores,
            memory_bytes=memory, memory_swap_bytes=memory_swap if cfg.constrain_swap_space else None,
            denied_devices=([path for index, path in sorted(self.gpu_devices.items()) if index not in allocated]
                            if cfg.constrain_devices else []),
            unkillable_timeout=self.unkillable_timeout, gather_frequency=self.gather_frequency,
            task_prolog=self.task_prolog, task_epilog=self.task_epilog)


class StepError(Exception):
    pass


class StepGone(StepError):
    """The job has no stepd here (never had, or it just ended)."""


class PrologFailed(StepError):
    """The Prolog failed: nothing of the job was started here."""


class StepdLauncher:
    """Starts stepds through the fork server (stepd_server.py), and keeps that server running."""

    def __init__(self, socket_path: Path, scope: StepdScope | None = None) -> None:
        self.socket_path = socket_path
        self.scope = scope                      # under systemd: where the stepds live (stepd_scope.py)
        self._server: asyncio.subprocess.Process | None = None

    async def start_server(self) -> None:
        self.socket_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.socket_path.unlink(missing_ok=True)
        # Its stdin is our pipe: the server exits when this agent does. -I (isolated): a root
        # process must not import from its working directory or take PYTHON* variables.
        argv, creating = [sys.executable, "-I", "-m", "pyslurm_d.stepd_server", str(self.socket_path)], False
        if self.scope is not None:
            argv, creating = self.scope.command(argv)
        self._server = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.PIPE)
        if self.scope is not None:
            try:
                await self.scope.adopt(self._server.pid, creating)
            except CgroupError as exc:
                log.error("%s", exc)
                await self.stop()
                self._server = None
                raise StepError(f"cannot start stepd: {exc}") from exc

    async def launch(self, step_dir: Path, cgroup_root: Path,
                     launch: Launch) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection to a new stepd for `launch`; it closes when the stepd exits."""
        for attempt in range(2):
            if self._server is None or self._server.returncode is not None:
                await self.start_server()
            try:
                reader, writer = await self._connect()
                break
            except OSError as exc:
                log.warning("stepd server unreachable (%s), restarting it", exc)
                self._server = None
                if attempt:
                    raise StepError(f"cannot start stepd: {exc}") from exc
        place = StepdPlace(step_dir=str(step_dir), cgroup_root=str(cgroup_root))
        writer.write(f"{encode(place)}\n{encode(launch)}\n".encode())
        await writer.drain()
        return reader, writer

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        deadline = asyncio.get_running_loop().time() + SERVER_START_TIMEOUT
        while True:   # the server may still be starting
            try:
                return await asyncio.open_unix_connection(str(self.socket_path))
            except (FileNotFoundError, ConnectionRefusedError):
                if asyncio.get_running_loop().time() > deadline:
                    raise
                await asyncio.sleep(0.01)

    async def stop(self) -> None:
        if self._server is not None and self._server.stdin is not None:
            self._server.stdin.close()
            await self._server.wait()


class StepManager:
    def __init__(self, spool: Path, cgroup_root: Path, node_name: str,
                 report: Callable[[StepResult], Awaitable[bool]], policy: StepPolicy,
                 launcher: StepdLauncher) -> None:
        self.spool = spool
        self.launcher = launcher
        self.policy = policy
        self.cgroup_root = cgroup_root
        self.node_name = node_name
        self._report = report                   # one try to tell the controller an end: True if it has it
        self._running: set[StepKey] = set()     # launching, running or ending here
        self._watched: set[StepKey] = set()     # a stepd was started (its end not collected yet)
        self.launches = 0                       # launches begun by this agent so far
        self._launch_number: dict[StepKey, int] = {}   # which of them is each step's (0: recovered)
        self._ends: dict[StepKey, StepResult] = {}  # ended, not acknowledged by the controller yet
        self._tasks: set[asyncio.Task[object]] = set()

    def job_dir(self, job_id: int, step: str = BATCH) -> Path:
        return self.spool / (f"job{job_id:05d}" if step == BATCH else f"job{job_id:05d}.{step}")

    def running_steps(self) -> list[StepKey]:
        """The steps held here whose end is not known yet (being launched, running or ending)."""
        return sorted(self._running - self._ends.keys())

    def unacknowledged_ends(self) -> list[StepResult]:
        return [self._ends[key] for key in sorted(self._ends)]

    def acknowledge(self, key: StepKey) -> None:
        """The controller has recorded the step's end: forget it."""
        if self._ends.pop(key, None) is not None:
            self._forget(key)
            shutil.rmtree(self.job_dir(*key), ignore_errors=True)

    def _forget(self, key: StepKey) -> None:
        self._running.discard(key)
        self._launch_number.pop(key, None)

    def launched_by(self, key: StepKey, launches: int) -> bool:
        """The step here now is one of the first `launches` launches (not a later run of the same
        job and step, which a reply about an earlier report must leave alone)."""
        return self._launch_number.get(key, 0) <= launches

    def steps_of(self, job_id: int) -> list[str]:
        return sorted(step for j, step in self._running if j == job_id)

    @property
    def cgroup_trees(self) -> cgroup_sweep.CgroupTrees:
        return cgroup_sweep.CgroupTrees(self.cgroup_root, self.policy.backend, self.policy.node_tag)

    # ---- launch ---------------------------------------------------------------

    async def launch_batch(self, msg: slurmd_pb2.BatchLaunch) -> None:
        if (msg.job_id, BATCH) in self._running:
            raise StepError(f"job {msg.job_id} is already running here")
        await self._unstoppable((msg.job_id, BATCH), self._launch_batch(msg))

    async def _unstoppable(self, key: StepKey, launch: Awaitable[object]) -> object:
        """Run a launch of `key` to its end, whether or not its caller waits for it; the step is
        held here from now on (reported to the controller), and let go if it never started."""
        self._running.add(key)
        self.launches += 1
        self._launch_number[key] = self.launches

        async def run() -> object:
            try:
                return await launch
            except BaseException as exc:
                # Logged here: the controller that asked may be gone (it then learns from our reports).
                log.error("job=%d step %s launch failed: %s", key[0], key[1], exc)
                if key not in self._watched:   # no stepd was started: nothing of it is here
                    self._forget(key)
                    shutil.rmtree(self.job_dir(*key), ignore_errors=True)
                raise
        task: asyncio.Task[object] = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return await asyncio.shield(task)

    async def _launch_batch(self, msg: slurmd_pb2.BatchLaunch) -> None:
        job_dir = self.job_dir(msg.job_id)
        if job_dir.exists():
            shutil.rmtree(job_dir)
        job_dir.mkdir(mode=0o711, parents=True)
        os.chmod(job_dir, 0o711)
        script_env = script_environment(list(msg.environment), self.node_name)
        if self.policy.epilog:
            # Kept for the Epilog, which may run after a restart of this agent (root only: 0600).
            # Not written without one: a file more to create and remove for every job.
            fd = os.open(job_dir / "script_env.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump(script_env, f)
        if self.policy.prolog:
            outcome = await run_script(self.policy.prolog, script_env, "prolog_slurmd", self.policy.script_timeout)
            if not outcome.ok:
                shutil.rmtree(job_dir, ignore_errors=True)
                raise PrologFailed(outcome.detail)
        script = job_dir / "slurm_script"
        fd = os.open(script, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o700)
        with os.fdopen(fd, "w") as f:
            f.write(msg.script)
        os.chown(script, msg.uid, msg.gid)
        environment = list(msg.environment)
        if user_login_env.wanted(environment):
            login = await user_login_env.login_environment(msg.user_name, msg.job_id)
            environment = user_login_env.merged(login, environment) if login is not None else environment
        launch = Launch(
            job_id=msg.job_id, uid=msg.uid, gid=msg.gid, user_name=msg.user_name,
            node_name=self.node_name, script_path=str(script), argv=list(msg.argv),
            environment=[*environment, f"SLURMD_NODENAME={self.node_name}"],
            work_dir=msg.work_dir, std_out=msg.std_out, std_err=msg.std_err,
            std_in=msg.std_in or "/dev/null", append=msg.append, umask=msg.umask,
            kill_wait=msg.kill_wait, rlimits=list(msg.rlimits))
        launch = self.policy.confine(launch, msg)
        gpu_usage.write_allocation(job_dir, msg.gpu_indices)
        await self._start_stepd((msg.job_id, BATCH), launch)

    async def launch_tasks(self, msg: slurmd_pb2.TaskLaunch) -> None:
        """This node's part of an srun step: its stepd connects back to srun for the I/O."""
        key = (msg.job_id, str(msg.step_id))
        if key in self._running:
            raise StepError(f"step {msg.job_id}.{msg.step_id} is already running here")
        failure = await self._unstoppable(key, self._launch_tasks(key, msg))
        if failure:
            raise StepError(str(failure))

    async def _launch_tasks(self, key: StepKey, msg: slurmd_pb2.TaskLaunch) -> str:
        job_dir = self.job_dir(*key)
        if job_dir.exists():
            shutil.rmtree(job_dir)
        job_dir.mkdir(mode=0o711, parents=True)
        launch = Launch(
            job_id=msg.job_id, step=str(msg.step_id), uid=msg.uid, gid=msg.gid,
            user_name=msg.user_name, node_name=self.node_name, script_path="", argv=list(msg.argv),
            environment=list(msg.environment), work_dir=msg.work_dir, std_out=msg.std_out,
            std_err=msg.std_err, std_in=msg.std_in, append=msg.append, umask=msg.umask,
            kill_wait=msg.kill_wait, rlimits=list(msg.rlimits), task_ids=list(msg.task_ids),
            node_index=msg.node_index, num_tasks=msg.num_tasks, io_host=msg.io_host,
            io_port=msg.io_port, io_key=msg.io_key, pty=msg.pty, pty_rows=msg.pty_rows,
            pty_cols=msg.pty_cols, input_task=msg.input_task, kill_on_bad_exit=msg.kill_on_bad_exit,
            job_name=msg.job_name, multi_prog=msg.multi_prog,
            bcast_staged=msg.bcast_staged)
        launch = self.policy.confine(launch, msg)
        gpu_usage.write_allocation(job_dir, msg.gpu_indices)
        return await self._start_stepd(key, launch)

    async def _start_stepd(self, key: StepKey, launch: Launch) -> str:
        """Fork the step's stepd and wait for it to say how the start went: "" or why it failed
        (the stepd then still writes a result, which is reported as for any other end)."""
        self.cgroup_root.mkdir(parents=True, exist_ok=True)
        # The stepd's first cgroup move would wait for the kernel (cgroup.warm_migration): that
        # wait starts now, in a thread, and passes while the stepd is forked and set up.
        asyncio.get_running_loop().run_in_executor(None, warm_migration)
        reader, writer = await self.launcher.launch(self.job_dir(*key), self.cgroup_root, launch)
        self._watched.add(key)   # from here on the stepd exists: its end is how the step ends
        try:
            line = (await asyncio.wait_for(reader.readline(), STEPD_START_TIMEOUT)).decode().strip()
        except TimeoutError:
            line = f"failed stepd did not report its start within {STEPD_START_TIMEOUT:.0f} s"
        finally:
            self._spawn(self._watch_stepd(key, reader, writer))
        failure = line[len("failed "):] if line.startswith("failed") else ""
        if failure:
            log.error("job=%d step %s launch failed: %s", key[0], key[1], failure)
        return failure

    def _spawn(self, coro: Awaitable[object]) -> None:
        task = asyncio.get_running_loop().create_task(coro)  # type: ignore[arg-type]
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _watch_stepd(self, key: StepKey, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await reader.read(4096):   # end of file: the stepd exited
            pass
        writer.close()
        await self._finish(key)

    async def _watch_orphan(self, key: StepKey, pid: int) -> None:
        while _alive(pid):
            await asyncio.sleep(ORPHAN_POLL)
        await self._finish(key)

    async def _finish(self, key: StepKey) -> None:
        """Tell the controller how the step ended until it acknowledges it (here or in a
        registration or heartbeat reply), its end recorded durably (step_spool.py) first when it
        could not be worked out again the same way, else once the first report failed."""
        self._watched.discard(key)
        job_dir = self.job_dir(*key)
        result = read_end(job_dir)
        recorded = result is not None
        if result is None:
            result = dataclasses.replace(read_result(job_dir, key[0]), step=key[1], gpus=gpu_usage.figures(job_dir))
            if result.stepd_lost:
                log.error("job=%d step %s: its stepd died without a result: killing what is left of it",
                          key[0], key[1])
                await self._remove_cgroups(key, result)
            ran_epilog = bool(self.policy.epilog) and key[1] == BATCH
            if ran_epilog:
                result.epilog_failed = not await self._epilog(job_dir, result)
            if result.error:
                log.error("job=%d step %s %s", key[0], key[1], result.error)
            # The stepd's result.json gives the same end again after a restart of this agent; a
            # stand-in for a lost stepd (its end time), an Epilog's outcome (it must not run twice)
            # and GPU figures (sampled until now) would not.
            if result.stepd_lost or ran_epilog or result.gpus:
                await self._record(key, job_dir, result)
                recorded = True
        self._ends[key] = result
        while key in self._ends:
            if await self._report(result):
                self.acknowledge(key)
                continue
            if not recorded:   # the controller may stay away longer than this node stays up
                await self._record(key, job_dir, result)
                recorded = True
            await asyncio.sleep(REPORT_RETRY)

    async def _record(self, key: StepKey, job_dir: Path, result: StepResult) -> None:
        try:
            await asyncio.to_thread(write_end, job_dir, result)   # two fsyncs: other steps go on meanwhile
        except FileNotFoundError:
            if key in self._ends:
                raise
            # acknowledged meanwhile (a heartbeat reply): its directory is gone, nothing to keep

    async def _remove_cgroups(self, key: StepKey, result: StepResult) -> None:
        try:
            await asyncio.to_thread(cgroup_sweep.remove_step, self.cgroup_trees, key, self.policy.unkillable_timeout)
        except (CgroupError, OSError) as exc:
            log.error("job=%d step %s: %s", key[0], key[1], exc)
            result.kill_task_failed = True   # the node gets drained, as for an unkillable step

    async def _epilog(self, job_dir: Path, result: StepResult) -> bool:
        assert self.policy.epilog is not None
        try:
            env: dict[str, str] = json.loads((job_dir / "script_env.json").read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            env = {"SLURM_JOB_ID": str(result.job_id), "SLURMD_NODENAME": self.node_name}
        env["SLURM_JOB_EXIT_CODE"] = str(result.exit_code)
        outcome = await run_script(self.policy.epilog, env, "epilog_slurmd", self.policy.script_timeout)
        if not outcome.ok:
            log.error("job=%s %s", result.job_id, outcome.detail)
        return outcome.ok

    # ---- control ----------------------------------------------------------------

    async def query(self, job_id: int, words: str, step: str = BATCH) -> str:
        """Send one control command to a step's stepd and return its one-line reply.

        Raises StepGone when the step has no stepd here (or it went away), StepError for an
        `error ...` reply.
        """
        sock = self.job_dir(job_id, step) / "stepd.sock"
        if (job_id, step) not in self._running or not sock.exists():
            raise StepGone(f"job {job_id} has no step here")
        try:
            reader, writer = await asyncio.open_unix_connection(str(sock))
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise StepGone(f"job {job_id} has no step here ({exc.strerror})") from exc
        try:
            writer.write((words + "\n").encode())
            await writer.drain()
            reply = (await asyncio.wait_for(reader.readline(), 5)).decode().strip()
        finally:
            writer.close()
        if not reply or reply.startswith("error"):
            raise StepError(reply or "stepd gave no reply")
        return reply

    async def command(self, job_id: int, words: str, step: str = BATCH) -> None:
        reply = await self.query(job_id, words, step)
        if reply != "ok":
            raise StepError(reply)

    async def command_quietly(self, job_id: int, words: str, step: str = "") -> None:
        """`command` to one step, or to every step of the job here ("" step); a step that is not
        (or no longer) here counts as done."""
        for each in ([step] if step else self.steps_of(job_id)):
            try:
                await self.command(job_id, words, each)
            except (StepError, OSError) as exc:
                log.info("job=%d step %s %s: %s", job_id, each, words, exc)

    def command_in_background(self, job_id: int, words: str, step: str = "") -> None:
        """`command_quietly`, not waited for. A stepd serves its socket only once its step has
        started (seconds on a loaded machine; until then a command waits up to 5 s for its
        reply), and the heartbeat loop that sends the controller's kills must keep its pace."""
        self._spawn(self.command_quietly(job_id, words, step))

    # ---- restart ----------------------------------------------------------------

    def recover(self) -> None:
        """Re-attach to the steps a previous pyslurmd left behind, then kill and remove the step
        cgroups that no live stepd owns (a stepd killed while this agent was away, say)."""
        self.spool.mkdir(parents=True, exist_ok=True)
        live: set[StepKey] = set()
        for job_dir in sorted(self.spool.glob("job[0-9]*")):
            job_text, _, step = job_dir.name[3:].partition(".")
            if not job_text.isdigit():
                continue
            key = (int(job_text), step or BATCH)
            if not any((job_dir / name).exists() for name in ("stepd.pid", "result.json", END_FILE)):
                # A stepd writes its pid first thing: this launch was cut short before one started
                # (during the Prolog, say). Nothing ran; the controller requeues the job.
                log.info("job=%d step %s: its launch ended with the previous agent, before a stepd started",
                         key[0], key[1])
                shutil.rmtree(job_dir, ignore_errors=True)
                continue
            self._running.add(key)
            pid_file = job_dir / "stepd.pid"
            pid = int(pid_file.read_text()) if pid_file.exists() else 0
            if not (job_dir / "result.json").exists() and pid and _alive(pid):
                log.info("job=%d step %s re-attached to stepd %d", key[0], key[1], pid)
                live.add(key)
                self._spawn(self._watch_orphan(key, pid))
            else:
                self._spawn(self._finish(key))
        cgroup_sweep.sweep(self.cgroup_trees, live, self.policy.unkillable_timeout)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return Path(f"/proc/{pid}/cmdline").exists() and b"pyslurm_d.stepd" in Path(f"/proc/{pid}/cmdline").read_bytes()
