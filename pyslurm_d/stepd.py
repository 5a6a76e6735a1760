"""stepd: the privileged per-step process (one per job step on a node).

Started by pyslurmd as `python -m pyslurm_d.stepd <step dir> <cgroup root>`
with the launch request (a `Launch`, step_messages.py) as one JSON line on stdin. It creates the step's
cgroup, opens the output files as the user (or, for an srun step, connects
back to srun and streams every task's stdin/stdout/stderr, see
pyslurm_common/step_io.py, with a pseudo-terminal for --pty), forks the tasks
(each joins its task cgroup, drops to the user's groups/gid/uid and execs), then serves
control commands on `<step dir>/stepd.sock` until every process of the step
is gone and srun has the rest of the output, within a bound (`terminate <cause>`,
`signal <num> <mode>`, `notify <text>` answer `ok`; `usage` answers one JSON line; failures
answer `error <why>`). Nothing in that loop may block: a terminate is answered at once. The outcome (a `StepResult`) is written
to `<step dir>/result.json`, which outlives both stepd and a restarting pyslurmd.

Single-threaded on purpose: the task is forked directly, with no
preexec_fn-in-a-threaded-process hazards. Imports only the stdlib (and
the stdlib-only pyslurm_common modules).
"""
from __future__ import annotations

import ctypes
import dataclasses
import fcntl
import json
import os
import pty
import selectors
import signal
import socket
import struct
import sys
import termios
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pyslurm_common import step_io
from pyslurm_common.filename_pattern import PatternContext, resolve, step_array_ids

from .cgroup import CgroupError, StepCgroup, join
from .cgroup_limits import CgroupLimitError, Device, StepLimits, StepLimitSet, Usage, create_step_limits
from .launch import Launch, Task
from .pmi_service import PmiService
from .step_messages import MessageError, StepResult, decode, encode
from .stream_relay import SrunGone, StreamRelay
from .task_binding import plan as plan_bindings
from .task_exec import (exec_task, open_io_as_user, open_task_file, run_task_epilogs, task_environment,
                        user_groups, user_identity)

PR_SET_CHILD_SUBREAPER = 36
POLL = 0.02
FINAL_FLUSH_TIMEOUT = 30.0   # for an srun slow to take the last output of a step that ended on its own
ENDING_FLUSH_TIMEOUT = 2.0   # after a terminate: srun may be dead or stuck, the step must end
STREAM = "stream"          # selector tag of the srun stream and the task pipes
CAUSE_SUFFIX = {
    "CANCELLED": "",
    "TIME LIMIT": " DUE TO TIME LIMIT",
    "NODE FAILURE": " DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS",
    "PREEMPTION": " DUE TO PREEMPTION",
    "JOB REQUEUE": " DUE TO JOB REQUEUE",
}


@dataclass(slots=True)
class StepState:
    tasks: dict[int, Task] = field(default_factory=dict)   # by rank
    start_time: int = 0
    kill_deadline: float | None = None
    killed_at: float | None = None       # when SIGKILL went to the whole step
    oom_kills: int = 0
    usage: Usage | None = None
    unkillable: bool = False
    cancelled: bool = False
    end_requested_at: float | None = None   # when the first terminate (or srun's KILL) came
    error: str = ""
    fds: list[int] = field(default_factory=list)          # files and pipe ends the tasks got (closed after fork)
    stderr_fd: int | None = None         # where stepd's own messages go when there is no stream
    pty_master: int | None = None

    @property
    def all_exited(self) -> bool:
        return all(t.status is not None for t in self.tasks.values())


def step_limits(launch: Launch) -> StepLimits:
    return StepLimits(
        cpus=tuple(launch.cpu_ids) if launch.constrain_cpus and launch.cpu_ids else None,
        memory_bytes=launch.memory_bytes, memory_swap_bytes=launch.memory_swap_bytes,
        denied_devices=tuple(Device.of_path(p) for p in launch.denied_devices if os.path.exists(p)),
    )


