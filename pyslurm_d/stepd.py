"""stepd: the privileged per-step process (one per job step on a node).

Started by pyslurmd as `python -m pyslurm_d.stepd <step dir> <cgroup root>`
with the launch request as one JSON line on stdin. It creates the step's
cgroup, opens the output files as the user, forks the task (which joins its
task cgroup, drops to the user's groups/gid/uid and execs), then serves
control commands on `<step dir>/stepd.sock` until every process of the step
is gone (`terminate <cause>`, `signal <num> <mode>` answer `ok`; `usage`
answers one JSON line; failures answer `error <why>`). The outcome is written
to `<step dir>/result.json`, which outlives both stepd and a restarting pyslurmd.

Single-threaded on purpose: the task is forked directly, with no
preexec_fn-in-a-threaded-process hazards. Imports only the stdlib.
"""
from __future__ import annotations

import ctypes
import json
import os
import pwd
import resource
import selectors
import signal
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .cgroup import CgroupError, StepCgroup, join
from .cgroup_limits import CgroupLimitError, Device, StepLimits, StepLimitSet, Usage, create_step_limits

PR_SET_CHILD_SUBREAPER = 36
POLL = 0.02
CAUSE_SUFFIX = {
    "CANCELLED": "",
    "TIME LIMIT": " DUE TO TIME LIMIT",
    "NODE FAILURE": " DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS",
}


@dataclass(slots=True)
class Launch:
    job_id: int
    uid: int
    gid: int
    user_name: str
    node_name: str
    script_path: str
    argv: list[str]
    environment: list[str]
    work_dir: str
    std_out: str
    std_err: str
    std_in: str
    append: bool
    umask: int
    kill_wait: int
    step: str = "batch"
    rlimits: list[str] = field(default_factory=list)
    unkillable_timeout: int = 60
    cgroup_backend: str = "hybrid"
    node_tag: str = ""
    cpu_ids: list[int] = field(default_factory=list)     # affinity (and cpuset when constrained)
    constrain_cpus: bool = False
    memory_bytes: int | None = None
    memory_swap_bytes: int | None = None
    denied_devices: list[str] = field(default_factory=list)  # device nodes the step may not open
    gather_frequency: int = 30          # JobAcctGatherFrequency (task=N): seconds between samples


@dataclass(slots=True)
class StepState:
    task_pid: int = 0
    task_status: int | None = None
    start_time: int = 0
    kill_deadline: float | None = None
    killed_at: float | None = None       # when SIGKILL went to the whole step
    oom_kills: int = 0
    usage: Usage | None = None
    unkillable: bool = False
    cancelled: bool = False
    error: str = ""
    fds: list[int] = field(default_factory=list)


def _user_groups(launch: Launch) -> list[int]:
    try:
        return os.getgrouplist(launch.user_name, launch.gid)
    except OSError:
        return [launch.gid]


def open_io_as_user(launch: Launch, groups: list[int]) -> tuple[int, int, int]:
    """Open stdin/stdout/stderr with the user's identity, so files are theirs."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if launch.append else os.O_TRUNC)
    os.setgroups(groups)
    os.setegid(launch.gid)
    os.seteuid(launch.uid)
    old_umask = os.umask(launch.umask)
    opened: list[int] = []
    try:
        stdin = os.open(launch.std_in, os.O_RDONLY)
        opened.append(stdin)
        stdout = os.open(launch.std_out, flags, 0o666)
        opened.append(stdout)
        stderr = stdout if launch.std_err == launch.std_out else os.open(launch.std_err, flags, 0o666)
        return stdin, stdout, stderr
    except OSError as exc:
        for fd in opened:
            os.close(fd)
        raise OSError(exc.errno, f"cannot open {exc.filename}: {exc.strerror}") from exc
    finally:
        os.umask(old_umask)
        os.seteuid(0)
        os.setegid(0)
        os.setgroups([])


def apply_rlimits(items: list[str]) -> None:
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
            os.write(2, f"slurmstepd: error: Can't propagate RLIMIT_{name}: {exc}\n".encode())


def user_environment(env: dict[str, str], pw: pwd.struct_passwd) -> None:
    """HOME, USER, LOGNAME and SHELL as the job's user has them, unless exported from the submitter."""
    env.setdefault("HOME", pw.pw_dir)
    env.setdefault("USER", pw.pw_name)
    env.setdefault("LOGNAME", pw.pw_name)
    env.setdefault("SHELL", pw.pw_shell or "/bin/sh")


