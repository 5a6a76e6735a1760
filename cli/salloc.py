"""salloc: get an allocation, run a command (or the user's shell) here with its environment,
give the allocation back when the command ends (spec cli-sbatch-srun-salloc.md §4).

Signals while the command runs: SIGHUP gives the allocation back and exits; SIGTERM is
passed on to the command; the others (Ctrl-C and friends, which the terminal also delivers
to the command) are ignored by salloc itself.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence

from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import allocation, client, job_options, salloc_user_env, verbose_lines
from .app import die, run
from .cluster_option import check_clusters, this_cluster
from .command_line import collect, command_line
from .option_support import refuse_unsupported
from .submit_inputs import add_submission_inputs
from .option_tables import salloc as spec

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

PROG = "salloc"
# Beyond the shared allocation options (option_support.JOB_DESC)
ACTED_ON = frozenset({"no_shell", "exclusive", "clusters", "verbose", "immediate", "bell", "no_bell",
                      "kill_command", "get_user_env"})
BELL_AFTER = 10   # seconds of waiting after which salloc rings the terminal bell by default
IGNORED_WHILE_RUNNING = (signal.SIGINT, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGTSTP,
                         signal.SIGTTIN, signal.SIGTTOU)
QUIET_DEATHS = (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGKILL)  # exit 0, as Slurm's salloc
REVOCATION_POLL = 5.0


class _HangUp(Exception):
    pass


def salloc(args: Sequence[str]) -> None:
    """Obtain a job allocation and run a command in it."""
    cli = command_line(spec, args)
    values = collect(spec, cli, os.environ)
    refuse_unsupported(PROG, spec.OPTIONS, values, ACTED_ON)
    job_options.settle_options(PROG, values)
    kill_signal = kill_command_signal(values)
    if values.get("clusters") is not None:
        check_clusters(PROG, str(values["clusters"]), this_cluster())
    command = list(args[cli.operand_index:]) or [os.environ.get("SHELL") or "/bin/sh"]
    user_env = salloc_user_env.parsed(values)
    if values.get("verbose"):
        verbose_lines.say(PROG, verbose_lines.options_block(spec, values))
    salloc_user_env.require_root(user_env)
    desc = job_options.job_desc(values, os.path.basename(command[0]), os.environ, launcher="salloc",
                                script="", argv=command, exclusive=values.given("exclusive"))
    add_submission_inputs(desc, values, PROG)
    login_env = salloc_user_env.user_environment(
        user_env, desc.run_as_uid if desc.HasField("run_as_uid") else os.getuid()) if user_env else {}
    submitted = allocation.submit(PROG, desc)
    job_id = submitted.job_id
    say = allocation.informer(PROG, bool(values.get("quiet")))
    job = allocation.wait_until_started(PROG, job_id, bool(values.get("quiet")),
                                        pending_line=f"Pending job allocation {job_id}",
                                        immediate=allocation.immediate_seconds(values))
    if values.get("bell") or (values.get("bell") is None and not values.get("no_bell") and _waited_long(job)):
        sys.stderr.write("\a")   # --bell: ring when granted (by default after a wait of 10 s or more)
    say(f"Granted job allocation {job_id}")
    if values.get("no_shell"):
        return
    from pyslurm_common.client_settings import config_path

    from .allocation_env import allocation_environment

    conf = config_path()
    env = dict(login_env)
    env.update(os.environ)   # salloc's own variables win over the login ones, as in Slurm
    env.update(allocation_environment(job, submitted.cluster, conf if os.path.exists(conf) else ""))
    env.update(job_options.mem_bind_exports(values))
    code, signum = _run_command(command, env, job_id, kill_signal)
    say(f"Relinquishing job allocation {job_id}")
    allocation.release(job_id, exit_code=code, exit_signal=signum)
    raise SystemExit(exit_status(code, signum))


def _waited_long(job: pb.JobInfo) -> bool:
    return sys.stderr.isatty() and job.start_time - job.submit_time >= BELL_AFTER


def exit_status(code: int, signum: int) -> int:
    """salloc's status: the command's; 0 if HUP/INT/QUIT/KILL ended it; else 128+signal."""
    if signum:
        return 0 if signum in QUIET_DEATHS else 128 + signum
    return code


def kill_command_signal(values: Mapping[str, Any]) -> int:
    """-K/--kill-command[=signal]: the signal the command gets when the allocation is revoked
    (SIGTERM when none is named); 0 without the option."""
    raw = values.get("kill_command")
    if raw is None:
        return 0
    if raw == "":
        return int(signal.SIGTERM)
    from .signals import parse_signal

    try:
        return parse_signal(str(raw))
    except ValueError:
        die("Invalid --kill-command specification")


def _run_command(command: list[str], env: dict[str, str], job_id: int, kill_signal: int) -> tuple[int, int]:
    """(exit code, signal) of the command; (1, 0) when it cannot be started."""
    try:
        proc = subprocess.Popen(command, env=env)
    except OSError:
        print(f'salloc: error: _fork_command: Unable to find command "{command[0]}"', file=sys.stderr)
        return 1, 0

    def hang_up(signum: int, frame: object) -> None:
        raise _HangUp()

    previous = {s: signal.signal(s, lambda signum, frame: None) for s in IGNORED_WHILE_RUNNING}
    previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, lambda signum, frame: proc.send_signal(signum))
    previous[signal.SIGHUP] = signal.signal(signal.SIGHUP, hang_up)
    revoked = False
    try:
        while True:
            try:
                returncode = proc.wait(timeout=REVOCATION_POLL)
                break
            except subprocess.TimeoutExpired:
                if not revoked and not _still_running(job_id):
                    revoked = True
                    print(f"salloc: Job allocation {job_id} has been revoked.", file=sys.stderr)
                    if kill_signal:
                        proc.send_signal(kill_signal)
    except _HangUp:
        proc.send_signal(signal.SIGHUP)
        return 0, int(signal.SIGHUP)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return (0, -returncode) if returncode < 0 else (returncode, 0)


def _still_running(job_id: int) -> bool:
    try:
        jobs = client.controller("GetJobs", pb.JobQuery(job_ids=[job_id]), pb.JobList).jobs
    except (SlurmError, client.ConnectError):
        return True  # a controller we cannot ask has not revoked anything
    return bool(jobs) and jobs[0].state == "RUNNING"


def main() -> None:
    run(PROG, salloc)
