"""Resource limits of one step: cpuset, memory, devices; and the OOM and usage counters.

The tracking tree (create, join, kill, remove of ``job_<id>/step_<step>`` in cgroup v2) is
:mod:`pyslurm_d.cgroup`; this module puts *limits* on a step, in one of two backends
(spec daemons-and-cgroups.md §4):

``v1`` (hybrid hosts: v1 controllers mounted, v2 ``unified`` without controllers)
    For each controller a tree ``<cgroup_fs>/<controller>/<this process's own v1 path of that
    controller>/pyslurm_<node_tag>/job_<id>/step_<step>``: ``memory`` always (limits, OOM count,
    MaxRSS), ``cpuacct`` always (CPU time), ``cpuset`` when CPUs are given, ``devices`` when
    devices are denied.  Tasks are put into every ``step_<step>`` directory by :meth:`join`.
    :meth:`remove` removes the step directories, then the job and node directories if unused.

``v2`` (unified hosts)
    Limits live in ``<v2_step_dir>/user`` — the part of the step holding the tasks, so stepd
    itself (in ``<v2_step_dir>/slurm``) is neither charged nor OOM-killed.  The controllers are
    enabled in ``cgroup.subtree_control`` of the node root ``pyslurm_<node_tag>``, the job and
    the step directory (processes may live only in leaves below them).  Devices: a BPF device
    program (:mod:`pyslurm_d.bpf_devices`) attached to ``user``.  :meth:`join` writes to
    ``<v2_step_dir>/user/task_0``.  The directories belong to :class:`pyslurm_d.cgroup.StepCgroup`
    (which must have created them first and removes them); :meth:`remove` detaches the program.

:func:`attach_device_filter` offers the BPF device filter on any v2 directory, hybrid hosts'
``unified`` tree included.  Every path is a parameter, so tests use a temporary directory laid out
like cgroupfs.  Errors: :class:`CgroupLimitError` (path and errno text); a failure to set a
requested limit is fatal for the step, a missing optional file (swap accounting, memory.peak) is
a warning.  Needs root.  Stdlib only: stepd imports this.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Protocol, TypeVar

from pyslurm_common.hostlist import compress_numbers

from . import bpf_devices

__all__ = [
    "CgroupLimitError", "Device", "StepLimitSet", "StepLimits", "Usage", "attach_device_filter",
    "create_step_limits", "detect_backend", "format_cpu_list", "parse_cpu_list",
]



def _warn(message: str, *args: object, level: str = "warning") -> None:
    # logging is imported only when there is something to say: stepd start-up is hot.
    import logging

    getattr(logging.getLogger(__name__), level)(message, *args)

_T = TypeVar("_T")
_CREATE_ATTEMPTS = 5  # a concurrent stepd may remove an empty node or job directory under us
_RMDIR_ATTEMPTS = 100  # × 10 ms: a just-emptied cgroup stays busy while its last exits finish
_V1_LIMIT_CONTROLLERS = frozenset({"memory", "cpuset", "devices", "cpuacct", "cpu", "freezer", "pids", "blkio"})
_V2_OPTIONAL = ("cpu", "pids")


class CgroupLimitError(Exception):
    """A cgroup operation failed; ``str()`` is ``<path>: <what> (<errno text>)``."""

    def __init__(self, path: Path | str, message: str, err: int | None = None) -> None:
        super().__init__(path, message, err)
        self.path, self.message, self.errno = Path(path), message, err

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"

    @classmethod
    def of(cls, path: Path, what: str, exc: OSError) -> "CgroupLimitError":
        return cls(path, f"{what} ({os.strerror(exc.errno) if exc.errno else exc})", exc.errno)


@dataclass(frozen=True, slots=True)
class Device:
    """A device node's numbers: ``kind`` is ``"c"`` (character) or ``"b"`` (block)."""

    kind: str
    major: int
    minor: int

    def __post_init__(self) -> None:
        if self.kind not in ("c", "b") or self.major < 0 or self.minor < 0:
            raise ValueError(f"invalid device {self.kind} {self.major}:{self.minor}")

    @classmethod
    def of_path(cls, path: str) -> "Device":
        try:
            st = os.stat(path)
        except OSError as exc:
            raise CgroupLimitError.of(Path(path), "cannot stat device", exc) from None
        if stat.S_ISCHR(st.st_mode):
            kind = "c"
        elif stat.S_ISBLK(st.st_mode):
            kind = "b"
        else:
            raise CgroupLimitError(path, "not a device node")
        return cls(kind, os.major(st.st_rdev), os.minor(st.st_rdev))

    @property
    def rule(self) -> str:
        """The v1 devices.allow/deny line: ``c 195:0 rwm``."""
        return f"{self.kind} {self.major}:{self.minor} rwm"


