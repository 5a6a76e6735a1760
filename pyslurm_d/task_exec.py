"""The privileged exec shim of a task: open its files as the user, then, in the forked child,
join the task's cgroup and limits, drop to the user (groups, gid, uid), and exec.

Runs in stepd (single-threaded, so fork without preexec_fn hazards). Stdlib only.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import resource
import signal
import termios
from typing import Iterator

from pyslurm_common.multi_prog import MultiProgError, task_argv

from .cgroup import StepCgroup, join
from .cgroup_limits import StepLimitSet
from .launch import Launch, Task
from .task_binding import TaskBinding
from .task_scripts import epilogs, prologs, run_epilogs, run_prologs


def user_groups(launch: Launch) -> list[int]:
    try:
        return os.getgrouplist(launch.user_name, launch.gid)
    except OSError:
        return [launch.gid]


@contextlib.contextmanager
def user_identity(launch: Launch, groups: list[int]) -> Iterator[None]:
    """Open files with the user's identity, so they are theirs (and only what they may open)."""
    os.setgroups(groups)
    os.setegid(launch.gid)
    os.seteuid(launch.uid)
    old_umask = os.umask(launch.umask)
    try:
        yield
    finally:
        os.umask(old_umask)
        os.seteuid(0)
        os.setegid(0)
        os.setgroups([])


def open_task_file(path: str, flags: int) -> int:
    """os.open with the error naming the file; call it inside `user_identity`."""
    try:
        return os.open(path, flags, 0o666)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot open {exc.filename}: {exc.strerror}") from exc


def open_io_as_user(launch: Launch, groups: list[int]) -> tuple[int, int, int]:
    """The batch step's stdin/stdout/stderr files, opened as the user."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if launch.append else os.O_TRUNC)
    opened: list[int] = []
    with user_identity(launch, groups):
        try:
            opened.append(open_task_file(launch.std_in, os.O_RDONLY))
            opened.append(open_task_file(launch.std_out, flags))
            opened.append(opened[1] if launch.std_err == launch.std_out else open_task_file(launch.std_err, flags))
        except OSError:
            for fd in set(opened):
                os.close(fd)
            raise
    return opened[0], opened[1], opened[2]


def apply_rlimits(items: list[str], stepd_name: str) -> None:
    """Submit-host limits (`NAME=soft:hard`, -1 unlimited); as root, so hard limits may rise too."""
    for item in items:
        name, _, values = item.partition("=")
        soft, _, hard = values.partition(":")
        which = getattr(resource, f"RLIMIT_{name}", None)
        if which is None:
            continue
        try:
            resource.setrlimit(which, (int(soft), int(hard)))
        except (ValueError, OSError) as exc:
            os.write(2, f"{stepd_name}: error: Can't propagate RLIMIT_{name}: {exc}\n".encode())


def user_environment(env: dict[str, str], pw: pwd.struct_passwd) -> None:
    """HOME, USER, LOGNAME and SHELL as the job's user has them, unless exported from the submitter."""
    env.setdefault("HOME", pw.pw_dir)
    env.setdefault("USER", pw.pw_name)
    env.setdefault("LOGNAME", pw.pw_name)
    env.setdefault("SHELL", pw.pw_shell or "/bin/sh")


def task_environment(launch: Launch, task: Task, node_ranks: str) -> dict[str, str]:
    env = dict(item.split("=", 1) for item in launch.environment if "=" in item)
    if not launch.is_batch:
        env.update({"SLURM_PROCID": str(task.rank), "SLURM_LOCALID": str(task.local_id),
                    "SLURM_NODEID": str(launch.node_index), "SLURM_GTIDS": node_ranks,
                    "SLURMD_NODENAME": launch.node_name})
    return env


def run_task_epilogs(launch: Launch, task: Task, cg: StepCgroup, groups: list[int], env: dict[str, str]) -> None:
    """TaskEpilog and srun --task-epilog for an ended task, as the user in its cgroup (stepd waits)."""
    def become_user() -> None:
        join(cg.task_dir(task.local_id))
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setgroups(groups)
        os.setgid(launch.gid)
        os.setuid(launch.uid)
        os.chdir(launch.work_dir if os.path.isdir(launch.work_dir) else "/tmp")

    run_epilogs(epilogs(launch.task_epilog, env), env, become_user)


