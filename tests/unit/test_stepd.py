"""stepd's end-of-step decisions, with the cgroup replaced by a recording fake."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from pyslurm_d import stepd as stepd_mod
from pyslurm_d.stepd import Launch, Stepd


class FakeCgroup:
    def __init__(self) -> None:
        self.alive = True
        self.kills = 0
        self.frozen: list[bool] = []

    def freeze(self, frozen: bool) -> None:
        self.frozen.append(frozen)

    def populated(self) -> bool:
        return self.alive

    def kill_all(self) -> None:
        self.kills += 1


def _stepd(tmp_path: Path, unkillable_timeout: int = 60) -> tuple[Stepd, FakeCgroup]:
    launch = Launch(job_id=7, uid=1000, gid=1000, user_name="u", node_name="n1", script_path="/bin/true",
                    argv=[], environment=[], work_dir="/tmp", std_out="/dev/null", std_err="/dev/null",
                    std_in="/dev/null", append=False, umask=0o22, kill_wait=5,
                    unkillable_timeout=unkillable_timeout)
    step = Stepd(launch, tmp_path, tmp_path)
    fake = FakeCgroup()
    step.cg = fake  # type: ignore[assignment]
    return step, fake


def test_the_step_is_done_when_the_script_ended_and_the_cgroup_is_empty(tmp_path: Path) -> None:
    step, cg = _stepd(tmp_path)
    assert not step._done()          # script still running
    step.state.tasks[0].status = 0
    assert not step._done()          # processes left in the cgroup
    cg.alive = False
    assert step._done() and not step.state.unkillable


def test_processes_that_outlive_sigkill_end_the_wait_as_unkillable(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr(stepd_mod.time, "monotonic", lambda: clock[0])
    step, cg = _stepd(tmp_path, unkillable_timeout=60)
    step.state.tasks[0].status = 9
    step._kill_everything()
    assert cg.kills == 1 and step.state.killed_at == 1000.0
    clock[0] = 1059.0
    assert not step._done()
    clock[0] = 1061.0
    assert step._done() and step.state.unkillable
    assert step.result().kill_task_failed is True


def test_terminate_waits_killwait_before_sigkill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [50.0]
    monkeypatch.setattr(stepd_mod.time, "monotonic", lambda: clock[0])
    step, cg = _stepd(tmp_path)
    cg.pids = lambda: []  # type: ignore[attr-defined]
    cg.signal_all = lambda sig: None  # type: ignore[attr-defined]
    step.terminate("CANCELLED")
    assert cg.frozen == [False]      # a suspended step is thawed first, or it could not hear SIGTERM
    step._enforce_kill_deadline()
    assert cg.kills == 0
    clock[0] = 55.0
    step._enforce_kill_deadline()
    assert cg.kills == 1


def test_suspend_and_resume_commands_freeze_and_thaw_the_step(tmp_path: Path) -> None:
    step, cg = _stepd(tmp_path)
    assert step._command(["suspend"]) == "ok"
    assert step._command(["resume"]) == "ok"
    assert cg.frozen == [True, False]
    assert step._command(["suspend", "now"]).startswith("error")


def test_the_step_cgroup_freezes_its_user_part(tmp_path: Path) -> None:
    from pyslurm_d.cgroup import StepCgroup
    cg = StepCgroup(tmp_path, 7, "batch")
    cg.create()
    (cg.user_dir / "cgroup.freeze").write_text("0")
    (cg.task_dir(0) / "cgroup.procs").write_text("")
    cg.freeze(True)
    assert (cg.user_dir / "cgroup.freeze").read_text() == "1"
    cg.freeze(False)
    assert (cg.user_dir / "cgroup.freeze").read_text() == "0"


def test_the_stepd_does_its_cgroup_work_after_its_other_set_up_right_before_the_tasks_fork(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first cgroup move after a quiet spell waits for an RCU grace period (8-16 ms), one soon
    after another does not, and cgroup mkdirs queue behind that wait: the set-up without cgroup
    work first, then the cgroups, the limits and the stepd's move, right before the tasks'."""
    events: list[str] = []

    class Libc:
        def prctl(self, *args: int) -> int:
            return 0

    step, cg = _stepd(tmp_path)
    cg.create = lambda tasks: events.append("create")  # type: ignore[attr-defined]
    cg.step_dir, cg.slurm_dir = tmp_path, tmp_path / "slurm"  # type: ignore[attr-defined]
    monkeypatch.setattr(stepd_mod.ctypes, "CDLL", lambda *args, **kwargs: Libc())
    monkeypatch.setattr(stepd_mod, "create_step_limits", lambda *args, **kwargs: events.append("limits"))
    monkeypatch.setattr(stepd_mod, "user_groups", lambda launch: events.append("groups") or [])
    monkeypatch.setattr(stepd_mod, "plan_bindings",
                        lambda launch, tasks: events.append("bindings") or {task.rank: _NoBinding() for task in tasks})
    monkeypatch.setattr(step, "_task_fds", lambda groups: events.append("fds") or {0: (0, 1, 2)})
    monkeypatch.setattr(stepd_mod, "join", lambda path, pid=0: events.append(f"join {path.name}"))
    monkeypatch.setattr(stepd_mod.os, "fork", lambda: events.append("fork") or 4242)
    step.start()
    assert events == ["groups", "bindings", "fds", "create", "limits", "join slurm", "fork"]
    assert step.state.tasks[0].pid == 4242


class _NoBinding:
    def apply(self, env: dict[str, str]) -> None:
        pass


def test_warm_migration_moves_the_process_into_the_v2_cgroup_it_is_in(tmp_path: Path) -> None:
    """pyslurmd's head start on the kernel's wait before a stepd's first cgroup move: a move that
    changes nothing, into this process's own v2 cgroup (from /proc/self), errors ignored."""
    from pyslurm_d.cgroup import warm_migration

    proc, own = tmp_path / "proc", tmp_path / "mnt" / "system.slice" / "pyslurmd_n1"
    proc.mkdir()
    own.mkdir(parents=True)
    (proc / "mountinfo").write_text(f"30 25 0:26 / {tmp_path / 'mnt'} rw,relatime - cgroup2 cgroup2 rw\n")
    (proc / "cgroup").write_text("1:memory:/elsewhere\n0::/system.slice/pyslurmd_n1\n")
    warm_migration(proc)
    assert (own / "cgroup.procs").read_text() == str(os.getpid())
    (proc / "cgroup").write_text("0::/gone\n")
    warm_migration(proc)   # a cgroup that is not there (any OSError) is no error
