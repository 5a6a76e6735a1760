"""The scheduling options of sbatch, srun and salloc that shape when and where a job may run:
--time-min, --deadline, --priority, --contiguous, -B/--sockets-per-node/--cores-per-socket,
--cpu-freq, --acctg-freq, -k/--no-kill and --prefer. Checked in Slurm 22.05's words (real
sbatch's, compared in tests/unit/test_oracle_command_lines.py) and turned into JobDesc fields;
the controller acts on them (core/admission.py, core/deadlines.py, the scheduler's node choice).

--cpu-freq, --gpu-freq and --acctg-freq travel as given: with no cpufreq governor or GPU plugin to
set and no profiling plugin, what Slurm does with them is carry them into the job
(SLURM_CPU_FREQ_REQ, SLURM_GPU_FREQ, SLURM_ACCTG_FREQ, `scontrol show job`), and so does pyslurm.
--exclusive=user|mcs and -s/--oversubscribe show as OverSubscribe=USER/MCS/YES. --exclusive=user
gets what it asks on nodes no other user's job holds, and keeps other users' jobs off them while it
runs (node_fit.user_allows); =mcs, with no MCS plugin, takes whole nodes as --exclusive; -s shares
nothing, as Slurm on partitions with OverSubscribe=NO.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from .app import die
from .command_line import OPTION_EXIT
from .layout_options import count_option

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

PRIORITY_TOP = 2 ** 32 - 3          # --priority=TOP: the highest priority there is (Slurm's INFINITE-2)
PRIORITY_LIMIT = 2 ** 32 - 2        # Slurm refuses this and above
CPU_FREQ_LEVELS = {name.lower(): name for name in ("Low", "Medium", "High", "HighM1")}
CPU_GOVERNORS = {name.lower(): name for name in ("Conservative", "OnDemand", "Performance", "PowerSave",
                                                 "UserSpace", "SchedUtil")}
ACCTG_TYPES = ("task", "energy", "network", "filesystem")
_B_ORDINALS = ("first", "second", "third")


def extra_node_info(values: Mapping[str, Any]) -> tuple[int, int, int]:
    """-B S[:C[:T]] -> the minimum sockets, cores per socket and threads per core (0: "*" or left
    out; a min-max range keeps its minimum), with Slurm's refusal of a bad number."""
    raw = values.get("extra_node_info")
    if raw is None:
        return 0, 0, 0
    counts = []
    for ordinal, part in zip(_B_ORDINALS, (str(raw).split(":") + ["", ""])[:3]):
        low = part.split("-", 1)[0]
        if part in ("", "*"):
            counts.append(0)
        elif low.isdigit() and int(low) > 0:
            counts.append(int(low))
        else:
            die(f'Invalid numeric value "{part}" for {ordinal} arg of -B.')
    return counts[0], counts[1], counts[2]


def shown_extra_node_info(text: str) -> str:
    """-B as sbatch -v shows it back: the sockets, then ":cores" and ":threads" where given."""
    parts = (text.split(":") + ["", ""])[:3]
    mins = [p.split("-", 1)[0] if p not in ("", "*") else "" for p in parts]
    return mins[0] + "".join(f":{m}" for m in mins[1:] if m)


def implicit_tasks(values: Mapping[str, Any], nodes: int) -> int:
    """Slurm's "Number of tasks implicitly set to N." of -B without -n or --ntasks-per-node:
    a task per thread the -B minimums name on each node; 0 when that does not apply."""
    if values.get("extra_node_info") is None or values.get("ntasks") is not None \
            or values.get("ntasks_per_node") is not None:
        return 0
    sockets, cores, threads = extra_node_info(values)
    return max(1, nodes) * max(1, sockets) * max(1, cores) * max(1, threads)


def _time_min(values: Mapping[str, Any]) -> int:
    raw = values.get("time_min")
    if raw is None:
        return 0
    from pyslurm_common import units

    try:
        minutes = units.parse_time_limit(str(raw))
    except ValueError:
        die("Invalid --time-min specification", exit_code=OPTION_EXIT)
    return 0 if minutes == units.UNLIMITED else minutes


def _deadline(values: Mapping[str, Any], begin: int) -> int:
    raw = values.get("deadline")
    if raw is None:
        return 0
    import sys
    import time

    from pyslurm_common.dates import parse_datetime

    try:
        deadline = parse_datetime(str(raw), time.time())
    except ValueError:
        print(f"Invalid time specification (pos=0): {raw}", file=sys.stderr)
        die("Invalid --deadline specification")
    if begin and begin > deadline:
        die("Incompatible begin and deadline time specification")
    return deadline


def priority(values: Mapping[str, Any]) -> int | None:
    """--priority as Slurm's client reads it: TOP, else the leading digits (atoi: "x" is 0)."""
    raw = values.get("priority")
    if raw is None:
        return None
    text = str(raw).strip()
    if text.upper() == "TOP":
        return PRIORITY_TOP
    sign = -1 if text.startswith("-") else 1
    digits = ""
    for char in text.lstrip("+-"):
        if not char.isdigit():
            break
        digits += char
    number = sign * int(digits or "0")
    if number < 0:
        die("Priority must be >= 0", exit_code=OPTION_EXIT)
    if number >= PRIORITY_LIMIT:
        die(f"Priority must be < {PRIORITY_LIMIT}", exit_code=OPTION_EXIT)
    return number