@dataclass(frozen=True, slots=True)
class StepLimits:
    """What to enforce on a step (all optional).  RAM+swap without a RAM limit: v1 caps both RAM
    and RAM+swap at it; v2 caps swap alone at it (v2 has no combined limit)."""

    cpus: tuple[int, ...] | None = None  # cpuset; None = unconstrained
    memory_bytes: int | None = None  # hard RAM limit
    memory_swap_bytes: int | None = None  # RAM+swap limit (v1 memsw; v2 swap.max = this - memory)
    denied_devices: tuple[Device, ...] = ()  # managed devices NOT allocated to the step

    def __post_init__(self) -> None:
        if self.cpus is not None and (not self.cpus or min(self.cpus) < 0):
            raise ValueError(f"cpus must be a non-empty set of CPU ids, not {self.cpus}")
        for value in (self.memory_bytes, self.memory_swap_bytes):
            if value is not None and value <= 0:
                raise ValueError(f"memory limits must be positive, not {value}")


@dataclass(frozen=True, slots=True)
class Usage:
    max_rss_bytes: int
    user_cpu_usec: int
    system_cpu_usec: int


class StepLimitSet(Protocol):
    backend: str  # "v1" (hybrid) or "v2"

    def join(self, pid: int) -> None:
        """Put ``pid`` under every limit (before it drops privileges)."""

    def oom_kills(self) -> int:
        """OOM-kill events counted in this step so far."""

    def usage(self) -> Usage: ...

    def current_rss_bytes(self) -> int:
        """Memory the step's processes use now (sstat's live reading; 0 when unknown)."""

    def remove(self) -> None:
        """Undo everything :func:`create_step_limits` set up; idempotent."""


# ---- small file helpers -------------------------------------------------------------------------


def _write(path: Path, text: str) -> None:
    """One write(2) of ``text``: cgroupfs parses each write as one value and reports errors on it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)
    except OSError as exc:
        raise CgroupLimitError.of(path, f"cannot write {text.strip()!r}", exc) from None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as exc:
        raise CgroupLimitError.of(path, "cannot read", exc) from None


def _read_optional(path: Path) -> str | None:
    try:
        return path.read_text()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CgroupLimitError.of(path, "cannot read", exc) from None


def _keyed(text: str) -> dict[str, int]:
    """``key value`` lines (memory.events, cpu.stat, memory.oom_control, cpuacct.stat)."""
    found: dict[str, int] = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        try:
            found[key] = int(value.strip())
        except ValueError:
            continue
    return found


def _int_file(path: Path) -> int | None:
    text = _read_optional(path)
    if text is None or not text.strip():
        return None
    try:
        return int(text.split()[0])
    except ValueError:
        raise CgroupLimitError(path, f"unexpected content {text.strip()!r}") from None


def _mkdir(path: Path) -> bool:
    """Create one cgroup directory; True if this call created it."""
    try:
        path.mkdir()
        return True
    except FileExistsError:
        return False
    except OSError as exc:
        raise CgroupLimitError.of(path, "cannot create cgroup", exc) from None


def has_child_cgroups(path: Path) -> bool:
    """Whether the cgroup ``path`` has a child cgroup (a missing one has none). By scandir's entry
    types: a stat of each of its dozens of interface files cost milliseconds per step's end."""
    try:
        with os.scandir(path) as entries:
            return any(entry.is_dir(follow_symlinks=False) for entry in entries)
    except FileNotFoundError:
        return False


def _remove_dir(path: Path) -> None:
    """rmdir(2): on cgroupfs a directory holding only control files is empty (tests replace this)."""
    os.rmdir(path)


def remove_cgroup_dir(path: Path, attempts: int = 100) -> None:
    """rmdir of a cgroup, retried while busy (a just-emptied cgroup stays busy while its last
    exits finish); a missing directory is fine. Also used for the v2 tracking tree."""
    _rmdir(path, attempts)


