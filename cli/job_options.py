"""The allocation options sbatch, srun and salloc share, and their mapping to a JobDesc.

`values` are a command's parsed options (cli/command_line.py), keyed by each option's
destination in its table (cli/option_tables/). Validation messages are Slurm's
(`Invalid --<opt> specification`); every failure goes through `app.die`.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Mapping, MutableMapping, Sequence

from pyslurm_common import bounds, units
from pyslurm_common.rpc import messages as pb

from .app import die
from .command_line import OPTION_EXIT, occurrences
from .layout_options import layout_fields
from .option_support import run_as
from .scheduling_options import implicit_tasks, output_environment, scheduling_fields
from .submit_inputs import node_file

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:   # imported where used: dataclasses would slow every command's start
    from typing import Any

    from pyslurm_common.mem_binding import MemBind

BARE_NICE = 100   # `--nice` without a value
INT_MAX, LONG_MAX = 2 ** 31 - 1, 2 ** 63 - 1


_COUNT_BOUNDS = {"nodes": bounds.NODE_COUNT, "ntasks": bounds.TASK_COUNT,
                 "ntasks_per_node": bounds.TASKS_PER_NODE, "cpus_per_task": bounds.CPUS_PER_TASK}


def positive_int(values: Mapping[str, Any], name: str, flag: str) -> int:
    """`-n 4`, `-c 2`, `-N 2` (a `min-max` node range keeps the minimum); 0 when not given.
    Refusals in Slurm's words: `Invalid numeric value "x" for --ntasks.`, and for -N its own."""
    raw = values.get(name)
    if raw is None:
        return 0
    text = str(raw)
    if name == "nodes":
        return _node_count(text)
    if not text.isdigit() or int(text) < 1:
        die(f'Invalid numeric value "{text}" for {flag}.')
    if int(text) > INT_MAX:   # Slurm's strtol clamps to LONG_MAX, and spells it so
        die(f"Numeric argument ({min(int(text), LONG_MAX)}) to big for {flag}.")
    try:
        return _COUNT_BOUNDS[name].parse(text)
    except ValueError:
        die(f"Invalid {flag} specification")   # beyond what the controller takes


def _node_count(text: str) -> int:
    minimum, _maximum = node_range(text)
    if minimum and not bounds.NODE_COUNT.accepts(str(minimum)):   # Slurm takes -N 0
        die(f'"{text}" is not a valid node count', exit_code=OPTION_EXIT)
    return minimum


def node_range(text: str) -> tuple[int, int]:
    """-N `min[-max]` as Slurm's verify_node_count reads it: each side a C integer, `k` and `m`
    multiplying it by 1024 and 1024²; a range's missing minimum is 1 (`-N-3` is 1-3); a maximum
    of 0 is none. Refused in Slurm's words, exit 255."""
    low, dash, high = text.partition("-")
    minimum = _c_node_count(low if dash else text)
    if minimum is None or (minimum < 0 and not dash):
        die(f'"{low if dash else text}" is not a valid node count', exit_code=OPTION_EXIT)
    if not dash:
        return minimum, minimum
    maximum = _c_node_count(high)
    if maximum is None:
        die(f'"{high}" is not a valid node count', exit_code=OPTION_EXIT)
    minimum = max(minimum, 1) if minimum < 0 else minimum   # "-3": no digits before the dash
    if maximum and maximum < minimum:
        die(f"Maximum node count {maximum} is less than minimum node count {minimum}", exit_code=OPTION_EXIT)
    return minimum, maximum


def _c_node_count(text: str) -> int | None:
    """Slurm's _str_to_nodes: strtol, then an optional k and an optional m; -1 where no digit
    starts `text`; None where something other than blanks is left over."""
    body = text.lstrip(" \t\n\v\f\r")
    sign = body[:1] if body[:1] in ("+", "-") else ""
    digits = body[len(sign):]
    end = len(digits) - len(digits.lstrip("0123456789"))
    if not end:
        return -1 if not text.strip() else None
    number, rest = int(sign + digits[:end]), digits[end:]
    for suffix, factor in (("k", 1024), ("m", 1024 * 1024)):
        if rest[:1].lower() == suffix:
            number, rest = number * factor, rest[1:]
    return number if not rest.strip() else None