class Stepd:
    def __init__(self, launch: Launch, step_dir: Path, cgroup_root: Path) -> None:
        self.launch = launch
        self.step_dir = step_dir
        self.cg = StepCgroup(cgroup_root, launch.job_id, launch.step)
        self.state = StepState(tasks={rank: Task(rank, local) for local, rank in enumerate(launch.task_ids)})
        self.selector = selectors.DefaultSelector()
        self.limits: StepLimitSet | None = None
        self.relay = StreamRelay(self.selector, None)   # connected to srun for an srun step
        self.pmi = PmiService.for_launch(launch)
        self.groups: list[int] = []   # the user's, looked up once (NSS): the tasks' and their epilogs'

    # ---- start ----------------------------------------------------------------

    def start(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # orphans of the task come back to us to reap
        launch = self.launch
        self.groups = groups = user_groups(launch)
        if launch.io_port:
            self.relay = StreamRelay.connect(self.selector, launch.io_host, launch.io_port, launch.io_key,
                                             launch.node_index)
        bindings = plan_bindings(launch, list(self.state.tasks.values()))
        task_fds = self._task_fds(groups)
        # The cgroup work comes last, in one stretch, the stepd's join just before the tasks join
        # theirs: the first move into a cgroup after a quiet spell waits for an RCU grace period
        # (8-16 ms here, cgroup_threadgroup_rwsem) and one made within about 10 ms of another
        # does not. pyslurmd starts that wait as it hands over the launch (cgroup.warm_migration);
        # the kernel holds cgroup_mutex meanwhile, so a mkdir of the step's cgroups would queue
        # behind it, and the set-up above (no cgroup work) runs while it passes instead.
        self.cg.create(len(self.state.tasks))
        try:
            self.limits = create_step_limits(launch.cgroup_backend, launch.node_tag, launch.job_id,
                                             launch.step, step_limits(launch), v2_step_dir=self.cg.step_dir)
        except CgroupLimitError as exc:
            raise OSError(exc.errno or 0, f"cgroup limits: {exc}") from exc
        join(self.cg.slurm_dir)
        self.state.start_time = int(time.time())
        node_ranks = ",".join(str(r) for r in launch.task_ids)
        for task in self.state.tasks.values():
            fds = task_fds[task.rank]
            env = task_environment(launch, task, node_ranks)
            bindings[task.rank].apply(env)
            if self.pmi:
                env.update(self.pmi.task_environment(task.rank))
            pid = os.fork()
            if pid == 0:
                exec_task(launch, task, self.cg, self.limits, groups, fds, env, bindings[task.rank],
                          controlling_tty=launch.pty and task.local_id == 0 and task.rank == 0,
                          pmi_fd=self.pmi.task_fd(task.rank) if self.pmi else None)
            task.pid = pid
        if self.pmi:
            self.pmi.serve_in(self.selector)
        for fd in self.state.fds:   # the tasks hold their ends now
            os.close(fd)
        self.state.fds = []

    def _task_fds(self, groups: list[int]) -> dict[int, tuple[int, int, int]]:
        """stdin, stdout and stderr of every task: files (batch, srun -o/-e/-i), pipes to the srun
        stream, a pseudo-terminal (--pty, task 0), or /dev/null."""
        launch, state = self.launch, self.state
        if launch.is_batch:
            fds = open_io_as_user(launch, groups)
            state.fds = sorted(set(fds))
            state.stderr_fd = os.dup(fds[2])
            return {0: fds}
        result: dict[int, tuple[int, int, int]] = {}
        null = os.open(os.devnull, os.O_RDWR)
        state.fds.append(null)
        for task in state.tasks.values():
            if launch.pty and task.rank == 0:
                master, slave = pty.openpty()
                if launch.pty_rows and launch.pty_cols:
                    set_window_size(master, launch.pty_rows, launch.pty_cols)
                state.fds.append(slave)
                state.pty_master = master
                self.relay.add_output(master, task.rank, step_io.STDOUT)
                self.relay.add_input(task.rank, master, terminal=True)
                result[task.rank] = (slave, slave, slave)
                continue
            if launch.pty:   # only task 0 talks to the terminal
                result[task.rank] = (null, null, null)
                continue
            result[task.rank] = (self._task_stdin(task, groups, null),
                                 self._task_output(task, launch.std_out, step_io.STDOUT, groups),
                                 self._task_output(task, launch.std_err or launch.std_out, step_io.STDERR, groups))
        return result

    def _task_stdin(self, task: Task, groups: list[int], null: int) -> int:
        launch = self.launch
        if launch.std_in == "none":
            return null
        if launch.std_in:
            with user_identity(launch, groups):
                fd = open_task_file(self._task_path(launch.std_in, task), os.O_RDONLY)
            self.state.fds.append(fd)
            return fd
        if not self.relay.streaming or launch.input_task == -2 or launch.input_task not in (-1, task.rank):
            return null
        read_end, write_end = os.pipe()
        self.state.fds.append(read_end)
        self.relay.add_input(task.rank, write_end)
        return read_end

    def _task_output(self, task: Task, pattern: str, kind: int, groups: list[int]) -> int:
        launch = self.launch
        if pattern == "none" or (not pattern and not self.relay.streaming):
            fd = os.open(os.devnull, os.O_WRONLY)
        elif pattern:
            flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if launch.append else os.O_TRUNC)
            with user_identity(launch, groups):
                fd = open_task_file(self._task_path(pattern, task), flags)
        else:
            read_end, fd = os.pipe()
            self.relay.add_output(read_end, task.rank, kind)
        self.state.fds.append(fd)
        if kind == step_io.STDERR and self.state.stderr_fd is None and not self.relay.streaming:
            self.state.stderr_fd = os.dup(fd)
        return fd

    def _task_path(self, pattern: str, task: Task) -> str:
        launch = self.launch
        ctx = PatternContext(job_id=launch.job_id, job_name=launch.job_name, user_name=launch.user_name,
                             node_name=launch.node_name, step=launch.step, task_rank=task.rank,
                             node_index=launch.node_index,
                             **step_array_ids(launch.job_id, dict(v.split("=", 1) for v in launch.environment if "=" in v)))
        return resolve(pattern, ctx, launch.work_dir)

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
            self.relay.update_interest(STREAM)
            busy = self.state.all_exited or self.state.kill_deadline
            self._serve_ready(control, wake_r, POLL if busy else 1.0)
            self._reap()
            self._enforce_kill_deadline()
            if self.launch.gather_frequency > 0 and time.monotonic() >= next_sample:
                next_sample = time.monotonic() + self.launch.gather_frequency
                self._sample()
        self._hand_over_the_rest(control, wake_r)

    def _serve_ready(self, control: socket.socket, wake_r: int, timeout: float) -> None:
        for key, events in self.selector.select(timeout):
            if key.data == "wake":
                os.read(wake_r, 512)
            elif key.data == "control":
                self._handle_control(control)
            elif isinstance(key.data, tuple):
                self._serve_pmi(key.data[1], events)
            else:
                self._relay(key.fd, events)

    def _hand_over_the_rest(self, control: socket.socket, wake_r: int) -> None:
        """Every process of the step is gone: hand srun what the pipes still hold and the node's
        end, and wait until it has them, answering control commands all the while. Bounded: an srun
        slow to read gets FINAL_FLUSH_TIMEOUT; once the step was told to end, one that is dead,
        stopped or not reading gets ENDING_FLUSH_TIMEOUT more, so that a terminate ends the stepd
        within KillWait and a few seconds whatever srun does."""
        started = time.monotonic()
        while not self.relay.wind_down(self.launch.node_index):
            ends_at = started + FINAL_FLUSH_TIMEOUT
            if self.state.end_requested_at is not None:
                ends_at = min(ends_at, max(started, self.state.end_requested_at) + ENDING_FLUSH_TIMEOUT)
            if time.monotonic() >= ends_at:
                return   # cleanup() closes the stream; what srun did not take is lost
            self.relay.update_interest(STREAM)
            self._serve_ready(control, wake_r, POLL)

    def _relay(self, fd: int, events: int) -> None:
        try:
            frames = self.relay.handle(fd, events)
        except SrunGone:   # nobody is left to read the output or stop the step
            self.relay.close()
            if not self.state.all_exited:
                self.terminate("CANCELLED")
            return
        for frame in frames:
            if frame.kind == step_io.SIGNAL and frame.payload.isdigit():
                self.cg.signal_all(int(frame.payload))
            elif frame.kind == step_io.WINSIZE and self.state.pty_master is not None:
                rows, _, cols = frame.payload.decode().partition(" ")
                if rows.isdigit() and cols.isdigit():
                    set_window_size(self.state.pty_master, int(rows), int(cols))
                    self.cg.signal_all(signal.SIGWINCH)
            elif frame.kind == step_io.KILL:   # srun's forced termination: SIGKILL at once, as Slurm's srun sends
                self.terminate("CANCELLED", at_once=True)
            elif frame.kind == step_io.PMI_KVS and self.pmi:
                self.pmi.fence_done(frame.payload)

    def _serve_pmi(self, rank: int, events: int) -> None:
        """A task's PMI socket is ready; a fence every local task entered goes up to srun; an abort ends the step."""
        assert self.pmi is not None
        aborts = self.pmi.serve(rank, events)
        payload = self.pmi.fence_payload()
        if payload is not None:
            self.relay.send(step_io.encode(step_io.PMI_FENCE, self.launch.node_index, payload))
        for abort in aborts:
            self._write_stderr(f"{self.launch.stepd_name}: error: PMI abort from task {abort.rank}"
                               f"{': ' + abort.message if abort.message else ''}\n")
            self.terminate("CANCELLED")

    def _done(self) -> bool:
        if not self.state.all_exited:
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
        if self.limits is not None and not self.state.all_exited:
            try:
                self.state.usage = self.limits.usage()
            except CgroupLimitError:
                pass

    def _collect_usage(self) -> None:
        """OOM events and usage once the tasks are gone, with the Slurm message for OOM kills."""
        if self.limits is None:
            return
        try:
            self.state.oom_kills = self.limits.oom_kills()
            self.state.usage = self.limits.usage()
        except CgroupLimitError as exc:
            self.state.error = str(exc)
        if self.state.oom_kills:
            self._write_stderr(
                f"{self.launch.stepd_name}: error: Detected {self.state.oom_kills} oom-kill event(s) in "
                f"StepId={self.launch.job_id}.{self.launch.step}. Some of your processes may have been "
                "killed by the cgroup out-of-memory handler.\n")

    def _kill_everything(self) -> None:
        self.cg.kill_all()
        if self.state.killed_at is None:
            self.state.killed_at = time.monotonic()

    def _reap(self) -> None:
        by_pid = {t.pid: t for t in self.state.tasks.values() if t.status is None}
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            task = by_pid.get(pid)
            if task is not None:
                self._task_ended(task, status)

    def _task_ended(self, task: Task, status: int) -> None:
        task.status = status
        env = task_environment(self.launch, task, ",".join(str(r) for r in self.launch.task_ids))
        run_task_epilogs(self.launch, task, self.cg, self.groups, env)
        self.relay.close_input(task.rank)
        code, sig = _exit_figures(status)
        if self.relay.streaming:
            oom = sig == signal.SIGKILL and self.limits is not None and self._oom_seen()
            self.relay.send(step_io.task_exit(task.rank, code, sig, oom))
        if (code or sig) and self.launch.kill_on_bad_exit:
            self.terminate("CANCELLED")
        if self.state.all_exited:
            self._collect_usage()
            # The script (or every task) ended: whatever it left behind in the step goes too.
            self._kill_everything()

    def _oom_seen(self) -> bool:
        assert self.limits is not None
        try:
            return self.limits.oom_kills() > 0
        except CgroupLimitError:
            return False

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
            if self.relay.streaming and not self.state.cancelled:
                self.relay.send(step_io.encode(step_io.ABORTED, self.launch.task_ids[0]))
            self.terminate(" ".join(words[1:]) or "CANCELLED")
            return "ok"
        if words[0] == "signal" and len(words) == 3 and words[1].isdigit():
            self.deliver(int(words[1]), words[2])
            return "ok"
        if words[0] == "usage" and len(words) == 1:
            return self.usage_line()
        if words[0] == "notify" and len(words) > 1:   # the controller's message for the user
            self._write_stderr(f"{self.launch.stepd_name}: warning: {' '.join(words[1:])}\n")
            return "ok"
        if words[0] == "attach" and len(words) == 4 and words[2].isdigit():   # sattach, checked by the controller
            try:
                self.relay.copies.attach(words[1], int(words[2]), words[3], self.launch.node_index)
            except OSError as exc:
                return f"error cannot reach sattach at {words[1]}:{words[2]}: {exc.strerror or exc}"
            return "ok"
        if words[0] in ("suspend", "resume") and len(words) == 1:
            self.cg.freeze(words[0] == "suspend")
            return "ok"

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
        return json.dumps({"step": self.launch.step, "ntasks": len(self.state.tasks),
                           "max_rss_bytes": usage.max_rss_bytes, "current_rss_bytes": current,
                           "user_cpu_usec": usage.user_cpu_usec, "system_cpu_usec": usage.system_cpu_usec})

    def terminate(self, cause: str, at_once: bool = False) -> None:
        """Slurm's kill sequence: message, SIGCONT + SIGTERM, KillWait, SIGKILL (`at_once`: the
        message and SIGKILL). A step whose processes are all gone already ended on its own: only
        its stepd's wind-down is cut short. As slurmstepd, only the step's first node writes the
        message (Slurm 22.05: one `*** STEP ... ***` line for a step of two nodes)."""
        if self.state.end_requested_at is None:
            self.state.end_requested_at = time.monotonic()
        if self.state.cancelled or (self.state.all_exited and not self.cg.populated()):
            return
        self.state.cancelled = True
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        launch = self.launch
        what = f"JOB {launch.job_id}" if launch.is_batch else f"STEP {launch.job_id}.{launch.step}"
        if launch.node_index == 0:
            self._write_stderr(f"{self.launch.stepd_name}: error: *** {what} ON {launch.node_name} "
                               f"CANCELLED AT {stamp}{CAUSE_SUFFIX.get(cause, '')} ***\n")
        if at_once:
            self._kill_everything()
            return
        self.cg.freeze(False)   # a suspended step must run to hear SIGTERM
        self.cg.signal_all(signal.SIGCONT)
        self.cg.signal_all(signal.SIGTERM)
        self.state.kill_deadline = time.monotonic() + launch.kill_wait

    def deliver(self, sig: int, mode: str) -> None:
        """`signal <sig> batch|full|steps` from scancel: the batch shell alone, everything, or the
        job steps (which a batch stepd does not run)."""
        if mode == "batch":
            if self.launch.is_batch:
                for task in self.state.tasks.values():
                    if task.status is None:
                        try:
                            os.kill(task.pid, sig)
                        except ProcessLookupError:
                            pass
        elif mode == "full" or not self.launch.is_batch:
            self.cg.signal_all(sig)

    def _write_stderr(self, text: str) -> None:
        if self.relay.streaming:
            self.relay.send(step_io.encode(step_io.STDERR, self.launch.task_ids[0], text.encode()))
        elif self.state.stderr_fd is not None:
            try:
                os.write(self.state.stderr_fd, text.encode())
            except OSError:
                pass

    # ---- finish -----------------------------------------------------------------

    def result(self) -> StepResult:
        usage = self.state.usage
        code, sig = 0, 0
        for task in self.state.tasks.values():
            task_code, task_sig = _exit_figures(task.status) if task.status is not None else (1, 0)
            code, sig = max(code, task_code), sig or task_sig
        return StepResult(
            job_id=self.launch.job_id, step=self.launch.step, exit_code=code, exit_signal=sig,
            start_time=self.state.start_time, end_time=int(time.time()), error=self.state.error,
            cancelled=self.state.cancelled, kill_task_failed=self.state.unkillable,
            out_of_memory=self.state.oom_kills > 0, max_rss_kb=usage.max_rss_bytes // 1024 if usage else 0,
            user_cpu_usec=usage.user_cpu_usec if usage else 0, system_cpu_usec=usage.system_cpu_usec if usage else 0)

    def cleanup(self) -> None:
        self.relay.close()
        if self.pmi:
            self.pmi.close()
        for fd in (*self.state.fds, self.state.stderr_fd, self.state.pty_master):
            if fd is not None:
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