def _rmdir(path: Path, attempts: int) -> None:
    """rmdir, retried while busy; a missing directory is fine."""
    for attempt in range(attempts):
        try:
            _remove_dir(path)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno not in (errno.EBUSY, errno.ENOTEMPTY) or attempt == attempts - 1:
                raise CgroupLimitError.of(path, "cannot remove cgroup", exc) from None
            time.sleep(0.01)


def _remove_unused(path: Path) -> None:
    """Remove a job or node directory unless another step still uses it."""
    if has_child_cgroups(path):
        return
    try:
        _rmdir(path, 1)
    except CgroupLimitError as exc:
        if exc.errno not in (errno.EBUSY, errno.ENOTEMPTY):  # a sibling step appeared meanwhile
            raise


def _retry_vanished(action: Callable[[], _T]) -> _T:
    """Run ``action``, again if a directory vanished midway (a concurrent remove of an empty parent)."""
    for attempt in range(_CREATE_ATTEMPTS):
        try:
            return action()
        except CgroupLimitError as exc:
            if exc.errno != errno.ENOENT or attempt == _CREATE_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


def format_cpu_list(cpus: Iterable[int]) -> str:
    """``{0, 1, 2, 5}`` → ``0-2,5`` (the cpuset list format)."""
    return compress_numbers(cpus)


def parse_cpu_list(text: str) -> frozenset[int]:
    """``0-2,5`` → ``{0, 1, 2, 5}``; empty text is the empty set."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        if not part:
            continue
        first, _, last = part.partition("-")
        try:
            cpus.update(range(int(first), int(last or first) + 1))
        except ValueError:
            raise ValueError(f"invalid cpu list {text.strip()!r}") from None
    return frozenset(cpus)


# ---- backend detection ----------------------------------------------------------------------------


def detect_backend(mountinfo_text: str) -> str:
    """``"hybrid"`` if a v1 ``memory`` hierarchy is mounted, else ``"v2"`` if cgroup2 is.

    A v1 mount without controllers (``name=systemd``) does not make a host hybrid.
    """
    v2, v1_controllers = False, set()
    for line in mountinfo_text.splitlines():
        _, sep, right = line.partition(" - ")
        fields = right.split()
        if not sep or len(fields) < 3:
            continue
        if fields[0] == "cgroup2":
            v2 = True
        elif fields[0] == "cgroup":
            v1_controllers |= set(fields[2].split(",")) & _V1_LIMIT_CONTROLLERS
    if "memory" in v1_controllers:
        return "hybrid"
    if v2:
        return "v2"
    raise CgroupLimitError("/proc/self/mountinfo", "no cgroup v2 and no v1 memory hierarchy is mounted")


def v1_own_paths(self_cgroup_text: str) -> dict[str, str]:
    """controller → this process's path in that v1 hierarchy, from /proc/self/cgroup text."""
    paths: dict[str, str] = {}
    for line in self_cgroup_text.splitlines():
        parts = line.strip().split(":", 2)
        if len(parts) != 3 or not parts[1]:
            continue  # the v2 line is ``0::/path``
        for controller in parts[1].split(","):
            paths[controller] = parts[2]
    return paths


# ---- v1 -------------------------------------------------------------------------------------------


class V1StepLimits:
    """The v1 backend (see the module docstring).  Build with :func:`create_step_limits`."""

    backend = "v1"

    def __init__(self, job_id: int, step_dirs: dict[str, Path], oom_baseline: int) -> None:
        self.job_id = job_id
        self.step_dirs = step_dirs  # controller → .../pyslurm_<tag>/job_<id>/step_<step>
        self._oom_baseline = oom_baseline

    def join(self, pid: int) -> None:
        for step_dir in self.step_dirs.values():
            _write(step_dir / "cgroup.procs", str(pid))

    def oom_kills(self) -> int:
        return max(0, _v1_oom_count(self.step_dirs["memory"]) - self._oom_baseline)

    def usage(self) -> Usage:
        max_rss = _int_file(self.step_dirs["memory"] / "memory.max_usage_in_bytes") or 0
        ticks = _keyed(_read_optional(self.step_dirs["cpuacct"] / "cpuacct.stat") or "")
        per_tick = 1_000_000 / os.sysconf("SC_CLK_TCK")
        return Usage(max_rss, int(ticks.get("user", 0) * per_tick), int(ticks.get("system", 0) * per_tick))

    def current_rss_bytes(self) -> int:
        return _int_file(self.step_dirs["memory"] / "memory.usage_in_bytes") or 0

    def remove(self) -> None:
        first: CgroupLimitError | None = None
        for step_dir in self.step_dirs.values():
            try:
                _rmdir(step_dir, _RMDIR_ATTEMPTS)
                _remove_unused(step_dir.parent)
                _remove_unused(step_dir.parent.parent)
            except CgroupLimitError as exc:
                first = first or exc
        if first is not None:
            raise first


