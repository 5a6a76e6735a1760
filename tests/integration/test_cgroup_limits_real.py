"""Step limits on this host's real cgroup hierarchies (pyslurm_d/cgroup_limits.py).

Root only.  The v1 tests need the v1 memory/cpuset/devices hierarchies (hybrid hosts such as CI's),
the device-filter tests a cgroup v2 mount; each skips only when its hierarchy is not mounted.
Every cgroup made here is named ``pyslurm_test<pid>`` (never a running cluster's) and is checked
gone, and removed if not, after each test.  Children are forked, join, then exec or _exit.
"""
from __future__ import annotations

import errno
import json
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pyslurm_d import bpf_devices, cgroup
from pyslurm_d.cgroup_limits import (
    CgroupLimitError,
    Device,
    StepLimits,
    attach_device_filter,
    create_step_limits,
    remove_cgroup_dir,
    v1_own_paths,
)

if os.geteuid() != 0:
    pytest.skip("cgroup limits need root", allow_module_level=True)

CGROUP_FS = Path("/sys/fs/cgroup")
TAG = f"test{os.getpid()}"
NODE_DIR = f"pyslurm_{TAG}"
MiB = 1 << 20
MOUNTINFO = Path("/proc/self/mountinfo").read_text()
SELF_CGROUP = Path("/proc/self/cgroup").read_text()
DEV_NULL = Device("c", 1, 3)


def _v1_mounted(controller: str) -> bool:
    for line in MOUNTINFO.splitlines():
        _, _, right = line.partition(" - ")
        fields = right.split()
        if len(fields) >= 3 and fields[0] == "cgroup" and controller in fields[2].split(","):
            return (CGROUP_FS / controller).is_dir()
    return False


def _v2_root() -> Path | None:
    mount = cgroup.find_v2_mount(MOUNTINFO)
    if mount is None:
        return None
    return mount / cgroup.own_v2_path(SELF_CGROUP).lstrip("/") / NODE_DIR


V2_ROOT = _v2_root()
needs_v1 = pytest.mark.skipif(not all(_v1_mounted(c) for c in ("memory", "cpuacct")),
                              reason="no cgroup v1 memory/cpuacct hierarchy mounted")
needs_v1_cpuset = pytest.mark.skipif(not _v1_mounted("cpuset"), reason="no cgroup v1 cpuset hierarchy")
needs_v1_devices = pytest.mark.skipif(not _v1_mounted("devices"), reason="no cgroup v1 devices hierarchy")
needs_v2 = pytest.mark.skipif(V2_ROOT is None, reason="no cgroup v2 hierarchy mounted")


def _test_trees() -> list[Path]:
    """Where this module's node directories can be: under our own path in each hierarchy."""
    own = v1_own_paths(SELF_CGROUP)
    trees = [CGROUP_FS / c / own[c].lstrip("/") / NODE_DIR for c in ("memory", "cpuacct", "cpuset", "devices")
             if c in own]
    return trees + ([V2_ROOT] if V2_ROOT is not None else [])