def _exit_figures(status: int) -> tuple[int, int]:
    """(exit code, signal) of a wait status."""
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status), 0
    if os.WIFSIGNALED(status):
        return 0, os.WTERMSIG(status)
    return 1, 0


def set_window_size(fd: int, rows: int, cols: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def write_result(step_dir: Path, result: StepResult) -> None:
    # Not fsync'd: pyslurmd reads it once this process is gone and keeps the end durably itself
    # (end.json, fsync'd); the page cache outlives any process. Only a crash of the node between
    # our exit and that write loses it, and then the step is reported lost, as its stepd is.
    # An fsync here was 10-15 ms on the critical path of every job's end.
    tmp = step_dir / "result.json.tmp"
    tmp.write_text(encode(result))
    os.replace(tmp, step_dir / "result.json")


def control_socket(path: Path) -> socket.socket:
    path.unlink(missing_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    os.chmod(path, 0o600)
    sock.listen(16)
    return sock


def run(step_dir: Path, cgroup_root: Path, launch: Launch, report: Callable[[str], None]) -> None:
    """One stepd's whole life: start the step, tell pyslurmd (`started <pids>` or `failed <why>`
    through `report`), serve it until every process is gone, leave the result behind."""
    (step_dir / "stepd.pid").write_text(str(os.getpid()))
    control = control_socket(step_dir / "stepd.sock")
    stepd = Stepd(launch, step_dir, cgroup_root)
    try:
        stepd.start()
    except OSError as exc:
        stepd.state.error = str(exc.strerror or exc)
        result = dataclasses.replace(stepd.result(), launch_failed=True, exit_code=1)
        stepd.cleanup()
        write_result(step_dir, result)
        report(f"failed {stepd.state.error}")
        return
    report(f"started {','.join(str(t.pid) for t in stepd.state.tasks.values())}")
    stepd.serve(control)
    result = stepd.result()
    try:
        stepd.cleanup()
    except (OSError, CgroupError) as exc:  # the outcome must still reach pyslurmd
        result.error = result.error or f"cleanup: {exc}"
    write_result(step_dir, result)
    control.close()
    (step_dir / "stepd.sock").unlink(missing_ok=True)
    (step_dir / "stepd.pid").unlink(missing_ok=True)


def main() -> None:
    """`python -m pyslurm_d.stepd <step dir> <cgroup root>`, the launch as a line on stdin."""
    def report(line: str) -> None:
        try:  # pyslurmd may be gone already (restarted), which is fine
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
            sys.stdout.close()
        except OSError:
            pass

    launch_line = sys.stdin.readline()
    sys.stdin.close()
    try:
        launch = decode(Launch, launch_line)
    except MessageError as exc:
        report(f"failed {exc}")
        raise SystemExit(1) from None
    run(Path(sys.argv[1]), Path(sys.argv[2]), launch, report)


if __name__ == "__main__":
    main()
