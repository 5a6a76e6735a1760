"""The per-GPU, disk, overcommit and task-layout options of sbatch, srun and salloc: checked in
Slurm's words and turned into JobDesc fields (the controller sizes the job by them).

--hint is Slurm's shorthand for the layout fields (nomultithread, compute_bound, memory_bound:
one thread per core). --gres-flags and --wait-all-nodes are checked and then have no effect, as
in Slurm where gres.conf names no Cores= and no node ever needs booting. --gpu-bind is checked here
and echoed as SLURM_GPU_BIND (the steps' srun binds by it). --reservation and --licenses travel to the controller, which knows none.
"""
from __future__ import annotations

from collections.abc import Mapping

from pyslurm_common import gpu_binding

from .app import die
from .command_line import OPTION_EXIT

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

HINTS = ("compute_bound", "memory_bound", "multithread", "nomultithread")
HINT_HELP = """Application hint options:
    --hint=             Bind tasks according to application hints
        compute_bound   use all cores in each socket
        memory_bound    use only one core in each socket
        [no]multithread [don't] use extra threads with in-core multi-threading
        help            show this help message"""
# -m's node and socket (and core) levels that Slurm's _parse_dist_base knows: block or cyclic,
# then block, cyclic or fcyclic; arbitrary (hostfile) stands alone; pack or nopack follows a comma
# or stands alone.
_NODE_LEVELS, _INNER_LEVELS, _FLAGS = ("block", "cyclic"), ("block", "cyclic", "fcyclic"), ("pack", "nopack")
GRES_FLAGS = ("enforce-binding", "disable-binding")


def task_distribution(values: Mapping[str, Any]) -> str:
    """-m as Slurm's verify_dist_type reads it and set_distribution prints it back: names in any
    case, `*` standing for the level's default (block, then cyclic, then the level above's), a
    flag after a comma (`block:fcyclic,Pack` is block:fcyclic,pack; `nopack` alone is nopack);
    plane=N apart. "" when not given; refused in Slurm's words."""
    text = str(values.get("distribution") or "")
    if not text:
        return ""
    if text[:5].lower() == "plane":
        size = text.partition("=")[2]
        if not (size.isascii() and size.isdigit() and 0 < int(size) <= 2**31 - 1):
            die("Invalid plane size or size not specified", "Invalid --distribution specification",
                exit_code=OPTION_EXIT)
        return f"plane={int(size)}"
    base, _comma, flag = text.partition(",")
    levels = [level for level in base.split(":") if level]   # strtok passes over empty fields
    shown: list[str] = []
    for depth, level in enumerate(levels[:3]):
        shown.append(level if level != "*" else ("block", "cyclic", shown[1] if depth == 2 else "")[depth])
    shown = [level.lower() for level in shown]
    known = len(levels) <= 3 and (
        (len(shown) == 1 and shown[0] in (*_NODE_LEVELS, "arbitrary", "hostfile", *_FLAGS))
        or (len(shown) > 1 and shown[0] in _NODE_LEVELS and all(level in _INNER_LEVELS for level in shown[1:])))
    if not known or text.startswith(",") or (flag and flag.lower() not in _FLAGS) or (
            shown and shown[0] in _FLAGS and flag and flag.lower() != shown[0]):   # pack,nopack: both flags
        die("Invalid --distribution specification", exit_code=OPTION_EXIT)
    name = ":".join(shown).replace("hostfile", "arbitrary")
    return name if not flag or name in _FLAGS else f"{name},{flag.lower()}"


def count_option(values: Mapping[str, Any], name: str, flag: str) -> int:
    raw = values.get(name)
    if raw is None:
        return 0
    text = str(raw)
    if not text.isdigit() or not 0 < int(text) < 65536:
        die(f'Invalid numeric value "{text}" for {flag}.')
    return int(text)


def _threads_per_core(values: Mapping[str, Any]) -> int:
    hint = values.get("hint")
    if hint is not None and values.get("threads_per_core") is None:
        if hint == "help":
            print(HINT_HELP)
            raise SystemExit(1)
        if hint not in HINTS:
            die(f'unrecognized --hint argument "{hint}", see --hint=help')
        return 0 if hint == "multithread" else 1
    from .scheduling_options import extra_node_info

    return count_option(values, "threads_per_core", "--threads-per-core") or extra_node_info(values)[2]


def _checked_no_effect(values: Mapping[str, Any]) -> None:
    flags = values.get("gres_flags")
    if flags is not None and str(flags).lower() not in GRES_FLAGS:
        die("Invalid --gres-flags specification", exit_code=OPTION_EXIT)
    wait = values.get("wait_all_nodes")
    if wait is not None and not str(wait).isdigit():
        die(f'Invalid numeric value "{wait}" for --wait-all-nodes.')
    if wait is not None and str(wait) not in ("0", "1"):
        die("Invalid --wait-all-nodes specification", exit_code=OPTION_EXIT)
    bind = values.get("gpu_bind")
    if bind is not None:
        try:
            gpu_binding.parse(str(bind))
        except gpu_binding.GpuBindError as exc:
            die(str(exc), exit_code=OPTION_EXIT)


def layout_fields(values: Mapping[str, Any]) -> dict[str, Any]:
    """JobDesc fields of these options."""
    from .job_options import memory_mb

    _checked_no_effect(values)
    distribution = task_distribution(values)
    if sum(values.get(name) is not None for name in ("mem", "mem_per_cpu", "mem_per_gpu")) > 1:
        die("--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.", severity="fatal")
    return {
        "reservation": str(values.get("reservation") or ""), "licenses": str(values.get("licenses") or ""),
        "mem_per_gpu_mb": memory_mb(values, "mem_per_gpu", "--mem-per-gpu"),
        "cpus_per_gpu": count_option(values, "cpus_per_gpu", "--cpus-per-gpu"),
        "tmp_disk_mb": memory_mb(values, "tmp", "--tmp"), "overcommit": bool(values.get("overcommit")),
        "ntasks_per_core": count_option(values, "ntasks_per_core", "--ntasks-per-core"),
        "ntasks_per_socket": count_option(values, "ntasks_per_socket", "--ntasks-per-socket"),
        "threads_per_core": _threads_per_core(values), "distribution": distribution,
        "gpu_bind": str(values.get("gpu_bind") or ""),
        "ntasks_per_node": count_option(values, "ntasks_per_node", "--ntasks-per-node"),
        "min_cpus_per_node": _mincpus(values),
    }


def _mincpus(values: Mapping[str, Any]) -> int:
    """--mincpus: any positive integer, which Slurm 22.05's job description carries in 16 bits
    (pn_min_cpus): real srun runs --mincpus=65537 as 1, and the controller refuses --mincpus=999999
    (16959) with "CPU count per node can not be satisfied" (core/admission.py)."""
    raw = values.get("mincpus")
    if raw is None:
        return 0
    text = str(raw)
    if not text.isdigit() or int(text) < 1:
        die(f'Invalid numeric value "{text}" for --mincpus.')
    return int(text) % 65536