def _force_remove(tree: Path) -> None:
    for path in sorted((p for p in tree.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        _rmdir_retry(path)
    _rmdir_retry(tree)


def _rmdir_retry(path: Path) -> None:
    try:
        remove_cgroup_dir(path)
    except CgroupLimitError:
        pass  # reported by the leftover check


@pytest.fixture(autouse=True)
def no_leftovers() -> Iterator[None]:
    """(d): after each test nothing of ours is left in any hierarchy (removed anyway if it is)."""
    yield
    left = [t for t in _test_trees() if t.exists()]
    for tree in left:
        _force_remove(tree)
    assert not left, f"cgroups left behind: {left}"


def run_child(join: Callable[[], None] | None, body: Callable[[], object] | None = None,
              argv: list[str] | None = None) -> tuple[int, object]:
    """Fork; the child joins, then execs ``argv`` or reports ``body()`` as JSON. (exit code, report)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child never returns into pytest
        code = 0
        try:
            os.close(read_fd)
            if join is not None:
                join()
            if argv is not None:
                os.execv(argv[0], argv)
            report = body() if body is not None else None
            os.write(write_fd, json.dumps(report).encode())
        except BaseException as exc:  # noqa: BLE001
            os.write(write_fd, json.dumps(f"child error: {exc!r}").encode())
            code = 127
        finally:
            os._exit(code)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), json.loads(data) if data else None


def open_errno(path: str) -> int:
    """0 if ``path`` opens, else the errno."""
    try:
        os.close(os.open(path, os.O_RDONLY))
        return 0
    except OSError as exc:
        return exc.errno or -1


@pytest.fixture()
def step_cgroup() -> Iterator[cgroup.StepCgroup]:
    """A v2 tracking tree pyslurm_test<pid>/job_3/step_0/{slurm,user/task_0}."""
    assert V2_ROOT is not None
    cg = cgroup.StepCgroup(V2_ROOT, 3, "0")
    cg.create()
    try:
        yield cg
    finally:
        cg.remove()
        _rmdir_retry(V2_ROOT)


@pytest.fixture()
def fake_gpus(tmp_path: Path) -> tuple[str, str]:
    """Device nodes nvidia0 (195:0) and nvidia1 (195:1); no driver, so opening gives ENXIO."""
    for minor in (0, 1):
        os.mknod(tmp_path / f"nvidia{minor}", stat.S_IFCHR | 0o666, os.makedev(195, minor))
    return str(tmp_path / "nvidia0"), str(tmp_path / "nvidia1")


# ---- (a) memory ---------------------------------------------------------------------------------


@needs_v1
def test_v1_memory_limit_kills_an_oversized_allocation() -> None:
    limits = create_step_limits("hybrid", TAG, 1, "0", StepLimits(memory_bytes=64 * MiB, memory_swap_bytes=64 * MiB),
                                v2_step_dir=Path("/nonexistent"))
    try:
        assert limits.oom_kills() == 0
        code, _ = run_child(lambda: limits.join(os.getpid()),
                            argv=[sys.executable, "-c", "b = bytearray(256 << 20)"])
        assert code == -9, f"expected the OOM killer's SIGKILL, got exit code {code}"
        assert limits.oom_kills() >= 1
        usage = limits.usage()
        assert 0 < usage.max_rss_bytes <= 64 * MiB
        assert usage.user_cpu_usec + usage.system_cpu_usec > 0
        code, _ = run_child(lambda: limits.join(os.getpid()),
                            argv=[sys.executable, "-c", "b = bytearray(8 << 20)"])
        assert code == 0  # what fits, runs
    finally:
        limits.remove()
    limits.remove()  # idempotent


# ---- (b) cpuset -----------------------------------------------------------------------------------


@needs_v1
@needs_v1_cpuset
def test_v1_cpuset_pins_a_joined_child_to_one_cpu() -> None:
    cpu = max(os.sched_getaffinity(0))
    limits = create_step_limits("hybrid", TAG, 2, "0", StepLimits(cpus=(cpu,)), v2_step_dir=Path("/nonexistent"))
    try:
        code, seen = run_child(lambda: limits.join(os.getpid()), lambda: sorted(os.sched_getaffinity(0)))
        assert (code, seen) == (0, [cpu])
        check = f"import os, sys; sys.exit(0 if os.sched_getaffinity(0) == {{{cpu}}} else 1)"
        assert run_child(lambda: limits.join(os.getpid()), argv=[sys.executable, "-c", check])[0] == 0
        outside = run_child(None, lambda: sorted(os.sched_getaffinity(0)))[1]
        assert outside == sorted(os.sched_getaffinity(0))
    finally:
        limits.remove()


# ---- (c) devices ----------------------------------------------------------------------------------


@needs_v2
def test_bpf_filter_denies_listed_devices_in_the_cgroup_only(step_cgroup: cgroup.StepCgroup,
                                                             fake_gpus: tuple[str, str]) -> None:
    gpu0, gpu1 = fake_gpus
    close = attach_device_filter(step_cgroup.user_dir, (DEV_NULL, Device.of_path(gpu0)))
    try:
        def probe() -> list[int]:
            return [open_errno("/dev/null"), open_errno(gpu0), open_errno(gpu1), open_errno("/dev/zero")]

        code, inside = run_child(lambda: cgroup.join(step_cgroup.task_dir(0)), probe)
        assert code == 0 and isinstance(inside, list)
        assert inside[0] == errno.EPERM and inside[1] == errno.EPERM
        assert inside[2] != errno.EPERM and inside[3] == 0  # the allocated GPU and others stay usable
        code, outside = run_child(None, probe)
        assert code == 0 and isinstance(outside, list)
        assert outside[0] == 0 and outside[3] == 0
        assert errno.EPERM not in outside
    finally:
        close()
    close()  # idempotent
    # detached: a joined process opens /dev/null again
    assert run_child(lambda: cgroup.join(step_cgroup.task_dir(0)), lambda: open_errno("/dev/null"))[1] == 0


@needs_v2
def test_the_attachment_keeps_the_program_alive(step_cgroup: cgroup.StepCgroup) -> None:
    """Closing the program's fd does not unload an attached program; removing the cgroup does."""
    prog_fd = bpf_devices.load_program(bpf_devices.device_program([DEV_NULL]))
    cgroup_fd = os.open(step_cgroup.user_dir, os.O_RDONLY | os.O_DIRECTORY)
    try:
        bpf_devices.attach(cgroup_fd, prog_fd)
    finally:
        os.close(prog_fd)
        os.close(cgroup_fd)
    assert run_child(lambda: cgroup.join(step_cgroup.task_dir(0)), lambda: open_errno("/dev/null"))[1] == errno.EPERM


@needs_v2
def test_v2_backend_device_filter_and_detach(step_cgroup: cgroup.StepCgroup) -> None:
    limits = create_step_limits("v2", TAG, 3, "0", StepLimits(denied_devices=(DEV_NULL,)),
                                v2_step_dir=step_cgroup.step_dir)
    try:
        code, seen = run_child(lambda: limits.join(os.getpid()), lambda: open_errno("/dev/null"))
        assert (code, seen) == (0, errno.EPERM)
        code, _ = run_child(lambda: limits.join(os.getpid()), argv=["/bin/cat", "/dev/null"])
        assert code == 1  # cat: /dev/null: Operation not permitted
    finally:
        limits.remove()
    limits.remove()
    assert run_child(lambda: limits.join(os.getpid()), lambda: open_errno("/dev/null"))[1] == 0


@needs_v1
@needs_v1_devices
def test_v1_devices_deny(fake_gpus: tuple[str, str]) -> None:
    gpu0, gpu1 = fake_gpus
    limits = create_step_limits("hybrid", TAG, 4, "0", StepLimits(denied_devices=(DEV_NULL, Device.of_path(gpu0))),
                                v2_step_dir=Path("/nonexistent"))
    try:
        code, seen = run_child(lambda: limits.join(os.getpid()),
                               lambda: [open_errno("/dev/null"), open_errno(gpu0), open_errno(gpu1)])
        assert code == 0 and isinstance(seen, list)
        assert seen[0] == errno.EPERM and seen[1] == errno.EPERM and seen[2] != errno.EPERM
    finally:
        limits.remove()


# ---- (d) everything together, and removal ------------------------------------------------------------


@needs_v1
@needs_v1_cpuset
@needs_v1_devices
def test_v1_all_limits_then_remove_leaves_nothing() -> None:
    cpu = min(os.sched_getaffinity(0))
    limits = create_step_limits("hybrid", TAG, 5, "batch",
                                StepLimits(cpus=(cpu,), memory_bytes=128 * MiB, denied_devices=(DEV_NULL,)),
                                v2_step_dir=Path("/nonexistent"))
    other = create_step_limits("hybrid", TAG, 5, "0", StepLimits(cpus=(cpu,)), v2_step_dir=Path("/nonexistent"))
    try:
        code, seen = run_child(lambda: limits.join(os.getpid()),
                               lambda: [sorted(os.sched_getaffinity(0)), open_errno("/dev/null")])
        assert (code, seen) == (0, [[cpu], errno.EPERM])
        limits.remove()
        # the job directory stays while its other step exists
        assert all((t / "job_5").is_dir() for t in _test_trees()[:2])
    finally:
        limits.remove()
        other.remove()
    assert not [t for t in _test_trees() if t.exists()]
