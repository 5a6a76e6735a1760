"""srun --mem-bind as Slurm 22.05's task/affinity has it: the parse (srun, in Slurm's words), the
step variables that carry it to the stepd (SLURM_MEM_BIND*, which the tasks keep), the NUMA nodes
each task's memory is bound to, and the `verbose` line.

Checked on real Slurm 22.05 (tests/unit/test_mem_binding.py): `none`, `sort`/`nosort` alone and
`verbose` alone bind nothing; `rank`, `local`, `map_mem` and `mask_mem` bind every task (also on a
machine with one NUMA node, where node 0 is all there is); a NUMA node the machine lacks fails
that task (exit 1) with Slurm's stepd error lines. Pure and stdlib only: the stepd applies the
result (pyslurm_d/mempolicy.py).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from pyslurm_common import bind_lists

HELP = """Memory bind options:
    --mem-bind=         Bind memory to locality domains (ldom)
        nosort          avoid sorting pages at startup
        sort            sort pages at startup
        q[uiet]         quietly bind before task runs (default)
        v[erbose]       verbosely report binding before task runs
        no[ne]          don't bind tasks to memory (default)
        rank            bind by task rank
        local           bind to memory local to processor
        map_mem:<list>  specify a memory binding for each task
                        where <list> is <cpuid1>,<cpuid2>,...<cpuidN>
        mask_mem:<list> specify a memory binding mask for each tasks
                        where <list> is <mask1>,<mask2>,...<maskN>
        help            show this help message"""

MAX_NUMA_NODES = 1024     # NUMA_NUM_NODES of libnuma: masks and node numbers beyond are refused
_VERBOSE_TYPE = {"rank": "RANK", "local": "LOC", "map_mem": "MAP", "mask_mem": "MASK"}


class MemBindError(ValueError):
    """A --mem-bind value Slurm refuses; the message is its error line's text."""


@dataclass(frozen=True, slots=True)
class MemBind:
    kind: str = ""                 # none, rank, local, map_mem, mask_mem; "" none given
    values: tuple[str, ...] = ()   # map_mem node numbers / mask_mem hex masks, multipliers expanded
    verbose: bool = False
    prefer: bool = False
    sort: bool = False

    @property
    def active(self) -> bool:
        """Anything given (Slurm's mem_bind_type is not 0): the stepd looks at it."""
        return bool(self.kind) or self.verbose or self.prefer or self.sort

    @property
    def binds(self) -> bool:
        """The stepd sets a policy, or fails trying: all but `none`, `sort` alone and `verbose`
        alone (so `prefer` or `verbose,sort` without a kind fail: "value is empty", as Slurm)."""
        flags = (self.verbose, self.prefer, self.sort)
        return self.kind != "none" and not (not self.kind and flags in ((True, False, False), (False, False, True)))

    def environment(self) -> dict[str, str]:
        """The step's SLURM_MEM_BIND* variables, as Slurm's srun sets them."""
        kind = {"map_mem": "map_mem:", "mask_mem": "mask_mem:"}.get(self.kind, self.kind)
        listed = ",".join(self.values)
        text = ",".join(["verbose" if self.verbose else "quiet", *(["prefer"] if self.prefer else []),
                         *([kind + listed] if kind else [])])
        env = {"SLURM_MEM_BIND": text, "SLURM_MEM_BIND_LIST": listed, "SLURM_MEM_BIND_TYPE": kind,
               "SLURM_MEM_BIND_VERBOSE": "verbose" if self.verbose else "quiet"}
        if self.prefer:
            env["SLURM_MEM_BIND_PREFER"] = "prefer"
        if self.sort:
            env["SLURM_MEM_BIND_SORT"] = "sort"
        return env


