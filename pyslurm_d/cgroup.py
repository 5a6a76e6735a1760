"""cgroup v2 tree of a node's jobs: create, join, signal, kill, remove.

Layout (DESIGN.md): `<root>/job_<id>/step_<step>/{slurm, user/task_<n>}`, with
`<root>` = `<v2 mount><slurmd's own cgroup>/pyslurm_<cluster>_<nodename>` (cluster and
node in the name, so several node agents and clusters can share one host). On hybrid
hosts (v1 controllers mounted, v2 `unified` without controllers) v2 still
does the tracking and the kill (`cgroup.kill`); limits come in a later layer.
Everything takes the filesystem root as data, so tests can point it at a
temporary tree. Stdlib only: stepd imports this.
"""
from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from pathlib import Path

from .cgroup_limits import CgroupLimitError, detect_backend, has_child_cgroups, remove_cgroup_dir


class CgroupError(Exception):
    pass


def find_v2_mount(mountinfo: str) -> Path | None:
    """Where the cgroup v2 hierarchy is mounted, from /proc/self/mountinfo text."""
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fields = left.split()
        if right.split(" ", 1)[0] == "cgroup2" and len(fields) >= 5:
            return Path(fields[4])
    return None


def own_v2_path(proc_cgroup: str) -> str:
    for line in proc_cgroup.splitlines():
        if line.startswith("0::"):
            return line[3:].strip() or "/"
    raise CgroupError("process has no cgroup v2 membership")


AGENT_LEAF_PREFIX = "pyslurmd_"


def delegated_base(own: str) -> str:
    """The cgroup the node agent was given: its own, or the parent of the leaf it moved into."""
    parts = [p for p in own.strip("/").split("/") if p]
    if parts and parts[-1].startswith(AGENT_LEAF_PREFIX):
        parts = parts[:-1]
    return "/".join(parts)


def detect(cluster_name: str, node_name: str) -> tuple[Path, str]:
    """The node's job cgroup root and the backend name, for this process."""
    mountinfo = Path("/proc/self/mountinfo").read_text()
    mount = find_v2_mount(mountinfo)
    if mount is None:
        raise CgroupError("no cgroup v2 hierarchy is mounted")
    try:
        backend = detect_backend(mountinfo)  # limits: v1 controllers where mounted (hybrid), else v2
    except CgroupLimitError as exc:
        raise CgroupError(str(exc)) from exc
    base = delegated_base(own_v2_path(Path("/proc/self/cgroup").read_text()))
    return mount / base / f"pyslurm_{cluster_name}_{node_name}", backend


def move_agent_to_leaf(root: Path, node_name: str) -> Path:
    """On v2, controllers can be handed down only by a cgroup without processes, so the agent
    leaves its delegated cgroup (systemd's Delegate=yes unit) for a leaf of its own, as slurmd
    does; the job trees stay siblings of that leaf."""
    leaf = root.parent / f"{AGENT_LEAF_PREFIX}{node_name}"
    try:
        leaf.mkdir(exist_ok=True)
        join(leaf)
    except OSError as exc:
        raise CgroupError(f"cannot move the node agent into {leaf}: {exc.strerror}") from exc
    return leaf


@dataclass(frozen=True, slots=True)
class StepCgroup:
    root: Path
    job_id: int
    step: str

    @property
    def job_dir(self) -> Path:
        return self.root / f"job_{self.job_id}"

    @property
    def step_dir(self) -> Path:
        return self.job_dir / f"step_{self.step}"

    @property
    def slurm_dir(self) -> Path:
        return self.step_dir / "slurm"

    @property
    def user_dir(self) -> Path:
        return self.step_dir / "user"

    def task_dir(self, rank: int) -> Path:
        return self.user_dir / f"task_{rank}"

    def create(self, tasks: int = 1) -> None:
        for path in (self.slurm_dir, *(self.task_dir(r) for r in range(tasks))):
            path.mkdir(parents=True, exist_ok=True)

    def pids(self) -> list[int]:
        """Every process of the step's user part (all task cgroups)."""
        found = []
        for procs in self.user_dir.rglob("cgroup.procs"):
            try:
                found += [int(p) for p in procs.read_text().split()]
            except (FileNotFoundError, ValueError):
                continue
        return found

    def populated(self) -> bool:
        try:
            events = (self.user_dir / "cgroup.events").read_text()
        except FileNotFoundError:
            return False
        return "populated 1" in events

    def signal_all(self, sig: int) -> None:
        for pid in self.pids():
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def freeze(self, frozen: bool) -> None:
        """Suspend (SIGSTOP, then the v2 freezer) or resume (thaw, then SIGCONT) the step's user
        part. The v2 freezer is a core feature of every non-root cgroup, on hybrid hosts too; the
        signals make the stop visible as the `T` state, as with Slurm's SIGSTOP."""
        freeze_file = self.user_dir / "cgroup.freeze"
        if frozen:
            self.signal_all(signal.SIGSTOP)
        if freeze_file.exists():
            freeze_file.write_text("1" if frozen else "0")
        if not frozen:
            self.signal_all(signal.SIGCONT)

    def kill_all(self) -> None:
        """SIGKILL everything in the step's user part, forks in flight included."""
        kill_file = self.user_dir / "cgroup.kill"
        if kill_file.exists():
            kill_file.write_text("1")
            return
        # Kernels before 5.14 have no cgroup.kill: signal each process instead.
        self.signal_all(signal.SIGKILL)

    def leave(self) -> None:
        """Move the calling process (stepd) out of the step, into the node's `system` leaf:
        processes may not sit in the node root once controllers are enabled there (v2)."""
        system = self.root / "system"
        system.mkdir(exist_ok=True)
        join(system)

    def remove(self) -> None:
        """Remove the step's directories (empty cgroups), deepest first, then the job's if unused.
        Directories only, by the type scandir reports: no stat of every interface file."""
        for parent, children, _ in os.walk(self.step_dir, topdown=False):
            for child in children:
                _rmdir(Path(parent, child))
        _rmdir(self.step_dir)
        if not has_child_cgroups(self.job_dir):   # a missing one is fine too
            _rmdir(self.job_dir)


def warm_migration(proc: Path = Path("/proc/self")) -> None:
    """Move this process into the v2 cgroup it is in already: nothing changes, but the kernel's
    lock for moves between cgroups (cgroup_threadgroup_rwsem) is readied. The first move after a
    quiet spell waits for an RCU grace period (8-18 ms measured here, a move that changes nothing
    included), and moves in the 10 ms or so after one do not. pyslurmd makes this one in a thread
    as an authorized launch arrives, so that the wait passes while the stepd is forked and set up
    rather than in its own join. A head start only: failures are ignored."""
    try:
        mount = find_v2_mount((proc / "mountinfo").read_text())
        if mount is not None:
            join(mount / own_v2_path((proc / "cgroup").read_text()).lstrip("/"))
    except (OSError, CgroupError):
        pass


def join(cgroup_dir: Path, pid: int = 0) -> None:
    (cgroup_dir / "cgroup.procs").write_text(str(pid or os.getpid()))


def _rmdir(path: Path) -> None:
    try:
        remove_cgroup_dir(path)
    except CgroupLimitError as exc:
        raise CgroupError(str(exc)) from exc