def step_limits(launch: Launch) -> StepLimits:
    return StepLimits(
        cpus=tuple(launch.cpu_ids) if launch.constrain_cpus and launch.cpu_ids else None,
        memory_bytes=launch.memory_bytes, memory_swap_bytes=launch.memory_swap_bytes,
        denied_devices=tuple(Device.of_path(p) for p in launch.denied_devices if os.path.exists(p)),
    )


def exec_task(launch: Launch, cg: StepCgroup, limits: StepLimitSet, groups: list[int],
              fds: tuple[int, int, int]) -> None:
    """In the forked child: join the task cgroup and the limits, drop privileges, exec. Never returns."""
    try:
        join(cg.task_dir(0))
        limits.join(os.getpid())
        if launch.cpu_ids:
            os.sched_setaffinity(0, launch.cpu_ids)
        os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        apply_rlimits(launch.rlimits)
        os.setgroups(groups)
        os.setgid(launch.gid)
        os.setuid(launch.uid)
        os.umask(launch.umask)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGPIPE, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        env = dict(item.split("=", 1) for item in launch.environment if "=" in item)
        try:
            user_environment(env, pwd.getpwuid(launch.uid))
        except KeyError:
            pass
        try:
            os.chdir(launch.work_dir)
        except OSError as exc:
            os.write(2, f"slurmstepd: error: couldn't chdir to `{launch.work_dir}': {exc.strerror}: "
                        "going to /tmp instead\n".encode())
            os.chdir("/tmp")
        env["PWD"] = os.getcwd()
        env.setdefault("TMPDIR", "/tmp")
        env["SLURM_TASK_PID"] = str(os.getpid())
        os.execve(launch.script_path, [launch.script_path, *launch.argv], env)
    except BaseException as exc:  # noqa: BLE001 - the child must never return into stepd
        try:
            os.write(2, f"slurmstepd: error: execve(): {launch.script_path}: {exc}\n".encode())
        finally:
            os._exit(127)


