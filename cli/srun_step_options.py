"""srun options checked before a step is launched, each as Slurm 22.05's srun checks it:
-T/--threads, --whole, --het-group, --x11, -Z/--no-allocate, -r/--relative, --resv-ports, --accel-bind.

-T/--threads only tunes the fan-out of Slurm's srun messages to the nodes; pyslurm's controller
sends each node its launch itself, so the value is checked and has nothing else to act on.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Mapping, MutableMapping

from .app import die
from .command_line import occurrences

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

SRUN_MAX_THREADS = 60           # Slurm warns above it ("exceeds recommended limit")
MAX_HET_JOB_COMPONENTS = 128    # the --het-group values Slurm takes: 0 to 127
LONG_MAX = 2 ** 63 - 1
_C_INT = r"[ \t\n\v\f\r]*([+-]?\d+)"   # matched where an option is given: re is not imported by every srun
X11_FLAGS = ("all", "batch", "first", "last")


def parse_int(text: str, flag: str, positive: bool) -> int:
    """Slurm's parse_int: a C int (strtol, so leading blanks and a sign), else its error."""
    import re

    found = re.fullmatch(_C_INT, text)
    value = int(found.group(1)) if found else -1
    if not found or value < 0 or (positive and value == 0):
        die(f'Invalid numeric value "{text}" for {flag}.')
    if value >= LONG_MAX:
        die(f"Numeric argument ({LONG_MAX}) to big for {flag}.")
    return (value + 2 ** 31) % 2 ** 32 - 2 ** 31   # C's (int) of the long


def check_threads(values: Mapping[str, Any]) -> None:
    if values.get("threads") is None:
        return
    threads = parse_int(str(values["threads"]), "--threads", positive=True)
    if threads > SRUN_MAX_THREADS:
        print(f"srun: error: Thread value --threads={threads} exceeds recommended limit of {SRUN_MAX_THREADS}",
              file=sys.stderr)


def check_whole(values: Mapping[str, Any]) -> None:
    """--whole (all of each node's resources: what a step gets without --exact anyway) against
    --exact and --exclusive (which means --exact for a step)."""
    if values.get("whole") and (values.get("exact") or "exclusive" in values):
        die("--exact and --whole are mutually exclusive.")


def het_groups(values: Mapping[str, Any]) -> list[int]:
    """--het-group's components (a hostlist-style range such as 0 or [0-2]), checked as Slurm's srun."""
    raw = values.get("het_group")
    if raw is None:
        return [0]
    import re   # both only when --het-group is given: not imported by every srun

    from pyslurm_common.hostlist import HostlistError, expand

    text = str(raw)
    try:
        words = expand(text if text.startswith("[") else f"[{text}]")
    except HostlistError:
        print(f"srun: error: _parse_single_range: Invalid range: `{text.strip('[]')}'", file=sys.stderr)
        die(f"Invalid --het-group value: {text}")
    groups = []
    for word in words:
        if not re.fullmatch(r"[+-]?\d+", word) or not 0 <= int(word) < MAX_HET_JOB_COMPONENTS:
            die(f"Invalid --het-group value: {text}")
        groups.append(int(word))
    if not groups:
        die(f"Invalid --het-group value: {text}")
    return groups


def check_het_group(values: Mapping[str, Any], made_job: bool) -> None:
    """No job here is heterogeneous: component 0 is the job itself. A higher one is refused with
    Slurm's words for a new job; in an existing allocation Slurm would launch a heterogeneous step
    over copies of it, which pyslurm does not build, so it says so."""
    highest = max(het_groups(values))
    if highest == 0:
        return
    if made_job:
        die(f"Requested het-group offset exceeds highest hetjob index ({highest} > 0)")
    die("--het-group above 0 (a heterogeneous step in a regular allocation) is not supported by pyslurm")


def x11_wanted(values: Mapping[str, Any]) -> bool:
    """--x11[=all|batch|first|last]: any other value asks for nothing, as in Slurm."""
    if "x11" not in values:
        return False
    value = str(values["x11"]).lower()
    return value in ("", *X11_FLAGS)


def check_x11(values: Mapping[str, Any], environ: Mapping[str, str], made_job: bool) -> None:
    """What Slurm's srun checks of the display, then the controller's answer: pyslurm has no X11
    forwarding (as a Slurm without PrologFlags=X11). A step in an existing job ignores it, as Slurm's."""
    if not x11_wanted(values):
        return
    display = environ.get("DISPLAY")
    if display is None:
        die("No DISPLAY variable set, cannot setup x11 forwarding.", exit_code=255)
    if display.startswith(":"):
        socket_path = f"/tmp/.X11-unix/X{display[1:].split('.', 1)[0]}"
        if not os.path.exists(socket_path):
            die(f"Cannot stat() local X11 socket `{socket_path}`", exit_code=255)
    elif ":" not in display:
        die("Error parsing DISPLAY environment variable. Cannot use X11 forwarding.", exit_code=255)
    if made_job:
        die("Unable to allocate resources: X11 forwarding not available")
    print("srun: error: Ignoring --x11 option for a job step within an existing job. "
          "Set x11 options at job allocation time.", file=sys.stderr)


