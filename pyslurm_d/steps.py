"""pyslurmd's side of job steps: spool directories, stepd processes, results.

A step's spool directory `<SlurmdSpoolDir>/job<%05d id>` (root, mode 0711) holds
the script (the user's, mode 0700), the stepd's pid and control socket, and
finally `result.json`. The directory is removed only after the controller
acknowledged the result, so a restarted pyslurmd finds and reports what
finished while it was away, and re-attaches to stepds still running.
"""
from __future__ import annotations

import asyncio
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

from .prolog import run_script, script_environment

log = logging.getLogger(__name__)
STEPD_START_TIMEOUT = 30.0
ORPHAN_POLL = 0.5

Result = dict[str, object]


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

    def limits_for(self, msg: slurmd_pb2.BatchLaunch) -> dict[str, object]:
        cfg = self.cgroup
        memory, memory_swap = (memory_limits(cfg, msg.memory_mb, self.real_memory_mb)
                               if cfg.constrain_ram_space else (None, None))
        allocated = set(msg.gpu_indices)
        return {
            "cgroup_backend": self.backend, "node_tag": self.node_tag,
            "cpu_ids": list(msg.cpu_ids), "constrain_cpus": cfg.constrain_cores,
            "memory_bytes": memory, "memory_swap_bytes": memory_swap if cfg.constrain_swap_space else None,
            "denied_devices": ([path for index, path in sorted(self.gpu_devices.items()) if index not in allocated]
                               if cfg.constrain_devices else []),
            "unkillable_timeout": self.unkillable_timeout, "gather_frequency": self.gather_frequency,
        }


class StepError(Exception):
    pass


class StepGone(StepError):
    """The job has no stepd here (never had, or it just ended)."""


class PrologFailed(StepError):
    """The Prolog failed: nothing of the job was started here."""


class StepManager:
    def __init__(self, spool: Path, cgroup_root: Path, node_name: str,
                 report: Callable[[Result], Awaitable[None]], policy: StepPolicy) -> None:
        self.spool = spool
        self.policy = policy
        self.cgroup_root = cgroup_root
        self.node_name = node_name
        self._report = report
        self._running: set[int] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    def job_dir(self, job_id: int) -> Path:
        return self.spool / f"job{job_id:05d}"

    def running_jobs(self) -> list[int]:
        return sorted(self._running)

    # ---- launch ---------------------------------------------------------------

    async def launch_batch(self, msg: slurmd_pb2.BatchLaunch) -> None:
        if msg.job_id in self._running:
            raise StepError(f"job {msg.job_id} is already running here")
        job_dir = self.job_dir(msg.job_id)
        if job_dir.exists():
            shutil.rmtree(job_dir)
        job_dir.mkdir(mode=0o711, parents=True)
        os.chmod(job_dir, 0o711)
        script_env = script_environment(list(msg.environment), self.node_name)
        # Kept for the Epilog, which may run after a restart of this agent (root only: 0600).
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
        launch = {
            "job_id": msg.job_id, "uid": msg.uid, "gid": msg.gid, "user_name": msg.user_name,
            "node_name": self.node_name, "script_path": str(script), "argv": list(msg.argv),
            "environment": [*msg.environment, f"SLURMD_NODENAME={self.node_name}"],
            "work_dir": msg.work_dir, "std_out": msg.std_out, "std_err": msg.std_err,
            "std_in": msg.std_in or "/dev/null", "append": msg.append, "umask": msg.umask,
            "kill_wait": msg.kill_wait, "rlimits": list(msg.rlimits),
            **self.policy.limits_for(msg),
        }
        self.cgroup_root.mkdir(parents=True, exist_ok=True)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "pyslurm_d.stepd", str(job_dir), str(self.cgroup_root),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, start_new_session=True)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((json.dumps(launch) + "\n").encode())
        await proc.stdin.drain()
        proc.stdin.close()
        self._running.add(msg.job_id)
        line = (await asyncio.wait_for(proc.stdout.readline(), STEPD_START_TIMEOUT)).decode().strip()
        if line.startswith("failed"):
            log.error("job=%d step launch failed: %s", msg.job_id, line[len("failed "):])
        self._spawn(self._watch_child(msg.job_id, proc))

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)  # type: ignore[arg-type]
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _watch_child(self, job_id: int, proc: asyncio.subprocess.Process) -> None:
        await proc.wait()
        await self._finish(job_id)

    async def _watch_orphan(self, job_id: int, pid: int) -> None:
        while _alive(pid):
            await asyncio.sleep(ORPHAN_POLL)
        await self._finish(job_id)

    async def _finish(self, job_id: int) -> None:
        job_dir = self.job_dir(job_id)
        try:
            result: Result = json.loads((job_dir / "result.json").read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            result = {"job_id": job_id, "exit_code": 1, "exit_signal": 0, "launch_failed": True,
                      "error": "stepd ended without a result", "start_time": 0, "end_time": 0}
        if self.policy.epilog:
            result["epilog_failed"] = not await self._epilog(job_dir, result)
        await self._report(result)   # retries until the controller has it
        self._running.discard(job_id)
        shutil.rmtree(job_dir, ignore_errors=True)

    async def _epilog(self, job_dir: Path, result: Result) -> bool:
        assert self.policy.epilog is not None
        try:
            env: dict[str, str] = json.loads((job_dir / "script_env.json").read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            env = {"SLURM_JOB_ID": str(result["job_id"]), "SLURMD_NODENAME": self.node_name}
        env["SLURM_JOB_EXIT_CODE"] = str(result.get("exit_code", 0))
        outcome = await run_script(self.policy.epilog, env, "epilog_slurmd", self.policy.script_timeout)
        if not outcome.ok:
            log.error("job=%s %s", result["job_id"], outcome.detail)
        return outcome.ok

    # ---- control ----------------------------------------------------------------

    async def query(self, job_id: int, words: str) -> str:
        """Send one control command to the job's stepd and return its one-line reply.

        Raises StepGone when the job has no stepd here (or it went away), StepError for an
        `error ...` reply.
        """
        sock = self.job_dir(job_id) / "stepd.sock"
        if job_id not in self._running or not sock.exists():
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

    async def command(self, job_id: int, words: str) -> None:
        reply = await self.query(job_id, words)
        if reply != "ok":
            raise StepError(reply)

    async def command_quietly(self, job_id: int, words: str) -> None:
        """`command`, where a step that is not (or no longer) here counts as done."""
        try:
            await self.command(job_id, words)
        except (StepError, OSError) as exc:
            log.info("job=%d %s: %s", job_id, words, exc)

    # ---- restart ----------------------------------------------------------------

    def recover(self) -> None:
        """Re-attach to the steps a previous pyslurmd left behind."""
        self.spool.mkdir(parents=True, exist_ok=True)
        for job_dir in sorted(self.spool.glob("job[0-9]*")):
            job_id = int(job_dir.name[3:])
            self._running.add(job_id)
            pid_file = job_dir / "stepd.pid"
            pid = int(pid_file.read_text()) if pid_file.exists() else 0
            if not (job_dir / "result.json").exists() and pid and _alive(pid):
                log.info("job=%d re-attached to stepd %d", job_id, pid)
                self._spawn(self._watch_orphan(job_id, pid))
            else:
                self._spawn(self._finish(job_id))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return Path(f"/proc/{pid}/cmdline").exists() and b"pyslurm_d.stepd" in Path(f"/proc/{pid}/cmdline").read_bytes()