def settle_options(prog: str, values: MutableMapping[str, Any]) -> None:
    """What Slurm's option checks rewrite before -v shows the options and the job is made of them:
    -N against -w (below), -m in the form Slurm prints it back (layout_options.task_distribution)."""
    from .layout_options import task_distribution

    if values.get("distribution"):
        values["distribution"] = task_distribution(values)
    nodes_and_nodelist(prog, values)


def nodes_and_nodelist(prog: str, values: MutableMapping[str, Any]) -> None:
    """-N against -w, as Slurm's option checks leave them before -v shows them: the job needs at
    least every node the list names (`-N2-5 -w n[1-3]` is 3-5). srun first drops names from the
    end of a list longer than the -N maximum, with Slurm's error line; sbatch and salloc refuse a
    list with more distinct names than the maximum (`invalid number of nodes (-N 2-1)`)."""
    raw, listed = values.get("nodes"), values.get("nodelist")
    if raw is None or not listed or "/" in str(listed):   # a file of names: read with the list
        return
    from pyslurm_common.hostlist import HostlistError, compress, expand

    minimum, maximum = node_range(str(raw))
    try:
        names = expand(str(listed))
    except HostlistError:
        return   # refused, in Slurm's words, where the list is read
    if prog == "srun" and maximum and len(names) > maximum:
        print(f"srun: error: Required nodelist includes more nodes than permitted by max-node count "
              f"({len(names)} > {maximum}). Eliminating nodes from the nodelist.", file=sys.stderr)
        names = names[:maximum]
        values["nodelist"] = compress(names, sort=False)
    minimum = max(len(set(names)), minimum)
    if maximum and minimum > maximum:
        die(f"invalid number of nodes (-N {minimum}-{maximum})")
    values["nodes"] = str(minimum) if minimum == maximum else f"{minimum}-{maximum}"


def task_count(values: Mapping[str, Any]) -> int:
    """-n, else --ntasks-per-node times the node count (-N, default 1); 0 when neither is given."""
    tasks = positive_int(values, "ntasks", "--ntasks")
    per_node = positive_int(values, "ntasks_per_node", "--ntasks-per-node")
    if per_node and not tasks:
        tasks = tasks_on_nodes(per_node, positive_int(values, "nodes", "--nodes"))
    return tasks


def tasks_on_nodes(per_node: int, nodes: int) -> int:
    """--ntasks-per-node times the node count (at least one), within the task count's bound."""
    tasks = per_node * max(1, nodes)
    if not bounds.TASK_COUNT.low <= tasks <= bounds.TASK_COUNT.high:
        die("Invalid --ntasks-per-node specification")
    return tasks


def memory_mb(values: Mapping[str, Any], name: str, flag: str) -> int:
    raw = values.get(name)
    if raw is None:
        return 0
    try:
        return units.parse_memory_mb(str(raw))
    except ValueError:
        die(f"Invalid {flag} specification", exit_code=OPTION_EXIT)


def time_limit(values: Mapping[str, Any]) -> int:
    if values.get("time") is None:
        return 0
    text = str(values["time"])
    try:
        return units.parse_time_limit(text)
    except ValueError:
        # Slurm refuses a malformed limit while it reads it (exit 255); a well-formed one beyond
        # what the controller keeps is refused as its answer would be (exit 1)
        digits = text.replace("-", ":", 1).split(":")
        formed = 1 <= len(digits) <= 4 and all(d.isascii() and d.isdigit() for d in digits) and (
            len(digits) < 4 or "-" in text)
        die("Invalid --time specification", exit_code=1 if formed else OPTION_EXIT)