class Stepd:
    def __init__(self, launch: Launch, step_dir: Path, cgroup_root: Path) -> None:
        self.launch = launch
        self.step_dir = step_dir
        self.cg = StepCgroup(cgroup_root, launch.job_id, launch.step)
        self.state = StepState()
        self.selector = selectors.DefaultSelector()
        self.limits: StepLimitSet | None = None

    # ---- start ----------------------------------------------------------------

    def start(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # orphans of the task come back to us to reap
        self.cg.create()
        join(self.cg.slurm_dir)
        launch = self.launch
        try:
            self.limits = create_step_limits(launch.cgroup_backend, launch.node_tag, launch.job_id,
                                             launch.step, step_limits(launch), v2_step_dir=self.cg.step_dir)
        except CgroupLimitError as exc:
            raise OSError(exc.errno or 0, f"cgroup limits: {exc}") from exc
        groups = _user_groups(launch)
        fds = open_io_as_user(launch, groups)
        self.state.fds = sorted(set(fds))
        self.state.start_time = int(time.time())
        pid = os.fork()
        if pid == 0:
            exec_task(launch, self.cg, self.limits, groups, fds)
        self.state.task_pid = pid
        os.close(fds[0])

    # ---- run ------------------------------------------------------------------

    def serve(self, control: socket.socket) -> None:
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self.selector.register(wake_r, selectors.EVENT_READ, "wake")
        self.selector.register(control, selectors.EVENT_READ, "control")
        self._reap()  # the task may already have exited
        next_sample = time.monotonic() + self.launch.gather_frequency
        while not self._done():
            timeout = POLL if self.state.task_status is not None or self.state.kill_deadline else 1.0
            for key, _ in self.selector.select(timeout):
                if key.data == "wake":
                    os.read(wake_r, 512)
                else:
                    self._handle_control(control)
            self._reap()
            self._enforce_kill_deadline()
            if self.launch.gather_frequency > 0 and time.monotonic() >= next_sample:
                next_sample = time.monotonic() + self.launch.gather_frequency
                self._sample()

    def _done(self) -> bool:
        if self.state.task_status is None:
            return False
        if not self.cg.populated():
            return True
        killed_at = self.state.killed_at
        if killed_at is not None and time.monotonic() - killed_at > self.launch.unkillable_timeout:
            # Processes in D state (hung NFS, driver) outlive SIGKILL: report, stop waiting.
            self.state.unkillable = True
            return True
        return False

    def _sample(self) -> None:
        """Periodic accounting sample (JobAcctGatherFrequency): keeps the running figures current
        (where the kernel keeps no peak, the backend tracks it from these samples)."""
        if self.limits is not None and self.state.task_status is None:
            try:
                self.state.usage = self.limits.usage()
            except CgroupLimitError:
                pass

    def _collect_usage(self) -> None:
        """OOM events and usage once the task is gone, with the Slurm message for OOM kills."""
        if self.limits is None:
            return
        try:
            self.state.oom_kills = self.limits.oom_kills()
            self.state.usage = self.limits.usage()
        except CgroupLimitError as exc:
            self.state.error = str(exc)
        if self.state.oom_kills:
            self._write_stderr(
                f"slurmstepd: error: Detected {self.state.oom_kills} oom-kill event(s) in "
                f"StepId={self.launch.job_id}.{self.launch.step}. Some of your processes may have been "
                "killed by the cgroup out-of-memory handler.\n")

    def _kill_everything(self) -> None:
        self.cg.kill_all()
        if self.state.killed_at is None:
            self.state.killed_at = time.monotonic()

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.state.task_pid and self.state.task_status is None:
                self.state.task_status = status
                self._collect_usage()
                # The batch script ended: whatever it left behind in the step goes too.
                self._kill_everything()

    def _enforce_kill_deadline(self) -> None:
        deadline = self.state.kill_deadline
        if deadline is not None and time.monotonic() >= deadline and self.cg.populated():
            self._kill_everything()
            self.state.kill_deadline = None

    def _handle_control(self, control: socket.socket) -> None:
        conn, _ = control.accept()
        with conn:
            conn.settimeout(2)
            try:
                words = conn.recv(4096).decode().split()
            except OSError:
                return
            reply = self._command(words)
            try:
                conn.sendall((reply + "\n").encode())
            except OSError:
                pass

    def _command(self, words: list[str]) -> str:
        if not words:
            return "error empty command"
        if words[0] == "terminate":
            self.terminate(" ".join(words[1:]) or "CANCELLED")
            return "ok"
        if words[0] == "signal" and len(words) == 3 and words[1].isdigit():
            self.deliver(int(words[1]), words[2])
            return "ok"
        if words[0] == "usage" and len(words) == 1:
            return self.usage_line()
        return f"error unknown command {words[0]}"

    def usage_line(self) -> str:
        """The `usage` reply (sstat): one JSON object with the step's memory now and at its peak,
        and its CPU times so far, read from the step's cgroup; `error <why>` if unreadable."""
        if self.limits is None:
            return "error step has no cgroup"
        try:
            usage = self.limits.usage()
            current = self.limits.current_rss_bytes()
        except CgroupLimitError as exc:
            return f"error {exc}"
        return json.dumps({"step": self.launch.step, "ntasks": 1, "max_rss_bytes": usage.max_rss_bytes,
                           "current_rss_bytes": current, "user_cpu_usec": usage.user_cpu_usec,
                           "system_cpu_usec": usage.system_cpu_usec})

    def terminate(self, cause: str) -> None:
        """Slurm's kill sequence: message, SIGCONT + SIGTERM, KillWait, SIGKILL."""
        if self.state.cancelled:
            return
        self.state.cancelled = True
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        line = (f"slurmstepd: error: *** JOB {self.launch.job_id} ON {self.launch.node_name} "
                f"CANCELLED AT {stamp}{CAUSE_SUFFIX.get(cause, '')} ***\n")
        self._write_stderr(line)
        self.cg.signal_all(signal.SIGCONT)
        self.cg.signal_all(signal.SIGTERM)
        self.state.kill_deadline = time.monotonic() + self.launch.kill_wait

    def deliver(self, sig: int, mode: str) -> None:
        if mode == "batch":
            if self.state.task_status is None:
                try:
                    os.kill(self.state.task_pid, sig)
                except ProcessLookupError:
                    pass
        elif mode == "full":
            self.cg.signal_all(sig)
        # mode "steps": signal job steps but not the batch shell; a batch step has no others.

    def _write_stderr(self, text: str) -> None:
        if self.state.fds:
            try:
                os.write(self.state.fds[-1], text.encode())
            except OSError:
                pass

    # ---- finish -----------------------------------------------------------------

    def result(self) -> dict[str, object]:
        status = self.state.task_status
        usage = self.state.usage
        code, sig = 1, 0
        if status is not None:
            if os.WIFEXITED(status):
                code = os.WEXITSTATUS(status)
            elif os.WIFSIGNALED(status):
                code, sig = 0, os.WTERMSIG(status)
        return {"job_id": self.launch.job_id, "exit_code": code, "exit_signal": sig,
                "start_time": self.state.start_time, "end_time": int(time.time()),
                "launch_failed": False, "error": self.state.error,
                "kill_task_failed": self.state.unkillable, "out_of_memory": self.state.oom_kills > 0,
                "max_rss_kb": usage.max_rss_bytes // 1024 if usage else 0,
                "user_cpu_usec": usage.user_cpu_usec if usage else 0,
                "system_cpu_usec": usage.system_cpu_usec if usage else 0}

    def cleanup(self) -> None:
        for fd in self.state.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.cg.leave()  # so the step's cgroup can be removed
        if self.state.unkillable:  # a populated cgroup cannot be removed; the node is drained
            return
        if self.limits is not None:
            try:
                self.limits.remove()
            except CgroupLimitError as exc:
                self.state.error = self.state.error or str(exc)
        self.cg.remove()


def write_result(step_dir: Path, result: dict[str, object]) -> None:
    tmp = step_dir / "result.json.tmp"
    tmp.write_text(json.dumps(result))
    with tmp.open("rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, step_dir / "result.json")


def control_socket(path: Path) -> socket.socket:
    path.unlink(missing_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    os.chmod(path, 0o600)
    sock.listen(16)
    return sock


def report(line: str) -> None:
    """Tell pyslurmd how the start went; it may be gone already (restarted), which is fine."""
    try:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
        sys.stdout.close()
    except OSError:
        pass


def main() -> None:
    step_dir, cgroup_root = Path(sys.argv[1]), Path(sys.argv[2])
    launch = Launch(**json.loads(sys.stdin.readline()))
    sys.stdin.close()
    (step_dir / "stepd.pid").write_text(str(os.getpid()))
    control = control_socket(step_dir / "stepd.sock")
    stepd = Stepd(launch, step_dir, cgroup_root)
    try:
        stepd.start()
    except OSError as exc:
        stepd.state.error = str(exc.strerror or exc)
        result = stepd.result() | {"launch_failed": True, "exit_code": 1}
        stepd.cleanup()
        write_result(step_dir, result)
        report(f"failed {stepd.state.error}")
        return
    report(f"started {stepd.state.task_pid}")
    stepd.serve(control)
    result = stepd.result()
    try:
        stepd.cleanup()
    except (OSError, CgroupError) as exc:  # the outcome must still reach pyslurmd
        result["error"] = result.get("error") or f"cleanup: {exc}"
    write_result(step_dir, result)
    control.close()
    (step_dir / "stepd.sock").unlink(missing_ok=True)
    (step_dir / "stepd.pid").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
