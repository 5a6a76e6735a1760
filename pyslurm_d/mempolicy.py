"""The NUMA side of --mem-bind in the stepd: the machine's NUMA nodes (sysfs) and the task's memory
policy, set in the forked task before exec with the set_mempolicy system call (through libc's
syscall(), so no libnuma is needed; the policy is inherited across exec, as numa_set_membind's).
Stdlib only, like stepd.
"""
from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Iterable
from dataclasses import dataclass

_NODES = "/sys/devices/system/node"
_SET_MEMPOLICY = {"x86_64": 238, "aarch64": 237, "ppc64le": 261, "s390x": 270}   # per <asm/unistd.h>
MPOL_PREFERRED, MPOL_BIND = 1, 2
_MASK_WORDS = 16          # 1024 nodes, libnuma's NUMA_NUM_NODES


@dataclass(frozen=True, slots=True)
class NumaTopology:
    cpus_of: dict[int, frozenset[int]]    # NUMA node -> its CPUs

    @property
    def max_node(self) -> int:
        return max(self.cpus_of, default=0)

    def nodes_of(self, cpus: Iterable[int]) -> frozenset[int]:
        """The NUMA nodes holding these CPUs (node 0 where the machine tells nothing)."""
        wanted = set(cpus)
        return frozenset(n for n, have in self.cpus_of.items() if have & wanted) or frozenset({0})


def read_topology() -> NumaTopology:
    """The machine's NUMA nodes and their CPUs; one node with every CPU when sysfs has none."""
    cpus_of: dict[int, frozenset[int]] = {}
    try:
        names = os.listdir(_NODES)
    except OSError:
        names = []
    for name in names:
        if name.startswith("node") and name[4:].isdigit():
            try:
                with open(f"{_NODES}/{name}/cpulist") as f:
                    cpus_of[int(name[4:])] = frozenset(_cpu_list(f.read().strip()))
            except OSError:
                continue
    return NumaTopology(cpus_of or {0: frozenset(range(os.cpu_count() or 1))})


def _cpu_list(text: str) -> list[int]:
    out: list[int] = []
    for part in filter(None, text.split(",")):
        low, _, high = part.partition("-")
        out.extend(range(int(low), int(high or low) + 1))
    return out


def set_policy(nodes: Iterable[int], prefer: bool) -> None:
    """Bind this process's memory to `nodes` (MPOL_BIND), or prefer the first of them
    (MPOL_PREFERRED, as Slurm's numa_set_preferred); OSError when the kernel refuses."""
    number = _SET_MEMPOLICY.get(platform.machine())
    if number is None:
        raise OSError(0, f"set_mempolicy: no system call number known for {platform.machine()}")
    chosen = sorted(nodes)[:1] if prefer else sorted(nodes)
    mask = (ctypes.c_ulong * _MASK_WORDS)()
    bits = ctypes.sizeof(ctypes.c_ulong) * 8
    for node in chosen:
        mask[node // bits] |= 1 << (node % bits)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(number, MPOL_PREFERRED if prefer else MPOL_BIND, mask, ctypes.c_ulong(_MASK_WORDS * bits + 1)) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"set_mempolicy: {os.strerror(error)}")
