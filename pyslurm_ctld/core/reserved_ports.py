"""Communication ports reserved for job steps (srun --resv-ports, MpiParams=ports=LOW-HIGH), as
Slurm's port manager: a port is held by a running step on its nodes, and no other step on any of
those nodes gets it until that step ends.

Without --resv-ports a step gets its largest task count per node plus one when a range is
configured, else none; --resv-ports=0 (or the bare option) reserves none. More ports than the range
holds is Slurm's "Requires more ports than can be reserved"; too few free now, StepBusy (srun retries).
Pure: the running steps of the cluster state in, a tuple of ports out (kept with the step).
"""
from __future__ import annotations

from collections.abc import Sequence

from pyslurm_common.errors import SlurmError, Strerror

from .step_layout import StepBusy
from .state import ClusterState

MAX_PORTS = 0xFFFF


def port_range(mpi_params: str | None) -> range | None:
    """MpiParams=ports=LOW-HIGH; None when absent or not such a range (Slurm then reserves none)."""
    for item in (mpi_params or "").split(","):
        key, _, value = item.partition("=")
        low, dash, high = value.partition("-")
        if key.strip().lower() == "ports" and dash and low.isdigit() and high.isdigit():
            if int(low) <= int(high) <= MAX_PORTS:
                return range(int(low), int(high) + 1)
    return None


def reserve_ports(state: ClusterState, nodes: Sequence[str], tasks_per_node: Sequence[int],
                  requested: int | None) -> tuple[int, ...]:
    ports = port_range(state.cfg.value("MpiParams"))
    count = requested if requested is not None else (max(tasks_per_node, default=0) + 1 if ports else 0)
    if count == 0:
        return ()
    if ports is None or count > len(ports):
        raise SlurmError(Strerror.PORTS_INVALID)
    wanted = set(nodes)
    held = {port for job in state.jobs.values() for step in job.running_steps
            if wanted.intersection(step.nodes) for port in step.resv_ports}
    free = [port for port in ports if port not in held][:count]
    if len(free) < count:
        raise StepBusy(Strerror.PORTS_BUSY)
    return tuple(free)

