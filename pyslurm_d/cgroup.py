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
import time
from dataclasses import dataclass
from pathlib import Path


class CgroupError(Exception):
    pass


def find_v2_mount(mountinfo: str) -> tuple[Path, str] | None:
    """(mount point, backend) from /proc/self/mountinfo text; backend is v2 or hybrid."""
    v2: Path | None = None
    has_v1 = False
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fstype = right.split(" ", 1)[0]
        fields = left.split()
        if len(fields) < 5:
            continue
        if fstype == "cgroup2":
            v2 = Path(fields[4])
        elif fstype == "cgroup":
            has_v1 = True
    if v2 is None:
        return None
    return v2, "hybrid" if has_v1 else "v2"


def own_v2_path(proc_cgroup: str) -> str:
    for line in proc_cgroup.splitlines():
        if line.startswith("0::"):
            return line[3:].strip() or "/"
    raise CgroupError("process has no cgroup v2 membership")


def detect(cluster_name: str, node_name: str) -> tuple[Path, str]:
    """The node's job cgroup root and the backend name, for this process."""
    found = find_v2_mount(Path("/proc/self/mountinfo").read_text())
    if found is None:
        raise CgroupError("no cgroup v2 hierarchy is mounted")
    mount, backend = found
    own = own_v2_path(Path("/proc/self/cgroup").read_text()).lstrip("/")
    return mount / own / f"pyslurm_{cluster_name}_{node_name}", backend


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
        """Remove the step's directories (empty cgroups), then the job's if unused."""
        for path in sorted(self.step_dir.rglob("*"), key=lambda p: len(p.parts), reverse=True):
            if path.is_dir():
                _rmdir(path)
        _rmdir(self.step_dir)
        if self.job_dir.exists() and not any(p.is_dir() for p in self.job_dir.iterdir()):
            _rmdir(self.job_dir)


def join(cgroup_dir: Path, pid: int = 0) -> None:
    (cgroup_dir / "cgroup.procs").write_text(str(pid or os.getpid()))


def _rmdir(path: Path, attempts: int = 50) -> None:
    # A just-emptied cgroup can stay busy for a moment while the kernel finishes exits.
    for _ in range(attempts):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)
    raise CgroupError(f"cannot remove cgroup {path}")