def cpu_freq(text: str) -> tuple[str, str, str]:
    """--cpu-freq=p1[-p2][:governor] or a governor alone -> (min, max, governor) as Slurm names
    them ("" where not given; a single value is the maximum). Frequencies are kHz or Low,
    Medium, High, HighM1."""
    def level(word: str) -> str:
        if word.isdigit():
            return word
        if word.lower() in CPU_FREQ_LEVELS:
            return CPU_FREQ_LEVELS[word.lower()]
        die(f'unrecognized --cpu-freq argument "{word}"', "Invalid --cpu-freq argument", exit_code=OPTION_EXIT)

    if text.lower() in CPU_GOVERNORS:
        return "", "", CPU_GOVERNORS[text.lower()]
    span, colon, governor = text.partition(":")
    low, dash, high = span.partition("-")
    if colon and not dash:
        die(f"gov on cpu-frec ({governor}) illegal without max", "Invalid --cpu-freq argument",
            exit_code=OPTION_EXIT)
    if colon and governor.lower() not in CPU_GOVERNORS:
        die(f'unrecognized --cpu-freq argument "{governor}"', "Invalid --cpu-freq argument",
            exit_code=OPTION_EXIT)
    if not dash:
        return "", level(low), ""
    return level(low), level(high), CPU_GOVERNORS[governor.lower()] if colon else ""


def shown_cpu_freq(text: str) -> str:
    """--cpu-freq as -v and SLURM_CPU_FREQ_REQ show it: Slurm's spelling of each word."""
    low, high, governor = cpu_freq(text)
    span = f"{low}-{high}" if low else high
    return f"{span}:{governor}" if span and governor else span or governor


def _comma_list(values: Mapping[str, Any], dest: str, item_ok: Callable[[str, bool, str], bool],
                refusal: str) -> str:
    """A comma list of `[kind=]value` items, each checked by `item_ok(kind, has "=", value)`;
    returned as given, or refused with `refusal` (its {text} the whole list)."""
    raw = values.get(dest)
    if raw is None:
        return ""
    text = str(raw)
    for item in text.split(","):
        kind, equals, value = item.partition("=")
        if not item_ok(kind, bool(equals), value):
            die(refusal.format(text=text), exit_code=OPTION_EXIT)
    return text


def _acctg_freq(values: Mapping[str, Any]) -> str:
    """N, or type=N[,type=N] for task, energy, network and filesystem (seconds)."""
    return _comma_list(values, "acctg_freq", lambda kind, typed, seconds: (
        seconds.isdigit() and kind.lower() in ACCTG_TYPES if typed else kind.isdigit()),
        "Invalid --acctg-freq specification: {text}")


def over_subscribe(values: Mapping[str, Any]) -> str:
    """OverSubscribe= of --exclusive[=user|mcs] (NO, USER, MCS) or -s/--oversubscribe (YES)."""
    exclusive = values.get("exclusive")
    if exclusive is not None:
        kind = str(exclusive).lower()
        if kind not in ("", "user", "mcs"):
            die("Invalid --exclusive specification", exit_code=OPTION_EXIT)
        return kind.upper() or "NO"
    return "YES" if values.get("oversubscribe") else ""


def _gpu_freq(values: Mapping[str, Any]) -> str:
    """[type=]value[,...][,verbose]: value low, medium, high, highm1 or MHz; type memory or graphics."""
    def level(word: str) -> bool:
        return word.isdigit() or word.lower() in CPU_FREQ_LEVELS

    return _comma_list(values, "gpu_freq", lambda kind, typed, value: (
        kind in ("memory", "graphics") and level(value) if typed else kind == "verbose" or level(kind)),
        "Invalid --gpu-freq argument: gpu:{text}")


def scheduling_fields(values: Mapping[str, Any], begin: int) -> dict[str, Any]:
    """JobDesc fields of these options; `begin` is --begin resolved (0 none)."""
    sockets, cores, _threads = extra_node_info(values)   # -B's threads: layout_options
    fixed = priority(values)
    freq = str(values.get("cpu_freq") or "")
    no_kill = values.get("no_kill")
    return {
        "time_min": _time_min(values), "deadline": _deadline(values, begin),
        "priority_given": fixed is not None, "priority": fixed or 0,
        "contiguous": bool(values.get("contiguous")),
        "sockets_per_node": count_option(values, "sockets_per_node", "--sockets-per-node") or sockets,
        "cores_per_socket": count_option(values, "cores_per_socket", "--cores-per-socket") or cores,
        "cpu_freq": shown_cpu_freq(freq) if freq else "", "acctg_freq": _acctg_freq(values),
        "no_kill": no_kill is not None and str(no_kill).lower() not in ("off", "no"),
        "prefer": str(values.get("prefer") or ""), "over_subscribe": over_subscribe(values),
        "gpu_freq": _gpu_freq(values), "spread_job": bool(values.get("spread_job")),
    }


def output_environment(desc: Any) -> list[str]:
    """The variables these options put into the job's environment, as Slurm's commands do."""
    return [*([f"SLURM_CPU_FREQ_REQ={desc.cpu_freq}"] if desc.cpu_freq else []),
            *([f"SLURM_ACCTG_FREQ={desc.acctg_freq}"] if desc.acctg_freq else []),
            *([f"SLURM_GPU_FREQ={desc.gpu_freq}"] if desc.gpu_freq else [])]
