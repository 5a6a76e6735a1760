"""The systemd scope the stepds live in, on a cgroup v2 host run by systemd (slurmd's slurmstepd.scope).

On v2 a cgroup that enables controllers for its children may hold no process itself. Were the
job trees below pyslurmd.service, its cgroup would enable memory and cpuset for them, and a
`systemctl restart pyslurmd` with jobs running fails: systemd puts the new agent into the unit's
own cgroup, which the kernel refuses (status 219/CGROUP; systemd before 254 has no
DelegateSubgroup=). So, as Slurm does, the stepds and their tasks live in a scope of their own,
`pyslurmstepd_<cluster>_<node>.scope` in the agent's slice, created with Delegate=yes by
`systemd-run --scope` around the stepd fork server, whose processes keep it alive: the fork
server while the agent runs, the stepds while their jobs run. The agent's unit then holds only
the agent and its fork server and restarts like any service; once the agent has stopped and the
last job has ended, systemd removes the scope and its cgroups. In the scope, the fork server sits
in a leaf of its own (`stepd_server`), the job trees beside it (`pyslurm_<cluster>_<node>`).
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from .cgroup import CgroupError, find_v2_mount, join, own_v2_path

SYSTEMD_RUNNING = Path("/run/systemd/system")
SERVER_LEAF = "stepd_server"
ADOPT_TIMEOUT = 30.0   # seconds for systemd to create the scope (a loaded host, or software emulation)


@dataclass(frozen=True, slots=True)
class StepdScope:
    unit: str        # pyslurmstepd_<cluster>_<node>.scope
    slice: str       # the agent's slice: system.slice
    cgroup: Path     # the scope's directory in the v2 mount
    mount: Path      # the v2 mount

    def command(self, argv: list[str]) -> tuple[list[str], bool]:
        """The fork server's command line, and whether it creates the scope: it does unless the
        scope is there already (the stepds of running jobs kept it while the agent restarted)."""
        if self.cgroup.is_dir():
            return argv, False
        return ["systemd-run", "--scope", "--quiet", "--collect", f"--unit={self.unit}", f"--slice={self.slice}",
                "-p", "Delegate=yes", "-p", "TasksMax=infinity", "--", *argv], True

    async def adopt(self, pid: int, creating: bool) -> None:
        """Put the fork server `pid` into the scope's server leaf: once systemd-run has put it in
        the new scope (it then runs the server in its place), or at once into an existing one."""
        scope = "/" + str(self.cgroup.relative_to(self.mount))
        deadline = asyncio.get_running_loop().time() + ADOPT_TIMEOUT
        while creating:
            try:
                where = own_v2_path(Path(f"/proc/{pid}/cgroup").read_text())
            except (OSError, CgroupError) as exc:
                raise CgroupError(f"systemd-run (pid {pid}) ended before creating {self.unit}") from exc
            if where == scope:
                break
            if asyncio.get_running_loop().time() > deadline:
                raise CgroupError(f"systemd did not create {self.unit} within {ADOPT_TIMEOUT:.0f} s")
            await asyncio.sleep(0.05)
        leaf = self.cgroup / SERVER_LEAF
        try:
            leaf.mkdir(exist_ok=True)
            join(leaf, pid)
        except OSError as exc:
            raise CgroupError(f"cannot move the stepd server into {leaf}: {exc.strerror}") from exc


def for_agent(cluster_name: str, node_name: str) -> StepdScope | None:
    """The scope for this process, the node agent."""
    mount = find_v2_mount(Path("/proc/self/mountinfo").read_text())
    if mount is None:
        return None
    return stepd_scope(mount, own_v2_path(Path("/proc/self/cgroup").read_text()), cluster_name, node_name)


def stepd_scope(mount: Path, own: str, cluster_name: str, node_name: str,
                systemd: Path = SYSTEMD_RUNNING) -> StepdScope | None:
    """The stepds' scope for an agent in cgroup `own`, if systemd runs the host and the agent is
    one of its services; None elsewhere (containers, quickstart, tests: the job trees stay in the
    agent's own cgroup)."""
    parts = [p for p in own.strip("/").split("/") if p]
    if len(parts) < 2 or not parts[-1].endswith(".service") or not parts[-2].endswith(".slice") \
            or not systemd.is_dir():
        return None
    unit = f"pyslurmstepd_{cluster_name}_{node_name}.scope"
    return StepdScope(unit=unit, slice=parts[-2], cgroup=mount.joinpath(*parts[:-1], unit), mount=mount)
