"""Where a CPU id sits on its node, as Slurm numbers them: CPU ids run thread by thread within a
core, core by core within a socket (``cpu // threads_per_core`` is the core's index on the node,
``divmod`` by cores per socket gives the socket and the core in it). Pure, stdlib only."""
from __future__ import annotations

from collections.abc import Iterable


def socket_cores(cpu_ids: Iterable[int], threads_per_core: int, cores_per_socket: int) -> set[tuple[int, int]]:
    """The (socket, core) pairs the CPU ids fall on (a core with any of its threads granted)."""
    threads, cores = max(threads_per_core, 1), max(cores_per_socket, 1)
    return {divmod(cpu // threads, cores) for cpu in cpu_ids}
