"""`sbatch -v`: the "defined options" block real sbatch prints before it submits.

One line per option that is set, named by its long name, in the table's order, the value as
Slurm shows it back: flags as `set` (or their own word), times as D-HH:MM:SS, file names made
absolute, `--nice` alone as 100 ... Pure: values and the working directory in, lines out.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Callable

from .command_line import occurrences
from .getopt_long import NONE, Row

RULE = "-------------------- --------------------"
# Flags Slurm shows by a word of their own instead of `set`.
FLAG_WORDS = {"requeue": "requeue", "no_requeue": "no-requeue", "exclusive": "exclusive",
              "oversubscribe": "oversubscribe"}
NOT_SHOWN = frozenset({"help", "usage", "version",
                       "het_group"})   # srun's --het-group is read apart from its other options, unshown


def _time(text: str) -> str:
    from pyslurm_common import units

    minutes = units.parse_time_limit(text)
    if minutes == units.UNLIMITED:
        return "UNLIMITED"
    days, rest = divmod(minutes * 60, 86400)
    hours, rest = divmod(rest, 3600)
    clock = f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"
    return f"{days}-{clock}" if days else clock


def _path(work_dir: str) -> Callable[[str], str]:
    def absolute(text: str) -> str:
        if text == "none":
            return "/dev/null"
        return text if text.startswith("/") else os.path.join(work_dir, text)
    return absolute


def _begin(text: str) -> str:
    import time

    from pyslurm_common.dates import parse_datetime

    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(parse_datetime(text, time.time())))


def _signal(text: str) -> str:
    import signal

    from .signals import parse_signal

    prefix = text[:2] if text[:2] in ("B:", "R:") else ""
    name, _, seconds = text[len(prefix):].partition("@")
    shown = f"{'B:' if prefix == 'B:' else ''}{signal.Signals(parse_signal(name)).name[3:]}"
    return shown + (f"@{seconds}" if seconds and int(seconds) != 60 else "")


def _megabytes(text: str) -> str:
    """A size as Slurm prints it back: in the largest unit that divides it, M left out."""
    from pyslurm_common import units

    size = units.parse_memory_mb(text)
    for unit in "MGTP":
        if size % 1024:
            return str(size) if unit == "M" else f"{size}{unit}"
        size //= 1024
    return f"{size}?"   # what Slurm's mbytes_to_str makes of 0 (and of exabytes)


def _node_count(text: str) -> str:
    """As Slurm prints -N back: `1-1` as `1`, `-3` as `1-3`, `1k` as `1024`."""
    from .job_options import node_range

    low, high = node_range(text)
    return str(low) if low == high else f"{low}-{high}"


def _mail_type(given: list[str]) -> str:
    """Every --mail-type given, ORed as Slurm does (cli/job_options.py refused a bad one)."""
    from pyslurm_common.mail_types import combined_mail_kinds, shown_mail_type

    return shown_mail_type(combined_mail_kinds(given))


def _extra_node_info(text: str) -> str:
    from .scheduling_options import shown_extra_node_info

    return shown_extra_node_info(text)


def _cpu_freq(text: str) -> str:
    from .scheduling_options import shown_cpu_freq

    return shown_cpu_freq(text)


def _priority(text: str) -> str:
    from .scheduling_options import PRIORITY_TOP, priority

    number = priority({"priority": text})
    return "-3" if number == PRIORITY_TOP else str(number)   # TOP: Slurm prints its signed value


def _c_int(flag: str) -> Callable[[str], str]:
    return lambda text: str(parse_int(text, flag, positive=True))


def parse_int(text: str, flag: str, positive: bool) -> int:
    from .srun_step_options import parse_int as c_parse_int

    return c_parse_int(text, flag, positive)


def _log_level(text: str) -> str:
    from .srun_step_options import LOG_LEVELS

    return LOG_LEVELS[int(text)] if text.isdigit() and int(text) < len(LOG_LEVELS) else "unknown"


def _umask(text: str) -> str:
    from .sbatch_xlate import pbs_umask

    return f"0{pbs_umask(text):o}"


def _x11(text: str) -> str:
    from .srun_step_options import X11_FLAGS

    return text.lower() if text.lower() in X11_FLAGS else "all" if not text else "unset"


def _shown(dest: str, kind: int, value: Any, work_dir: str | None) -> str:
    if dest == "verbose":
        return str(value)
    if kind == NONE or value is True:
        return FLAG_WORDS.get(dest, "set")
    text = str(value)
    if dest == "exclusive":
        return text or "exclusive"
    if dest == "nice":
        return text or "100"
    if dest == "get_user_env":   # its timeout, then its mode letter: `0`, `10L`, `0S`
        import re

        shape = re.fullmatch(r"(\d*)([sSlL]?)", text)
        return f"{shape.group(1) or '0'}{shape.group(2).upper()}" if shape else text
    if dest == "no_kill":
        return "unset" if text.lower() in ("off", "no") else "set"
    if dest == "kill_on_bad_exit":
        return text or "1"
    if dest == "overlap":
        return "set"
    shapes: dict[str, Callable[[str], str]] = {
        "time": _time, "time_min": _time, "begin": _begin, "signal": _signal,
        "chdir": _path(os.getcwd()), "open_mode": lambda t: t[:1],
        "nodes": _node_count, "mem": _megabytes, "mem_per_cpu": _megabytes, "mem_per_gpu": _megabytes, "tmp": _megabytes,
        "gres": lambda t: t if t.startswith("gres:") or t == "none" else f"gres:{t}",
        "extra_node_info": _extra_node_info, "cpu_freq": _cpu_freq, "priority": _priority,
        "deadline": _begin, "threads": _c_int("--threads"), "x11": _x11,
        "accel_bind": lambda t: "".join(c for c in "vgn" if c in t),
        "resv_ports": lambda t: str(parse_int(t or "0", "--resv-port", positive=False)),
        "umask": _umask, "slurmd_debug": _log_level,
    }
    if work_dir is not None:   # sbatch shows its file names made absolute; srun as given
        shapes.update({"output": _path(work_dir), "error": _path(work_dir), "input": _path(work_dir)})
    return shapes[dest](text) if dest in shapes else text


def defined_options(table: Sequence[Row], values: Mapping[str, Any], work_dir: str | None) -> list[str]:
    """The block's lines (without the `prog: ` prefix), first and last rule included; file
    names are shown relative to `work_dir`, or as given when it is None."""
    lines = ["defined options", RULE]
    done: set[str] = set()
    for name, _short, kind, dest, _env, _help in table:
        if dest in done or dest not in values or dest in NOT_SHOWN:
            continue
        done.add(dest)
        shown = (_mail_type(occurrences(values, dest)) if dest == "mail_type"
                 else _shown(dest, kind, values[dest], work_dir))
        lines.append(f"{name or '(null)':<20}: {shown}")   # Slurm's name for an option without one
    return lines + [RULE, "end of defined options"]
