"""--get-user-env, and sbatch --export=NONE or a variable list: the batch script starts from the
user's login environment on this node with the submitted variables on top, as Slurm's slurmd
does when the job brings SLURM_GET_USER_ENV=1 (env_array_user_default).

The login environment is what the user's own login shell prints (`runuser -l <user> -c 'env -0'`):
it runs as the user, within a time limit and a size bound. When it fails the job keeps what it
brought, as in Slurm ("running only with passed environment").
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

log = logging.getLogger(__name__)

MARKER = "SLURM_GET_USER_ENV=1"
TIMEOUT_SECONDS = 8            # Slurm's default for --get-user-env
MAX_BYTES = 1 << 20            # a login environment larger than this is not believed
RUNUSER = "/usr/sbin/runuser"


def wanted(environment: Sequence[str]) -> bool:
    return MARKER in environment


def merged(login: dict[str, str], environment: Sequence[str]) -> list[str]:
    """The login variables, each submitted one replacing or adding to them."""
    out = dict(login)
    for item in environment:
        name, sep, value = item.partition("=")
        if sep:
            out[name] = value
    return [f"{k}={v}" for k, v in out.items()]


def parse(output: bytes) -> dict[str, str]:
    found = {}
    for item in output.decode(errors="surrogateescape").split("\0"):
        name, sep, value = item.partition("=")
        if sep and name and "\n" not in name:
            found[name] = value
    return found


async def login_environment(user_name: str, job_id: int) -> dict[str, str] | None:
    try:
        proc = await asyncio.create_subprocess_exec(
            RUNUSER, "-l", user_name, "-c", "env -0", stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
            env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
    except OSError as exc:
        log.error("job=%d cannot start %s: %s", job_id, RUNUSER, exc)
        return None
    assert proc.stdout is not None
    try:
        output = await asyncio.wait_for(proc.stdout.read(MAX_BYTES + 1), TIMEOUT_SECONDS)
        await asyncio.wait_for(proc.wait(), TIMEOUT_SECONDS)
    except asyncio.TimeoutError:
        output = b""
    if proc.returncode is None:
        proc.kill()
        await proc.wait()
    if proc.returncode != 0 or not output or len(output) > MAX_BYTES:
        log.error("job=%d _get_user_env: Unable to get user's local environment, running only with "
                  "passed environment", job_id)
        return None
    return parse(output)
