"""srun --cpu-bind: which CPUs each task of a step may run on, as Slurm's task/affinity decides.

`parse` reads the option (srun checks it with Slurm's messages, the stepd reads it back from
SLURM_CPU_BIND in the step's environment); `task_cpus` gives every local task its CPU set out of
the step's CPUs on the node; `verbose_line` is the line Slurm prints to a task's stderr for
`verbose`. Binding units come from the node's topology (`read_topology`, rooted at a path so tests
lay out a fake /sys). Levels (threads, cores, sockets, ldoms) fill units by -m's second level:
`block` takes consecutive units, `cyclic` (Slurm's default) starts each task on the next socket.

Explicit lists (map_cpu, mask_cpu) must lie inside the step's CPUs, and rank, rank_ldom, map_ldom,
mask_ldom need the whole node, as in Slurm; anything else is a `BindError` that fails the launch.
Without --cpu-bind nothing is narrowed: every task runs on all the step's CPUs (no auto binding).

Pure but for `read_topology`; stdlib only (the stepd imports it).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pyslurm_common import bind_lists

MAX_CPU = 65535
LEVELS = {"socket": "sockets", "sockets": "sockets", "core": "cores", "cores": "cores",
          "thread": "threads", "threads": "threads", "ldom": "ldoms", "ldoms": "ldoms"}
MODES = {"no": "none", "none": "none", "rank": "rank", "rank_ldom": "rank_ldom"}
LISTS = {"map_cpu": "map_cpu", "mapcpu": "map_cpu", "mask_cpu": "mask_cpu", "maskcpu": "mask_cpu",
         "map_ldom": "map_ldom", "mapldom": "map_ldom", "mask_ldom": "mask_ldom", "maskldom": "mask_ldom"}
WHOLE_NODE = ("rank", "rank_ldom", "map_ldom", "mask_ldom")
VERBOSE_TYPE = {"none": "NONE", "rank": "RANK", "map_cpu": "MAP ", "mask_cpu": "MASK", "rank_ldom": "LDRANK",
                "map_ldom": "LDMAP ", "mask_ldom": "LDMASK"}
HELP = """CPU bind options:
    --cpu-bind=         Bind tasks to CPUs
        q[uiet]         quietly bind before task runs (default)
        v[erbose]       verbosely report binding before task runs
        no[ne]          don't bind tasks to CPUs (default)
        rank            bind by task rank
        map_cpu:<list>  specify a CPU ID binding for each task
                        where <list> is <cpuid1>,<cpuid2>,...<cpuidN>
        mask_cpu:<list> specify a CPU ID binding mask for each task
                        where <list> is <mask1>,<mask2>,...<maskN>
        rank_ldom       bind task by rank to CPUs in a NUMA locality domain
        map_ldom:<list> specify a NUMA locality domain ID for each task
                        where <list> is <ldom1>,<ldom2>,...<ldomN>
        mask_ldom:<list>specify a NUMA locality domain ID mask for each task
                        where <list> is <mask1>,<mask2>,...<maskN>
        sockets         auto-generated masks bind to sockets
        cores           auto-generated masks bind to cores
        threads         auto-generated masks bind to threads
        ldoms           auto-generated masks bind to NUMA locality domains
        help            show this help message"""


class BindError(ValueError):
    """An unusable --cpu-bind: the text is Slurm's message."""


@dataclass(frozen=True, slots=True)
class CpuBind:
    verbose: bool = False
    mode: str = ""                     # none, rank, map_cpu, mask_cpu, rank_ldom, map_ldom, mask_ldom
    level: str = ""                    # threads, cores, sockets, ldoms
    items: tuple[int, ...] = ()        # map_*: ids, mask_*: bit masks (repetitions expanded)

    @property
    def binds(self) -> bool:
        return self.mode not in ("", "none") or bool(self.level)

    def environment(self) -> dict[str, str]:
        """SLURM_CPU_BIND and its parts as Slurm's srun sets them for the tasks (none for a bare `quiet`)."""
        if not (self.verbose or self.mode or self.level):
            return {}
        mode = f"{self.mode}:" if self.mode in LISTS.values() else self.mode
        kind = ",".join(part for part in (self.level, mode) if part)
        listed = ",".join(hex(i) if self.mode.startswith("mask") else str(i) for i in self.items)
        verbosity = "verbose" if self.verbose else "quiet"
        return {"SLURM_CPU_BIND": f"{verbosity},{kind}{listed}" if kind else verbosity,
                "SLURM_CPU_BIND_VERBOSE": verbosity, "SLURM_CPU_BIND_TYPE": kind, "SLURM_CPU_BIND_LIST": listed}