def _v1_oom_count(memory_dir: Path) -> int:
    """``oom_kill N`` of memory.oom_control (kernel ≥ 4.13); else 1 if the limit was ever hit."""
    control = _keyed(_read_optional(memory_dir / "memory.oom_control") or "")
    if "oom_kill" in control:
        return control["oom_kill"]
    return 1 if (_int_file(memory_dir / "memory.failcnt") or 0) > 0 else 0


def _v1_levels(base: Path, node_tag: str, job_id: int, step: str) -> list[Path]:
    node = base / f"pyslurm_{node_tag}"
    return [node, node / f"job_{job_id}", node / f"job_{job_id}" / f"step_{step}"]


def _v1_make(base: Path, levels: list[Path], on_new: Callable[[Path], None] | None = None) -> None:
    if not base.is_dir():
        raise CgroupLimitError(base, "cgroup v1 hierarchy not found")
    for level in levels:
        if _mkdir(level) and on_new is not None:
            on_new(level)


def _v1_use_hierarchy(level: Path) -> None:
    # Must be set before children exist; recent kernels always have it on and may refuse writes.
    try:
        _write(level / "memory.use_hierarchy", "1")
    except CgroupLimitError as exc:
        _warn("%s", exc, level="debug")


def _v1_memory(step_dir: Path, limits: StepLimits, job_id: int) -> None:
    ram = limits.memory_bytes if limits.memory_bytes is not None else limits.memory_swap_bytes
    if ram is None:
        return
    memsw = step_dir / "memory.memsw.limit_in_bytes"
    want_memsw = limits.memory_swap_bytes is not None
    if want_memsw and not memsw.exists():
        _warn("job=%d %s is missing (swap accounting off): RAM+swap is not limited", job_id, memsw)
        want_memsw = False
    try:
        _write(step_dir / "memory.limit_in_bytes", str(ram))
    except CgroupLimitError as exc:
        # The kernel keeps limit <= memsw limit: raising both means memsw first.
        if exc.errno != errno.EINVAL or not want_memsw:
            raise
        _write(memsw, str(limits.memory_swap_bytes))
        _write(step_dir / "memory.limit_in_bytes", str(ram))
    if want_memsw:
        _write(memsw, str(max(ram, limits.memory_swap_bytes or 0)))


def _v1_parent_value(parent: Path, name: str, effective: str) -> str:
    """A cpuset file of the parent, preferring its effective value where the kernel has one."""
    for candidate in (parent / effective, parent / name):
        text = _read_optional(candidate)
        if text is not None and text.strip():
            return text.strip()
    raise CgroupLimitError(parent / name, "parent cpuset is empty or missing")


def _v1_cpuset(base: Path, levels: list[Path], cpus: tuple[int, ...]) -> None:
    node, job, step = levels
    _v1_make(base, levels)
    for level in levels:
        # A new v1 cpuset starts empty and takes no tasks or children until cpus/mems are set.
        # Testing emptiness (not "just created") keeps this right when retried after a race.
        if not (_read_optional(level / "cpuset.mems") or "").strip():
            _write(level / "cpuset.mems", _v1_parent_value(level.parent, "cpuset.mems", "cpuset.effective_mems"))
        if level == node and not (_read_optional(level / "cpuset.cpus") or "").strip():
            _write(level / "cpuset.cpus", _v1_parent_value(base, "cpuset.cpus", "cpuset.effective_cpus"))
        elif level == job:
            _v1_grow_job_cpus(job, cpus)
    _write(step / "cpuset.cpus", format_cpu_list(cpus))


def _v1_grow_job_cpus(job: Path, cpus: tuple[int, ...]) -> None:
    """The job cpuset is the union of its steps' CPUs (a v1 parent must contain its children's)."""
    for attempt in range(_CREATE_ATTEMPTS):
        current = parse_cpu_list(_read_optional(job / "cpuset.cpus") or "")
        wanted = current | set(cpus)
        if wanted == current:
            return
        try:
            _write(job / "cpuset.cpus", format_cpu_list(wanted))
            return
        except CgroupLimitError as exc:
            # EBUSY: a sibling step grew it at the same moment and our union lacks its CPUs.
            if exc.errno != errno.EBUSY or attempt == _CREATE_ATTEMPTS - 1:
                raise