def bcast_copy(launch: Launch, directory: str) -> str:
    """The node's copy of a step's executable srun --bcast sent into `directory`: srun staged it
    under a name of its own; the first task here (already the user) gives it the step's name."""
    path = f"{directory}slurm_bcast_{launch.job_id}.{launch.step}_{launch.node_name}"
    if launch.bcast_staged:
        with contextlib.suppress(FileNotFoundError):   # another task of this node was first
            os.rename(f"{launch.bcast_staged}{launch.node_name}", path)
    return path


def join_task_cgroups(cg: StepCgroup, limits: StepLimitSet, local_id: int) -> None:
    """Move the calling (forked) task into its leaf of the step's tracking tree and, on v1, into
    the step of every limit hierarchy. v2 limits sit on <step>/user, above that leaf, so the one
    move puts the task under them: a second (V2StepLimits.join, into user/task_0) would take the
    kernel's cgroup move lock again for nothing, and put tasks 1.. into task 0's leaf."""
    join(cg.task_dir(local_id))
    if limits.backend != "v2":
        limits.join(os.getpid())


def exec_task(launch: Launch, task: Task, cg: StepCgroup, limits: StepLimitSet, groups: list[int],
              fds: tuple[int, int, int], env: dict[str, str], binding: TaskBinding, controlling_tty: bool,
              pmi_fd: int | None = None) -> None:
    """In the forked child: join the task cgroup and the limits, drop privileges, exec. Never returns."""
    program = launch.script_path or launch.argv[0]
    argv = launch.argv
    try:
        if launch.multi_prog:   # srun --multi-prog: this rank's line of the configuration
            argv = task_argv(launch.multi_prog, task.rank, launch.argv[1:])
            program = argv[0] if argv else ""
        join_task_cgroups(cg, limits, task.local_id)
        if binding.cpus:
            os.sched_setaffinity(0, binding.cpus)
        os.setsid()
        if controlling_tty:
            fcntl.ioctl(fds[0], termios.TIOCSCTTY, 0)
        pmi_fd = fcntl.fcntl(pmi_fd, fcntl.F_DUPFD, 10) if pmi_fd is not None else None  # clear of 0-3
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        if report := binding.report(os.getpid()):   # --cpu-bind/--gpu-bind=verbose, to the task's stderr
            os.write(2, report.encode())
        if not binding.bind_memory(launch.stepd_name, os.getpid()):
            os._exit(1)
        if pmi_fd is not None:   # the PMI socket (srun --mpi=pmi2) is fd 3, PMI_FD
            os.dup2(pmi_fd, 3)
        os.closerange(3 if pmi_fd is None else 4, 65536)   # nothing of stepd's (sockets, other tasks' pipes) leaks into the task
        apply_rlimits(launch.rlimits, launch.stepd_name)
        os.setgroups(groups)
        os.setgid(launch.gid)
        os.setuid(launch.uid)
        os.umask(launch.umask)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGPIPE, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        try:
            user_environment(env, pwd.getpwuid(launch.uid))
        except KeyError:
            pass
        try:
            os.chdir(launch.work_dir)
        except OSError as exc:
            os.write(2, f"{launch.stepd_name}: error: couldn't chdir to `{launch.work_dir}': {exc.strerror}: "
                        "going to /tmp instead\n".encode())
            os.chdir("/tmp")
        env["PWD"] = os.getcwd()
        env.setdefault("TMPDIR", "/tmp")
        env["SLURM_TASK_PID"] = str(os.getpid())
        run_prologs(prologs(launch.task_prolog, env), env, launch.stepd_name)
        if not launch.is_batch and program.endswith("/"):   # srun --bcast into a directory, as Slurm names it
            program = bcast_copy(launch, program)
            argv = [program, *argv[1:]]
        if launch.is_batch:
            os.execve(program, [program, *launch.argv], env)
        os.execvpe(program, argv, env)
    except BaseException as exc:  # noqa: BLE001 - the child must never return into stepd
        try:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            line = str(exc) if isinstance(exc, MultiProgError) else f"execve(): {program}: {reason}"
            os.write(2, f"{launch.stepd_name}: error: {line}\n".encode())
        finally:
            # Slurm's codes: 127 for a batch script that cannot run, 2 for a step's program.
            os._exit(127 if launch.is_batch else 2)
