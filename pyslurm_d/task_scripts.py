"""TaskProlog/TaskEpilog of slurm.conf and srun's --task-prolog/--task-epilog, run as the job's user.

A task's prologs run in the task's own process after it dropped to the user and before it execs
(slurm.conf's first, then srun's), with Slurm's protocol on their stdout: `export NAME=value`
sets a variable of the task, `unset NAME` removes one, `print TEXT` writes TEXT to the task's
stdout; other lines are ignored. The epilogs run when the task has ended (srun's first, with
Slurm's 5-second limit, then slurm.conf's), in the task's cgroup, as the user, with
SLURM_SCRIPT_CONTEXT=epilog_task. srun hands its scripts over as SLURM_TASK_PROLOG and
SLURM_TASK_EPILOG in the step environment (its input variables for the two options).

Stdlib only, like stepd. A script that cannot be run is reported on the task's stderr (prolog)
and never stops the step.
"""
from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable

USER_PROLOG, USER_EPILOG = "SLURM_TASK_PROLOG", "SLURM_TASK_EPILOG"
USER_EPILOG_TIMEOUT = 5.0        # Slurm's limit for srun --task-epilog
EPILOG_TIMEOUT = 300.0           # TaskEpilog: unlimited in Slurm; bounded here so a stuck one cannot hold the node
MAX_OUTPUT = 1 << 20


def apply_output(text: str, env: dict[str, str]) -> str:
    """Apply a prolog's `export`/`unset` lines to `env`; return what its `print` lines print."""
    printed: list[str] = []
    for line in text.splitlines():
        if line.startswith("print "):
            printed.append(line[6:].lstrip() + "\n")
        elif line.startswith("export "):
            name, equal, value = line[7:].lstrip().partition("=")
            if equal and name.rstrip():
                env[name.rstrip()] = value
        elif line.startswith("unset "):
            name = line[6:].strip()
            if name:
                env.pop(name, None)
    return "".join(printed)


def run_prologs(scripts: list[str], env: dict[str, str], stepd_name: str) -> None:
    """In the task's process, as the user: run each prolog and take its output into `env`."""
    for script in scripts:
        try:
            done = subprocess.run([script], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  check=False)
        except OSError as exc:
            os.write(2, f"{stepd_name}: error: task prolog {script}: {exc.strerror}\n".encode())
            continue
        printed = apply_output(done.stdout[:MAX_OUTPUT].decode(errors="replace"), env)
        if printed:
            os.write(1, printed.encode())


def run_epilogs(scripts: list[tuple[str, float]], env: dict[str, str], become_user: Callable[[], None]) -> None:
    """From stepd once a task ended: fork, become the user (`become_user` joins the task's cgroup
    and drops privileges), run each epilog with its time limit; stepd waits for it."""
    if not scripts:
        return
    pid = os.fork()
    if pid == 0:
        try:
            become_user()
            for script, limit in scripts:
                try:
                    subprocess.run([script], env={**env, "SLURM_SCRIPT_CONTEXT": "epilog_task"},
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   timeout=limit, check=False)
                except (OSError, subprocess.TimeoutExpired):
                    continue
        finally:
            os._exit(0)
    deadline = time.monotonic() + sum(limit for _, limit in scripts) + 5
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)


def prologs(conf_prolog: str, env: dict[str, str]) -> list[str]:
    return [s for s in (conf_prolog, env.get(USER_PROLOG, "")) if s]


def epilogs(conf_epilog: str, env: dict[str, str]) -> list[tuple[str, float]]:
    user = env.get(USER_EPILOG, "")
    return ([(user, USER_EPILOG_TIMEOUT)] if user else []) + ([(conf_epilog, EPILOG_TIMEOUT)] if conf_epilog else [])