def _v1_create(node_tag: str, job_id: int, step: str, limits: StepLimits, cgroup_fs: Path,
               self_cgroup_text: str) -> V1StepLimits:
    own = v1_own_paths(self_cgroup_text)
    controllers = ["memory", "cpuacct"]
    if limits.cpus is not None:
        controllers.append("cpuset")
    if limits.denied_devices:
        controllers.append("devices")
    step_dirs: dict[str, Path] = {}
    for controller in controllers:
        if controller not in own:
            raise CgroupLimitError(cgroup_fs / controller, f"this process is in no v1 {controller} cgroup")
        base = cgroup_fs / controller / own[controller].lstrip("/")
        levels = _v1_levels(base, node_tag, job_id, step)
        if controller == "memory":
            _retry_vanished(partial(_v1_make, base, levels, _v1_use_hierarchy))
            _v1_memory(levels[-1], limits, job_id)
        elif controller == "cpuset":
            assert limits.cpus is not None
            _retry_vanished(partial(_v1_cpuset, base, levels, limits.cpus))
        else:
            _retry_vanished(partial(_v1_make, base, levels))
        if controller == "devices":
            for device in limits.denied_devices:
                _write(levels[-1] / "devices.deny", device.rule)
        step_dirs[controller] = levels[-1]
    return V1StepLimits(job_id, step_dirs, _v1_oom_count(step_dirs["memory"]))


# ---- v2 -------------------------------------------------------------------------------------------


class V2StepLimits:
    """The v2 backend (see the module docstring).  Build with :func:`create_step_limits`."""

    backend = "v2"

    def __init__(self, job_id: int, step_dir: Path, oom_baseline: int,
                 device_filter: bpf_devices.LoadedFilter | None) -> None:
        self.job_id = job_id
        self.step_dir = step_dir
        self.limit_dir = step_dir / "user"
        self.task_dir = self.limit_dir / "task_0"
        self._oom_baseline = oom_baseline
        self._filter = device_filter
        self._rss_seen = 0

    def join(self, pid: int) -> None:
        """Into ``<step>/user/task_0``, the leaf the task lives in (same as cgroup.join there)."""
        _write(self.task_dir / "cgroup.procs", str(pid))

    def oom_kills(self) -> int:
        return max(0, _v2_oom_count(self.limit_dir) - self._oom_baseline)

    def usage(self) -> Usage:
        """MaxRSS is memory.peak; without it (kernels < 5.19), the largest memory.current seen
        by calls to this method, so call it periodically as well as at the end."""
        peak = _int_file(self.limit_dir / "memory.peak")
        current = _int_file(self.limit_dir / "memory.current") or 0
        self._rss_seen = max(self._rss_seen, current, peak or 0)
        cpu = _keyed(_read_optional(self.limit_dir / "cpu.stat") or "")
        return Usage(peak if peak is not None else self._rss_seen,
                     cpu.get("user_usec", 0), cpu.get("system_usec", 0))

    def current_rss_bytes(self) -> int:
        return _int_file(self.limit_dir / "memory.current") or 0

    def remove(self) -> None:
        if self._filter is not None:
            try:
                self._filter.close()
            except bpf_devices.BpfError as exc:
                raise CgroupLimitError(self.limit_dir, str(exc), exc.errno) from None


def _v2_oom_count(limit_dir: Path) -> int:
    return _keyed(_read_optional(limit_dir / "memory.events") or "").get("oom_kill", 0)


def _node_root(step_dir: Path, node_tag: str) -> Path:
    name = f"pyslurm_{node_tag}"
    for ancestor in step_dir.parents:
        if ancestor.name == name:
            return ancestor
    raise CgroupLimitError(step_dir, f"is not below a {name} cgroup")


def _controllers(path: Path, name: str) -> set[str]:
    return set((_read_optional(path / name) or "").split())


