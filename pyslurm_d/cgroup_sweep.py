"""What a dead stepd leaves behind in the cgroup trees, killed and removed by the node agent.

A stepd cleans its step's cgroups up itself when its tasks end. One that dies (kill -9, a
crash) leaves its user processes running in the step's cgroup and the directories in place
for ever: in the v2 tree (`<root>/job_<id>/step_<step>/{slurm, user/task_<n>}`) and, on
hybrid hosts, in each v1 hierarchy that holds the step's limits. `remove_step` kills every
process of the step (cgroup.kill, or SIGKILL to each where the kernel lacks it) and removes
those directories; `stale_steps` finds, when the agent starts, the step cgroups that no live
stepd owns (a stepd sits in its step's `slurm` part until it cleans up). Stdlib only.
"""
from __future__ import annotations

import logging
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from .cgroup import CgroupError, StepCgroup
from .cgroup_limits import CgroupLimitError, step_keys, v1_remove_step, v1_step_dirs, v1_steps

log = logging.getLogger(__name__)
POLL = 0.05
StepKey = tuple[int, str]


@dataclass(frozen=True, slots=True)
class CgroupTrees:
    """Where this node's step cgroups are: the v2 tracking tree and, on hybrid hosts, the v1
    hierarchies (found as the node agent's own v1 placement says, as stepd's limits were)."""

    root: Path                                 # <v2 mount>/.../pyslurm_<cluster>_<node>
    backend: str                               # "v2" or "hybrid"
    node_tag: str                              # <cluster>_<node>
    cgroup_fs: Path = Path("/sys/fs/cgroup")
    self_cgroup_text: str | None = None        # default: /proc/self/cgroup

    @property
    def has_v1(self) -> bool:
        return self.backend in ("hybrid", "v1")

    def own_placement(self) -> str:
        return self.self_cgroup_text if self.self_cgroup_text is not None else Path("/proc/self/cgroup").read_text()

    def v1_dirs(self, key: StepKey) -> list[Path]:
        return list(v1_step_dirs(self.node_tag, key[0], key[1], self.cgroup_fs, self.own_placement()).values()) \
            if self.has_v1 else []

    def steps(self) -> set[StepKey]:
        found = set(step_keys(self.root))
        if self.has_v1:
            found |= v1_steps(self.node_tag, self.cgroup_fs, self.own_placement())
        return found


def remove_step(trees: CgroupTrees, key: StepKey, timeout: float) -> None:
    """Kill every process of the step and remove its cgroup directories (v2 and v1).

    Raises CgroupError when processes outlive `timeout` seconds (stuck in the kernel): their
    directories stay, as a stepd leaves an unkillable step's.
    """
    cg = StepCgroup(trees.root, *key)
    kill_file = cg.step_dir / "cgroup.kill"
    if kill_file.exists():
        kill_file.write_text("1")
    deadline = time.monotonic() + timeout
    while True:
        pids = _pids(cg.step_dir, *trees.v1_dirs(key))
        if not pids:
            break
        if time.monotonic() > deadline:
            raise CgroupError(f"job {key[0]} step {key[1]}: processes {sorted(pids)} survived SIGKILL")
        for pid in pids:   # kernels before 5.14 have no cgroup.kill; v1 stragglers too
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(POLL)
    try:
        cg.remove()
        if trees.has_v1:
            v1_remove_step(trees.node_tag, key[0], key[1], trees.cgroup_fs, trees.own_placement())
    except CgroupLimitError as exc:
        raise CgroupError(str(exc)) from exc


def stale_steps(trees: CgroupTrees, live: set[StepKey]) -> list[StepKey]:
    """The steps with cgroup directories here that no live stepd owns: not in `live` (steps whose
    stepd the agent re-attached to) and with no process in their stepd part."""
    return sorted(key for key in trees.steps()
                  if key not in live and not _pids(StepCgroup(trees.root, *key).slurm_dir))


def sweep(trees: CgroupTrees, live: set[StepKey], timeout: float) -> list[StepKey]:
    """Kill and remove every stale step cgroup (see stale_steps); returns those removed."""
    removed = []
    for key in stale_steps(trees, live):
        try:
            remove_step(trees, key, timeout)
            removed.append(key)
            log.info("job=%d step %s: removed the cgroups a dead stepd left", *key)
        except CgroupError as exc:
            log.error("job=%d step %s: cannot remove the cgroups a dead stepd left: %s", key[0], key[1], exc)
    return removed


def _pids(*dirs: Path) -> set[int]:
    """Every process in the cgroups at and below `dirs`."""
    found: set[int] = set()
    for top in dirs:
        for procs in [top / "cgroup.procs", *top.rglob("*/cgroup.procs")]:
            try:
                found |= {int(p) for p in procs.read_text().split()}
            except (FileNotFoundError, ValueError):
                continue
    return found