LOG_LEVELS = ("quiet", "fatal", "error", "info", "verbose", "debug", "debug2", "debug3", "debug4", "debug5")
MAX_SLURMD_DEBUG = 4   # Slurm caps the stepd's stderr at error + 4 (debug2)


def slurmd_debug(values: MutableMapping[str, Any]) -> int:
    """--slurmd-debug (or SLURMD_DEBUG): how many levels above error the step's stepd reports on
    the tasks' stderr, read as Slurm's log_string2num (a number, atoi-style, or a level name),
    capped with Slurm's line; the level is left in `values` for -v and the tasks get it as
    SLURMD_DEBUG (srun_options.step_environment). 0 when not given."""
    raw = values.get("slurmd_debug")
    if raw is None:
        return 0
    text = str(raw)
    if text[:1].isdigit():
        level = int(text[:len(text) - len(text.lstrip("0123456789"))]) % 2 ** 16
    else:
        level = LOG_LEVELS.index(text.lower()) if text.lower() in LOG_LEVELS else 2 ** 16 - 1   # NO_VAL16
    if level > MAX_SLURMD_DEBUG:
        print(f"srun: Using srun's max debug increment of {MAX_SLURMD_DEBUG}", file=sys.stderr)
        level = MAX_SLURMD_DEBUG
    values["slurmd_debug"] = str(level)
    return level


def check_no_allocate(values: Mapping[str, Any]) -> None:
    """-Z runs tasks on nodes without a job: Slurm's slurmd lets only root and SlurmUser do that.
    pyslurm's nodes run only what the controller credentials, so -Z is refused to everyone."""
    if not values.get("no_allocate"):
        return
    if not values.get("nodelist"):
        die("must specify a node list with -Z, --no-allocate.")
    if os.getuid() != 0:
        die("Application launch failed: Access/permission denied")
    die("--no-allocate is not supported by pyslurm (its nodes run only steps of a job)")


def check_relative(values: Mapping[str, Any]) -> int | None:
    """-r/--relative N: a node index (Slurm's parse_int), never with -w, -x or -Z."""
    if values.get("relative") is None:
        return None
    relative = parse_int(str(values["relative"]), "--relative", positive=False)
    if values.get("no_allocate"):
        die("do not specify -r,--relative with -Z,--no-allocate.")
    if values.get("nodelist") or values.get("exclude"):
        die("-r,--relative not allowed with -w,--nodelist or -x,--exclude.")
    return relative


def relative_nodes(relative: int, job_nodes: list[str], step_nodes: int, nodes_from_command_line: bool) -> list[str]:
    """The step's nodes from node `relative` of the allocation on, as Slurm's step manager picks them
    (the first `relative` nodes left out), and its refusal when they are too few."""
    wanted = step_nodes or max(len(job_nodes) - relative, 1)
    if relative + wanted > len(job_nodes):
        source = "--nodes" if nodes_from_command_line else "SLURM_JOB_NUM_NODES"
        die(f"--relative and {source} option incompatible with count of allocated nodes "
            f"({relative}+{wanted}>{len(job_nodes)})")
    return job_nodes[relative:relative + wanted]


def resv_port_count(values: Mapping[str, Any]) -> int | None:
    """--resv-ports[=N]: how many ports the step reserves (bare: 0, none), None when not given
    (MpiParams=ports= then decides, in the controller: pyslurm_ctld/core/reserved_ports.py)."""
    if "resv_ports" not in values:
        return None
    return max(0, parse_int(str(values["resv_ports"] or "0"), "--resv-port", positive=False))


def accel_bind(values: Mapping[str, Any]) -> str:
    """--accel-bind: the letters Slurm reads, in its order: v (verbose), g (GPUs closest to the
    task's CPUs), n (NICs closest). No NICs are generic resources here, so n binds nothing, as in
    Slurm on a node without NIC gres."""
    given = occurrences(values, "accel_bind")
    if not given:
        return ""
    if not any(c in given[0] for c in "vgn"):   # Slurm ORs each into the ones before: only the first can leave none
        die("Invalid --accel-bind specification", exit_code=255)
    return "".join(c for c in "vgn" if any(c in text for text in given))