def _enable(level: Path, wanted: Iterable[str], required: set[str], job_id: int) -> None:
    """Enable controllers in ``level``'s subtree_control: all at once, else one by one."""
    missing = [c for c in wanted if c not in {w.lstrip("+") for w in _controllers(level, "cgroup.subtree_control")}]
    if not missing:
        return
    try:
        _write(level / "cgroup.subtree_control", " ".join(f"+{c}" for c in missing))
        return
    except CgroupLimitError:
        pass
    for controller in missing:
        try:
            _write(level / "cgroup.subtree_control", f"+{controller}")
        except CgroupLimitError as exc:
            if controller in required:
                hint = " (a cgroup with processes cannot enable controllers for its children)" \
                    if exc.errno == errno.EBUSY else ""
                raise CgroupLimitError(exc.path, exc.message + hint, exc.errno) from None
            _warn("job=%d %s", job_id, exc)


def _v2_enable_chain(node_root: Path, step_dir: Path, wanted: list[str], required: set[str],
                     job_id: int) -> None:
    """Make ``wanted`` controllers reach ``<step>/user``: from the node root down to the step."""
    available = _controllers(node_root, "cgroup.controllers")
    lacking = required - available
    if set(wanted) - available:
        # The node root's parent (the node agent's own, delegated cgroup) must pass them down:
        # the required ones, and the optional ones (cpu, pids) where it can.
        why = ""
        try:
            _enable(node_root.parent, sorted(set(wanted) - available), lacking, job_id)
        except CgroupLimitError as exc:
            why = f"; enabling them in the parent failed: {exc}"
        available = _controllers(node_root, "cgroup.controllers")
        if required - available:
            raise CgroupLimitError(node_root, f"cgroup controllers {' '.join(sorted(required - available))} "
                                              f"are not available here (not delegated to the node agent){why}")
    usable = [c for c in wanted if c in available]
    for missing in sorted(set(wanted) - available):
        _warn("job=%d cgroup controller %s is not available in %s", job_id, missing, node_root)
    level = node_root
    for part in step_dir.relative_to(node_root).parts:
        _enable(level, usable, required, job_id)
        level = level / part
    _enable(step_dir, usable, required, job_id)


def _v2_create(node_tag: str, job_id: int, limits: StepLimits, step_dir: Path) -> V2StepLimits:
    limit_dir = step_dir / "user"
    if not limit_dir.is_dir():
        raise CgroupLimitError(limit_dir, "step cgroup not created yet (StepCgroup.create first)", errno.ENOENT)
    required: set[str] = set()
    if limits.memory_bytes is not None or limits.memory_swap_bytes is not None:
        required.add("memory")
    if limits.cpus is not None:
        required.add("cpuset")
    wanted = sorted(required | {"memory"}) + list(_V2_OPTIONAL)
    _v2_enable_chain(_node_root(step_dir, node_tag), step_dir, wanted, required, job_id)
    if limits.cpus is not None:
        mems = (_read_optional(step_dir / "cpuset.mems.effective") or "").strip()
        if mems:
            _write(limit_dir / "cpuset.mems", mems)
        _write(limit_dir / "cpuset.cpus", format_cpu_list(limits.cpus))
    _v2_memory(limit_dir, limits, job_id)
    device_filter = None
    if limits.denied_devices:
        device_filter = _load_filter(limit_dir, limits.denied_devices)
    try:
        baseline = _v2_oom_count(limit_dir)
    except CgroupLimitError:
        if device_filter is not None:
            device_filter.close()
        raise
    return V2StepLimits(job_id, step_dir, baseline, device_filter)


def _v2_memory(limit_dir: Path, limits: StepLimits, job_id: int) -> None:
    if limits.memory_bytes is not None:
        _write(limit_dir / "memory.max", str(limits.memory_bytes))
    if limits.memory_swap_bytes is None:
        return
    swap_file = limit_dir / "memory.swap.max"
    if not swap_file.exists():
        _warn("job=%d %s is missing (no swap accounting): RAM+swap is not limited", job_id, swap_file)
        return
    _write(swap_file, str(max(0, limits.memory_swap_bytes - (limits.memory_bytes or 0))))


def _load_filter(cgroup_dir: Path, denied: Iterable[Device]) -> bpf_devices.LoadedFilter:
    try:
        return bpf_devices.LoadedFilter(cgroup_dir, denied)
    except OSError as exc:  # BpfError included
        raise CgroupLimitError(cgroup_dir, f"cannot attach the device filter: {exc}", exc.errno) from None


# ---- entry points ---------------------------------------------------------------------------------