def export_environment(export: str | None, environ: Mapping[str, str], *, none_keeps_slurm: bool = True) -> list[str]:
    """The environment a job or step gets per --export (ALL, NONE, [ALL,]VAR[=val],...).

    NONE keeps the SLURM_* variables for sbatch/salloc; srun's NONE keeps nothing
    (`none_keeps_slurm=False`): the step variables come from the controller anyway.
    """
    items = [i for i in (export or "ALL").split(",") if i]
    head = items[0].upper() if items else "ALL"
    if head == "ALL" and len(items) == 1:
        return [f"{k}={v}" for k, v in environ.items()]
    keep_all = head == "ALL"
    if head in ("ALL", "NONE"):
        items = items[1:]
    if keep_all:
        chosen = dict(environ)
    else:
        chosen = {k: v for k, v in environ.items() if none_keeps_slurm and k.startswith("SLURM_")}
    for item in items:
        name, sep, value = item.partition("=")
        if sep and keep_all:
            chosen.setdefault(name, value)  # with ALL, the existing environment wins
        elif sep:
            chosen[name] = value
        elif name in environ:
            chosen[name] = environ[name]
    return [f"{k}={v}" for k, v in chosen.items()]


def gpu_count(values: Mapping[str, Any], name: str) -> int:
    """The count of one of the --gpus* options (0 when not given); refused as _gpu_count refuses."""
    return _gpu_count(values, name, "--" + name.replace("_", "-"))[1]


def _gpu_count(values: Mapping[str, Any], name: str, flag: str) -> tuple[str, int]:
    """`[type:]N` of the --gpus* options -> (type, N); N may be 0."""
    raw = values.get(name)
    if raw is None:
        return "", 0
    kind, _, count = str(raw).rpartition(":")
    if not (bounds.GPU_COUNT.accepts(count) or (count.isdigit() and not count.strip("0"))):
        die(f"Invalid {flag} specification")
    return (kind, int(count)) if int(count) else ("", 0)   # --gpus=0: no GPUs, as Slurm takes it