def _numbers(listed: str, mode: str) -> tuple[int, ...]:
    """A map/mask list as numbers (`0*4,3*2` -> 0,0,0,0,3,3; masks hexadecimal with or without
    0x), each bounded: a CPU id up to MAX_CPU, a mask of as many bits."""
    mask = mode.startswith("mask")
    numbers: list[int] = []
    for value in bind_lists.expand(listed, mode, BindError):
        digits = value.lstrip("0") or "0"
        # refused unread when too long: int() of thousands of decimal digits raises
        too_long = not mask and len(digits) > len(str(MAX_CPU))
        number = MAX_CPU + 1 if too_long else int(digits, 16 if mask else 10)
        if number.bit_length() > MAX_CPU + 1 if mask else number > MAX_CPU:
            raise BindError(f'unrecognized --cpu-bind argument "{value}"')
        numbers.append(number)
    return tuple(numbers)


def parse(text: str) -> CpuBind:
    """--cpu-bind's value; raises BindError (Slurm's message) on a word it does not know."""
    verbose, mode, level, items = False, "", "", ()
    for word in bind_lists.words(text):
        lower = word.lower()
        name, _, listed = lower.replace("=", ":", 1).partition(":")
        if lower in ("q", "quiet"):
            verbose = False
        elif lower in ("v", "verbose"):
            verbose = True
        elif lower in MODES:
            mode, items = MODES[lower], ()
        elif lower in LEVELS:
            level = LEVELS[lower]
        elif name in LISTS:
            mode = LISTS[name]
            if not listed:
                raise BindError(f'missing list for "--cpu-bind={mode}:<list>"')
            items = _numbers(listed, mode)
        elif lower != "one_thread":
            raise BindError(f'unrecognized --cpu-bind argument "{word}"')
    return CpuBind(verbose, mode, level, items)


def from_environment(env: Mapping[str, str]) -> CpuBind:
    """What srun put in the step's SLURM_CPU_BIND; no binding when absent or unreadable."""
    try:
        return parse(env.get("SLURM_CPU_BIND", "")) if env.get("SLURM_CPU_BIND") else CpuBind()
    except BindError:
        return CpuBind()


@dataclass(frozen=True, slots=True)
class Topology:
    """Where each CPU of the node sits: socket, core (within its socket) and NUMA node."""
    socket: dict[int, int] = field(default_factory=dict)
    core: dict[int, int] = field(default_factory=dict)
    ldom: dict[int, int] = field(default_factory=dict)

    def cpus(self) -> list[int]:
        return sorted(self.socket)

    def unit_of(self, cpu: int, level: str) -> tuple[int, ...]:
        if level == "threads":
            return (self.socket.get(cpu, 0), cpu)
        if level == "cores":
            return (self.socket.get(cpu, 0), self.core.get(cpu, cpu))
        if level == "ldoms":
            return (self.ldom.get(cpu, self.socket.get(cpu, 0)),)
        return (self.socket.get(cpu, 0),)


def _read_int(path: Path, default: int) -> int:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return default


def cpu_list(text: str) -> list[int]:
    """`0-3,8` -> [0, 1, 2, 3, 8] (the kernel's list format)."""
    out: list[int] = []
    for part in text.strip().split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        out.extend(range(int(low), int(high or low) + 1))
    return out


def read_topology(root: Path = Path("/sys/devices/system")) -> Topology:
    topo = Topology()
    cpu_dir = root / "cpu"
    for entry in cpu_dir.glob("cpu[0-9]*"):
        cpu = int(entry.name[3:])
        topo.socket[cpu] = _read_int(entry / "topology" / "physical_package_id", 0)
        topo.core[cpu] = _read_int(entry / "topology" / "core_id", cpu)
    for entry in (root / "node").glob("node[0-9]*"):
        try:
            for cpu in cpu_list((entry / "cpulist").read_text()):
                topo.ldom[cpu] = int(entry.name[4:])
        except (OSError, ValueError):
            continue
    return topo


def _units(cpus: Sequence[int], topo: Topology, level: str) -> list[tuple[int, ...]]:
    """The step's CPUs grouped by binding unit, in topology order."""
    groups: dict[tuple[int, ...], list[int]] = {}
    for cpu in sorted(cpus):
        groups.setdefault(topo.unit_of(cpu, level), []).append(cpu)
    return [tuple(groups[key]) for key in sorted(groups)]