def parse(text: str) -> MemBind:
    """Slurm's slurm_verify_mem_bind (without `help`, which the caller answers)."""
    bind = MemBind()
    for token in bind_lists.words(text):
        low = token.lower()
        if low in ("p", "prefer"):
            bind = _with(bind, prefer=True)
        elif low in ("sort", "nosort"):
            bind = _with(bind, sort=low == "sort")
        elif low in ("q", "quiet", "v", "verbose"):
            bind = _with(bind, verbose=low.startswith("v"))
        elif low in ("no", "none", "rank", "local"):
            bind = _with(bind, kind="none" if low.startswith("no") else low, values=())
        elif low.startswith(("map_mem", "mapmem", "mask_mem", "maskmem")):
            kind = "map_mem" if low.startswith("map") else "mask_mem"
            listed = re.split(r"[:=]", token)[1] if re.search(r"[:=]", token) else ""
            if not listed:
                raise MemBindError(f'missing list for "--mem-bind={kind}:<list>"')
            bind = _with(bind, kind=kind, values=bind_lists.expand(listed, kind, MemBindError))
        else:
            raise MemBindError(f'unrecognized --mem-bind argument "{token}"')
    return bind


def _with(bind: MemBind, **changes: object) -> MemBind:
    return replace(bind, **changes)   # type: ignore[arg-type]


def from_environment(env: Mapping[str, str]) -> MemBind | None:
    """The step's binding from SLURM_MEM_BIND (None when there is none or it does not parse)."""
    text = env.get("SLURM_MEM_BIND", "")
    try:
        bind = parse(text) if text else None
    except MemBindError:
        return None
    return bind if bind is not None and bind.active else None


def task_nodes(bind: MemBind, local_id: int, step_cpus: int, max_node: int,
               run_nodes: Iterable[int]) -> frozenset[int]:
    """The NUMA nodes the task's memory is bound to (Slurm's get_memset); `run_nodes`: those of
    the CPUs it runs on (for `local`). MemBindError, in the stepd's words, when it cannot be."""
    if bind.kind == "local":
        return frozenset(run_nodes)
    if bind.kind == "rank":
        node = local_id % max(1, step_cpus)
        if node > max_node:
            raise MemBindError(f"NUMA node {node} does not exist; cannot bind local task {local_id} to it "
                               "(--mem-bind=rank)")
        return frozenset({node})
    if not bind.values:
        raise MemBindError(f"--mem-bind value is empty for local task {local_id}")
    chosen = bind.values[local_id % len(bind.values)]
    if bind.kind == "mask_mem":
        mask = int(chosen, 16) if chosen else 0
        nodes = frozenset(i for i in range(min(mask.bit_length(), MAX_NUMA_NODES + 1)) if mask >> i & 1)
        missing = [i for i in sorted(nodes) if i > max_node]
        if missing or mask.bit_length() > MAX_NUMA_NODES:
            raise MemBindError(f"NUMA node {missing[0] if missing else mask.bit_length() - 1} does not exist; "
                               f"cannot bind local task {local_id} to it (--mem-bind=mask_mem; 0x{chosen})")
        if not nodes:
            raise MemBindError("NUMA node mask is NULL (0x0). Must bind at least one NUMA node to local task "
                               f"{local_id} (--mem-bind=mask_mem)")
        return nodes
    node = chosen.lstrip("0") or "0"   # an empty entry (`map_mem:*2`) reads as 0, as C's strtol would
    # too many digits is refused unread: int() of thousands of decimal digits raises
    if len(node) > len(str(MAX_NUMA_NODES)) or int(node) > max_node:
        raise MemBindError(f"NUMA node {node} does not exist; cannot bind local task {local_id} to it "
                           "(--mem-bind=map_mem)")
    return frozenset({int(node)})


def verbose_line(bind: MemBind, host: str, rank: int, local_id: int, pid: int, nodes: Iterable[int]) -> str:
    """Slurm's slurm_chk_memset line for `verbose` (the mask: the task's policy nodes)."""
    if bind.kind == "none":
        mode, kind, action = "=", "NONE", ""
    elif bind.kind or bind.prefer or bind.sort:
        mode, kind, action = " PREFER " if bind.prefer else "=", _VERBOSE_TYPE.get(bind.kind, "UNK"), " set"
    else:
        mode, kind, action = "=", "NULL", ""
    mask = sum(1 << n for n in set(nodes))
    return f"mem-bind{mode}{kind} - {host}, task {rank:2d} {local_id:2d} [{pid}]: mask 0x{mask:x}{action}\n"