def _ntasks_per_gpu(values: Mapping[str, Any], gpu_counts: Mapping[str, int], num_tasks: int) -> tuple[int, int, int]:
    """--ntasks-per-gpu (or --ntasks-per-tres, which in 22.05 counts GPUs too) as Slurm's
    gres_job_state_validate reads it: (tasks per GPU, the job's task count, GPUs to ask for).
    Without -n a fixed -N counts that many tasks per node; GPUs asked for set the count (GPUs
    times tasks per GPU); else the tasks set the GPUs (tasks / tasks per GPU); else refused."""
    name = "ntasks_per_gpu" if values.get("ntasks_per_gpu") is not None else "ntasks_per_tres"
    raw = values.get(name)
    if raw is None:
        return 0, num_tasks, 0
    if not str(raw).isdigit() or int(raw) < 1:
        die(f'Invalid numeric value "{raw}" for --{name.replace("_", "-")}.')
    if gpu_counts["gpus_per_task"]:
        die("--gpus-per-task is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU",
            severity="fatal")
    per_gpu = int(raw)
    nodes = node_range(str(values["nodes"])) if values.get("nodes") is not None else None
    if not num_tasks and nodes is not None and nodes[0] == nodes[1]:
        num_tasks = nodes[0] * per_gpu
    gpus = gpus_asked(values, gpu_counts, nodes[0] if nodes else 0)
    if gpus:
        return per_gpu, gpus * per_gpu, 0
    if not num_tasks:
        die("gres_job_state_validate: --ntasks-per-tres needs either a GRES GPU specification or a "
            "node/ntask specification", "Invalid generic resource (gres) specification")
    return per_gpu, num_tasks, max(1, num_tasks // per_gpu)


def gpus_asked(values: Mapping[str, Any], gpu_counts: Mapping[str, int], nodes: int) -> int:
    """A job's or step's GPUs as Slurm totals them for --ntasks-per-gpu: --gpus, or the per-node ones
    (--gpus-per-node, --gres=gpu) times -N's minimum; the largest when several are given."""
    per_node = gpu_counts["gpus_per_node"]
    if values.get("gres"):
        from pyslurm_common.gres import GPU, GresError, parse_gres_request

        try:
            per_node = max(per_node, sum(s.count for s in parse_gres_request(str(values["gres"])) if s.name == GPU))
        except GresError:
            pass   # refused in Slurm's words where --gres is read
    return max(gpu_counts["gpus"], per_node * max(nodes, 1))


def _signal(values: Mapping[str, Any]) -> tuple[int, int, bool]:
    """--signal=[{R|B}:]<sig>[@<secs>] -> (number, seconds before the limit, batch shell only)."""
    raw = values.get("signal")
    if raw is None:
        return 0, 0, False
    text = str(raw)
    batch_only = False
    if len(text) > 2 and text[1] == ":" and text[0] in "RB":
        batch_only, text = text[0] == "B", text[2:]
    name, _, secs = text.partition("@")
    from .signals import parse_signal  # the signal module's enums cost start-up time otherwise

    try:
        number = parse_signal(name)
        seconds = int(secs) if secs else 60
    except ValueError:
        die("Invalid --signal specification", exit_code=OPTION_EXIT)
    if not 0 <= seconds <= 65535:
        die("Invalid --signal specification", exit_code=OPTION_EXIT)
    return number, seconds, batch_only


def current_umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def work_dir(values: Mapping[str, Any]) -> str:
    """-D relative to the current directory; the current directory without it."""
    cwd = os.getcwd()
    chdir = values.get("chdir")
    return os.path.normpath(os.path.join(cwd, chdir)) if chdir else cwd


def job_desc(values: Mapping[str, Any], default_name: str, environ: Mapping[str, str], **extra: Any) -> pb.JobDesc:
    """A JobDesc from the shared options; `extra` sets the command's own fields."""
    nice = 0
    if values.get("nice") is not None:
        text = str(values["nice"])
        if text == "":
            nice = BARE_NICE
        elif bounds.NICE.accepts(text):
            nice = int(text)
        else:
            die(f"Invalid --nice value, out of range (+/- {bounds.NICE_MAX})" if text.lstrip("+-").isdigit()
                else "Invalid --nice specification")
    gpu_types = set()
    gpu_counts = {}
    for name, flag in (("gpus", "--gpus"), ("gpus_per_node", "--gpus-per-node"), ("gpus_per_task", "--gpus-per-task")):
        kind, gpu_counts[name] = _gpu_count(values, name, flag)
        if kind:
            gpu_types.add(kind)
    if len(gpu_types) > 1:
        die("Invalid GPU type specification: use one type")
    num_tasks = task_count(values) or implicit_tasks(values, positive_int(values, "nodes", "--nodes"))
    ntasks_per_gpu, num_tasks, generated_gpus = _ntasks_per_gpu(values, gpu_counts, num_tasks)
    if generated_gpus:
        gpu_counts["gpus"] = generated_gpus
    signal_number, signal_seconds, signal_batch_only = _signal(values)
    desc = pb.JobDesc(
        name=values.get("job_name") or default_name,
        partitions=[p for p in (values.get("partition") or "").split(",") if p],
        account=values.get("account") or "", qos=values.get("qos") or "",
        min_nodes=positive_int(values, "nodes", "--nodes"), num_tasks=num_tasks,
        cpus_per_task=positive_int(values, "cpus_per_task", "--cpus-per-task"),
        ntasks_given=num_tasks > 0,
        cpus_per_task_given=values.get("cpus_per_task") is not None,
        mem_per_node_mb=memory_mb(values, "mem", "--mem"),
        mem_per_cpu_mb=memory_mb(values, "mem_per_cpu", "--mem-per-cpu"),
        time_limit_min=time_limit(values), work_dir=work_dir(values),
        hold=bool(values.get("hold")),
        environment=export_environment(values.get("export"), environ), submit_host=os.uname().nodename,
        umask=current_umask(), export_env=values.get("export") or "", nice=nice,
        gres=values.get("gres") or "",
        gpus=gpu_counts["gpus"], gpus_per_node=gpu_counts["gpus_per_node"],
        gpus_per_task=gpu_counts["gpus_per_task"], gpu_type=next(iter(gpu_types), ""),
        signal_number=signal_number, signal_seconds=signal_seconds, signal_batch_only=signal_batch_only,
        nodelist=values.get("nodelist") or node_file(values),
        exclude=values.get("exclude") or "",
        constraint=values.get("constraint") or "", submit_line=submit_line(sys.argv),
        comment=values.get("comment") or "", **_mail_fields(values), **layout_fields(values),
        ntasks_per_gpu=ntasks_per_gpu,
        **_scheduling_fields(values), **run_as(values), **extra,
    )
    desc.environment.extend(output_environment(desc))
    desc.environment.extend(f"{name}={value}" for name, value in mem_bind_exports(values).items())
    return desc


def mem_bind_exports(values: Mapping[str, Any]) -> dict[str, str]:
    """What Slurm's sbatch and salloc export of --mem-bind (the sruns inside read it back)."""
    bind = mem_bind(values)
    if bind is None:
        return {}
    return {name: bind.environment()[name] for name in ("SLURM_MEM_BIND", "SLURM_MEM_BIND_VERBOSE")}


def mem_bind(values: Mapping[str, Any]) -> "MemBind | None":
    """--mem-bind checked in Slurm's words (`help`: its help text, then the exit of a bad value)."""
    if values.get("mem_bind") is None:
        return None
    from pyslurm_common import mem_binding

    text = str(values["mem_bind"])
    if any(token.lower() == "help" for token in text.split(",")):
        print(mem_binding.HELP)
        raise SystemExit(OPTION_EXIT)
    try:
        return mem_binding.parse(text)
    except mem_binding.MemBindError as exc:
        die(str(exc), exit_code=OPTION_EXIT)


def open_mode(values: Mapping[str, Any]) -> str:
    """--open-mode=append|truncate (a prefix will do, as for Slurm); "" when not given."""
    raw = values.get("open_mode")
    if raw is None:
        return ""
    mode = next((m for m in ("append", "truncate") if raw and m.startswith(str(raw).lower())), None)
    if mode is None:
        die("Invalid --open-mode specification", exit_code=OPTION_EXIT)
    return mode


def _mail_fields(values: Mapping[str, Any]) -> dict[str, str]:
    """--mail-type (normalised; NONE is no mail) and --mail-user."""
    mail_type = ""
    if values.get("mail_type") is not None:
        from pyslurm_common.mail_types import combined_mail_kinds, shown_mail_type

        try:
            kinds = combined_mail_kinds(occurrences(values, "mail_type"))
        except ValueError:
            die("Invalid --mail-type specification", exit_code=255)
        mail_type = shown_mail_type(kinds) if kinds else ""
    return {"mail_type": mail_type, "mail_user": values.get("mail_user") or ""}


def submit_line(argv: Sequence[str]) -> str:
    """The command line as Slurm keeps it for sacct SubmitLine: the words joined by spaces, the
    command by its name (``sbatch -N 2 job.sh``), as typed rather than its installed path."""
    return " ".join([os.path.basename(argv[0]), *argv[1:]]) if argv else ""


def _scheduling_fields(values: Mapping[str, Any]) -> dict[str, Any]:
    """--dependency, --kill-on-invalid-dep and --begin (resolved here, to epoch seconds), and the
    options of cli/scheduling_options.py."""
    begin = 0
    if values.get("begin") is not None:
        import time

        from pyslurm_common.dates import parse_datetime

        try:
            begin = parse_datetime(str(values["begin"]), time.time())
        except ValueError:
            die("Invalid --begin specification")
    kill_on_invalid_dep = str(values.get("kill_on_invalid_dep") or "no").lower()
    if kill_on_invalid_dep not in ("yes", "no"):
        die("Invalid --kill-on-invalid-dep specification", exit_code=OPTION_EXIT)
    return {"dependency": values.get("dependency") or "", "begin_time": begin,
            "kill_on_invalid_dep": kill_on_invalid_dep == "yes", **scheduling_fields(values, begin)}