def _auto(step_cpus: Sequence[int], topo: Topology, level: str, tasks: int, cpus_per_task: int,
          cyclic: bool) -> list[set[int]]:
    """Each task takes units until it has `cpus_per_task` CPUs: consecutively (block) or starting
    on the next socket for each task (cyclic); more tasks than units start over."""
    units = _units(step_cpus, topo, level)
    by_socket: dict[int, list[tuple[int, ...]]] = {}
    for unit in units:
        by_socket.setdefault(topo.socket.get(unit[0], 0), []).append(unit)
    sockets = sorted(by_socket)
    order = units if not cyclic else [u for s in sockets for u in by_socket[s]]
    masks: list[set[int]] = []
    taken: set[tuple[int, ...]] = set()
    for task in range(tasks):
        if len(taken) == len(units):
            taken = set()
        if cyclic:
            start = sockets[task % len(sockets)]
            order = [u for s in sockets[sockets.index(start):] + sockets[:sockets.index(start)] for u in by_socket[s]]
        mask: set[int] = set()
        for unit in order:
            if unit in taken:
                continue
            taken.add(unit)
            mask.update(unit)
            if len(mask) >= cpus_per_task or len(taken) == len(units):
                break
        masks.append(mask or set(step_cpus))
    return masks


def hex_mask(cpus: Iterable[int]) -> str:
    """Slurm's mask text: hexadecimal without leading zeros (no 0x)."""
    return format(sum(1 << cpu for cpu in set(cpus)), "x")


def task_cpus(bind: CpuBind, step_cpus: Sequence[int], topo: Topology, tasks: int,
              cpus_per_task: int = 1, distribution: str = "") -> list[set[int]]:
    """The CPU set of each of the node's `tasks` local tasks (by local id); BindError when Slurm
    would refuse the binding."""
    step = set(step_cpus)
    node = set(topo.cpus()) or step
    if not bind.binds:
        return [set(step) for _ in range(tasks)]
    if bind.mode in WHOLE_NODE and not node <= step:
        raise BindError(f"Entire node must be allocated for {bind.mode}")
    level = bind.level or "threads"
    if bind.mode in ("rank", "rank_ldom"):
        units = _units(sorted(node), topo, "ldoms" if bind.mode == "rank_ldom" else level)
        return [set(units[task % len(units)]) for task in range(tasks)]
    if bind.mode in ("map_ldom", "mask_ldom"):
        domains = {topo.unit_of(cpu, "ldoms")[0]: set() for cpu in node}
        for cpu in node:
            domains[topo.unit_of(cpu, "ldoms")[0]].add(cpu)
        out = []
        for task in range(tasks):
            item = bind.items[task % len(bind.items)]
            wanted = {item} if bind.mode == "map_ldom" else {d for d in domains if item >> d & 1}
            out.append(set().union(*(domains.get(d, set()) for d in wanted)) or set(step))
        return out
    if bind.mode in ("map_cpu", "mask_cpu"):
        wanted = [({item} if bind.mode == "map_cpu" else {c for c in range(item.bit_length()) if item >> c & 1})
                  for item in bind.items]
        if any(not cpus <= step for cpus in wanted):
            raise BindError("CPU binding outside of job step allocation, allocated CPUs are: "
                            f"{hex_mask(step)}.")
        return [wanted[task % len(wanted)] for task in range(tasks)]
    second = distribution.split(",")[0].split(":")
    cyclic = len(second) < 2 or second[1].lower() not in ("block",)
    return _auto(sorted(step), topo, level, tasks, max(1, cpus_per_task), cyclic)


def verbose_line(bind: CpuBind, node: str, rank: int, local_id: int, pid: int, cpus: Iterable[int]) -> str:
    """What Slurm's task/affinity prints to the task's stderr for `verbose`."""
    if bind.mode == "none":
        units, kind, action = "", "NONE", ""
    elif bind.mode or bind.level:
        units = f"-{bind.level}" if bind.level else ""
        kind, action = VERBOSE_TYPE.get(bind.mode, "MASK"), " set"
    else:
        units, kind, action = "", "NULL", ""
    return f"cpu-bind{units}={kind} - {node}, task {rank:2d} {local_id:2d} [{pid}]: mask 0x{hex_mask(cpus)}{action}\n"