def attach_device_filter(v2_dir: Path, denied: tuple[Device, ...]) -> Callable[[], None]:
    """Deny ``denied`` to every process in the v2 directory ``v2_dir`` and below (BPF program).

    Returns the closer: call it to detach (idempotent).  Works on a hybrid host's ``unified``
    hierarchy too, where no v2 controller is needed.  Nothing to deny: nothing is loaded.
    """
    if not denied:
        return lambda: None
    loaded = _load_filter(v2_dir, denied)

    def close() -> None:
        try:
            loaded.close()
        except bpf_devices.BpfError as exc:
            raise CgroupLimitError(v2_dir, str(exc), exc.errno) from None

    return close


def create_step_limits(backend: str, node_tag: str, job_id: int, step: str, limits: StepLimits, *,
                       v2_step_dir: Path, cgroup_fs: Path = Path("/sys/fs/cgroup"),
                       self_cgroup_text: str | None = None) -> StepLimitSet:
    """Set up the limits of one step; ``backend`` is ``"v2"`` or ``"hybrid"``/``"v1"``.

    v1: ``cgroup_fs`` holds one directory per controller; ``self_cgroup_text`` (default: this
    process's /proc/self/cgroup) says where this process is in each.  v2: ``v2_step_dir`` is
    :attr:`StepCgroup.step_dir`, already created, below ``pyslurm_<node_tag>``.  On failure,
    whatever was set up is undone before the error propagates.
    """
    if backend in ("hybrid", "v1"):
        text = self_cgroup_text if self_cgroup_text is not None else _read(Path("/proc/self/cgroup"))
        return _undo_on_error(lambda: _v1_create(node_tag, job_id, step, limits, cgroup_fs, text),
                              lambda: v1_remove_step(node_tag, job_id, step, cgroup_fs, text), job_id)
    if backend == "v2":
        return _v2_create(node_tag, job_id, limits, v2_step_dir)
    raise ValueError(f"unknown cgroup backend {backend!r}")


def _undo_on_error(action: Callable[[], _T], undo: Callable[[], None], job_id: int) -> _T:
    try:
        return action()
    except BaseException:
        try:
            undo()
        except CgroupLimitError as exc:
            _warn("job=%d cleanup after a failed cgroup setup: %s", job_id, exc)
        raise


_V1_CONTROLLERS = ("memory", "cpuacct", "cpuset", "devices")


def v1_step_dirs(node_tag: str, job_id: int, step: str, cgroup_fs: Path, self_cgroup_text: str) -> dict[str, Path]:
    """controller → the step's existing v1 directory, for a process placed as ``self_cgroup_text`` says."""
    own = v1_own_paths(self_cgroup_text)
    dirs: dict[str, Path] = {}
    for controller in _V1_CONTROLLERS:
        if controller in own:
            step_dir = _v1_levels(cgroup_fs / controller / own[controller].lstrip("/"), node_tag, job_id, step)[-1]
            if step_dir.is_dir():
                dirs[controller] = step_dir
    return dirs


def v1_remove_step(node_tag: str, job_id: int, step: str, cgroup_fs: Path, self_cgroup_text: str) -> None:
    """Remove the step's v1 directories (empty by now), then its job's and node's if unused."""
    V1StepLimits(job_id, v1_step_dirs(node_tag, job_id, step, cgroup_fs, self_cgroup_text), 0).remove()


def v1_steps(node_tag: str, cgroup_fs: Path, self_cgroup_text: str) -> set[tuple[int, str]]:
    """Every (job id, step) with a directory in some v1 hierarchy of this node."""
    own = v1_own_paths(self_cgroup_text)
    found: set[tuple[int, str]] = set()
    for controller in _V1_CONTROLLERS:
        if controller in own:
            node = _v1_levels(cgroup_fs / controller / own[controller].lstrip("/"), node_tag, 0, "")[0]
            found |= set(step_keys(node))
    return found


def step_keys(node_dir: Path) -> list[tuple[int, str]]:
    """(job id, step) of each ``job_<id>/step_<step>`` directory under a node's cgroup directory."""
    keys = []
    for step_dir in node_dir.glob("job_*/step_*"):
        job_text = step_dir.parent.name[len("job_"):]
        if job_text.isdigit() and step_dir.is_dir():
            keys.append((int(job_text), step_dir.name[len("step_"):]))
    return sorted(keys)
