"""Prolog and Epilog: the site's scripts, run as root on the node around each job.

The Prolog runs before the job's first step starts on the node; a failure (non-zero exit,
or no exit within PrologEpilogTimeout) stops the launch: the controller requeues the job held
and drains the node. The Epilog runs after every process of the job is gone; a failure drains
the node. Both get Slurm's restricted environment (spec daemons-and-cgroups.md §3), not the
job's.
"""
from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass

log = logging.getLogger(__name__)

# Variables of the job's environment that the scripts see too.
_FROM_JOB = ("SLURM_JOB_ID", "SLURM_JOB_USER", "SLURM_JOB_UID", "SLURM_JOB_GID", "SLURM_JOB_PARTITION",
             "SLURM_JOB_ACCOUNT", "SLURM_JOB_NAME", "SLURM_JOB_NODELIST", "SLURM_CLUSTER_NAME", "SLURM_CONF",
             "SLURM_JOB_GPUS")


@dataclass(frozen=True, slots=True)
class ScriptOutcome:
    ok: bool
    detail: str


def script_environment(job_environment: list[str], node_name: str) -> dict[str, str]:
    job = dict(item.split("=", 1) for item in job_environment if "=" in item)
    env = {key: job[key] for key in _FROM_JOB if key in job}
    env["SLURMD_NODENAME"] = node_name
    env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    if "SLURM_JOB_GPUS" in env:  # the scripts run outside the job's cgroup: global indices
        env["CUDA_VISIBLE_DEVICES"] = env["SLURM_JOB_GPUS"]
    return env


async def run_script(path: str, env: dict[str, str], context: str, timeout: float | None) -> ScriptOutcome:
    """Run `path` as root with `env` (+ SLURM_SCRIPT_CONTEXT=context); output goes to the log."""
    try:
        proc = await asyncio.create_subprocess_exec(
            path, env={**env, "SLURM_SCRIPT_CONTEXT": context}, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, cwd="/",
            start_new_session=True)
    except OSError as exc:
        return ScriptOutcome(False, f"{context} {path}: {exc.strerror}")
    try:
        output, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        os.killpg(proc.pid, 9)
        await proc.wait()
        return ScriptOutcome(False, f"{context} {path} timed out after {timeout}s")
    text = output.decode(errors="replace").strip()
    if text:
        log.info("job=%s %s output: %s", env.get("SLURM_JOB_ID", "?"), context, text[-2000:])
    if proc.returncode != 0:
        return ScriptOutcome(False, f"{context} {path} exited with status {proc.returncode}")
    return ScriptOutcome(True, "")
