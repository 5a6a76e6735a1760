"""Running a fired trigger's program: as the user who set the trigger (through trigger_exec.py),
never as root for someone else, in a session of its own, killed with everything it started after MAX_PROG_TIME
(Slurm's five minutes). slurmctld's checks before it runs one (trigger_mgr.c _validate_trigger):
the program is a regular file that user may execute."""
from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pwd
import signal
import stat
import sys

from ..model.triggers import Trigger

log = logging.getLogger(__name__)
MAX_PROG_TIME = 300.0


def executable_for(path: str, uid: int, gid: int) -> bool:
    """Whether `path` is a regular file whose mode lets `uid`/`gid` execute it."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode):
        return False
    if info.st_uid == uid:
        modes = info.st_mode >> 6
    elif info.st_gid == gid:
        modes = info.st_mode >> 3
    else:
        modes = info.st_mode
    return bool(modes & 1)


async def run_trigger(trigger: Trigger, argument: str) -> None:
    if not executable_for(trigger.path, trigger.uid, trigger.gid):
        log.info("trigger %d: program %s is not an executable file for uid %d: not run", trigger.trig_id,
                 trigger.path, trigger.uid)
        return
    try:
        user = pwd.getpwuid(trigger.uid)
    except KeyError:
        log.error("trigger %d: uid %d has no user: not run", trigger.trig_id, trigger.uid)
        return
    if os.geteuid() not in (0, trigger.uid):
        log.error("trigger %d: cannot run as uid %d (the controller runs as uid %d): not run",
                  trigger.trig_id, trigger.uid, os.geteuid())
        return
    argv = trigger.argv(argument)
    home = user.pw_dir if os.path.isdir(user.pw_dir) else "/"
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": user.pw_dir, "USER": user.pw_name,
           "LOGNAME": user.pw_name}
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-I", "-m", "pyslurm_ctld.shell.trigger_exec", str(trigger.uid), str(trigger.gid),
            user.pw_name, trigger.path, *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL, cwd=home, env=env, start_new_session=True)
    except OSError as exc:
        log.error("trigger %d: cannot run %s: %s", trigger.trig_id, trigger.path, exc)
        return
    log.info("trigger %d: %s %s started as uid %d (pid %d)", trigger.trig_id, trigger.path, argument,
             trigger.uid, proc.pid)
    try:
        await asyncio.wait_for(proc.wait(), MAX_PROG_TIME)
    except (TimeoutError, asyncio.CancelledError) as exc:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        log.info("trigger %d: %s killed after %.0f s", trigger.trig_id, trigger.path, MAX_PROG_TIME)
        return
    if proc.returncode:
        log.info("trigger %d: %s exited with status %d", trigger.trig_id, trigger.path, proc.returncode)
