"""srun's options and what they become: the JobDesc of its own allocation, the StepRequest.

Pure but for reading the given environment mapping: spec cli-sbatch-srun-salloc.md §3.1-3.3.
Inside an allocation the step sizes default to the job's (SLURM_NTASKS, SLURM_NNODES and
SRUN_CPUS_PER_TASK read as input variables of -n, -N and -c); command-line options win.
"""
from __future__ import annotations

import os
import socket
import sys
from collections.abc import Mapping, Sequence

from pyslurm_common.bounds import TASK_RANK
from pyslurm_common.rpc import messages as pb
from pyslurm_common.typed_tuple import NamedTuple

from . import job_options
from .app import die
from .command_line import COMMAND_LINE, ENVIRONMENT, OptionValues
from .srun_step_options import accel_bind
from .step_layout import INPUT_ALL, INPUT_NONE
from .submit_inputs import rlimits

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

class StreamSpec(NamedTuple):   # a NamedTuple: dataclasses would import inspect into srun
    """One of -o/-e/-i: `all` (stream everything), `none`, one task rank, or a file pattern."""
    mode: str                  # "all", "none", "rank", "file"
    rank: int = 0
    pattern: str = ""

    @property
    def on_node(self) -> bool:
        """Per-task or per-node files are opened by the stepd; the others by srun."""
        if self.mode != "file":
            return False
        import re   # only for -o/-e/-i file patterns: not imported by every srun

        return bool(re.search(r"%\d*[tnN]", self.pattern)) and "\\" not in self.pattern


def stream_spec(value: str | None) -> StreamSpec:
    if value is None or value.lower() == "all":
        return StreamSpec("all")
    if value.lower() == "none":
        return StreamSpec("none")
    if TASK_RANK.accepts(value):    # a number beyond any rank names a file, as in Slurm
        return StreamSpec("rank", rank=int(value))
    return StreamSpec("file", pattern=value)


def input_task(spec: StreamSpec, pty: bool) -> int:
    """StepRequest.input_task: -1 every task, -2 none, else the rank that gets stdin."""
    if pty:
        return 0
    if spec.mode == "file":
        return INPUT_NONE if spec.on_node else INPUT_ALL  # a local file is streamed like srun's own stdin
    return {"all": INPUT_ALL, "none": INPUT_NONE, "rank": spec.rank}[spec.mode]


def step_sizes(values: OptionValues) -> tuple[int, int, int]:
    """(tasks, nodes, cpus per task) of the step; 0 = the controller's default.

    A node count inherited from the job (SLURM_NNODES) gives way to a smaller task count
    from the command line, as Slurm's srun does (`srun -n1` in a two-node job); a task count
    inherited from the job (SLURM_NTASKS) gives way to --ntasks-per-node on the command line."""
    tasks = job_options.task_count(values)
    nodes = job_options.positive_int(values, "nodes", "--nodes")
    cpus = job_options.positive_int(values, "cpus_per_task", "--cpus-per-task")
    source = values.source
    if source("ntasks") == ENVIRONMENT and source("ntasks_per_node") == COMMAND_LINE:
        tasks = job_options.tasks_on_nodes(job_options.positive_int(values, "ntasks_per_node", "--ntasks-per-node"),
                                           nodes)
    if tasks and nodes > tasks and source("nodes") == ENVIRONMENT and source("ntasks") == COMMAND_LINE:
        nodes = tasks
    per_gpu = values.get("ntasks_per_gpu") or values.get("ntasks_per_tres")
    if per_gpu is not None and str(per_gpu).isdigit():   # the step's GPUs times it, when more (Slurm's step_mgr)
        counts = {name: job_options.gpu_count(values, name) for name in ("gpus", "gpus_per_node")}
        tasks = max(tasks, job_options.gpus_asked(values, counts, nodes) * int(per_gpu))
    return tasks, nodes, cpus


def node_maximum(values: OptionValues, minimum: int) -> int:
    """-N min-max's maximum from the command line (0 for a plain count, or inherited SLURM_NNODES)."""
    if values.source("nodes") != COMMAND_LINE:
        return 0
    _low, high = job_options.node_range(str(values["nodes"]))
    return high if high > minimum else 0


def step_environment(values: Mapping[str, Any], environ: Mapping[str, str], work_dir: str, umask: int) -> list[str]:
    """The tasks' environment before the controller's SLURM_* step variables (§3.3)."""
    env = dict(item.split("=", 1) for item in
               job_options.export_environment(values.get("export"), environ, none_keeps_slurm=False))
    env["SLURM_SUBMIT_DIR"] = work_dir
    env["SLURM_SUBMIT_HOST"] = socket.gethostname()
    env["SLURM_UMASK"] = f"{umask:04o}"
    env["SRUN_DEBUG"] = "3"
    env.setdefault("TMPDIR", "/tmp")
    if values.get("label"):
        env["SLURM_LABELIO"] = "1"
    if values.get("mpi", "none") != "none":
        env["SLURM_MPI_TYPE"] = values["mpi"]   # the stepd serves PMI-2 when it reads pmi2 here
    env.update(binding_environment(values))
    for dest, name in (("task_prolog", "SLURM_TASK_PROLOG"), ("task_epilog", "SLURM_TASK_EPILOG")):
        if values.get(dest):   # the stepd runs them as the user around each task (pyslurm_d/task_scripts.py)
            env[name] = str(values[dest])
    for dest, name, flag in (("cpus_per_task", "SLURM_CPUS_PER_TASK", "--cpus-per-task"),
                             ("ntasks_per_node", "SLURM_NTASKS_PER_NODE", "--ntasks-per-node")):
        if values.get(dest) is not None:   # as Slurm's srun sets them for its step
            env[name] = str(job_options.positive_int(values, dest, flag))
    if values.get("unbuffered") or values.get("pty"):
        env["SLURM_UNBUFFEREDIO"] = "1"
    if kill_on_bad_exit(values):
        env["SLURM_KILL_BAD_EXIT"] = "1"
    return [f"{k}={v}" for k, v in env.items()]


def _count_of(value: object) -> int:
    """The N of `[type:]N` (--gpus-per-task), 0 when absent or unreadable (checked elsewhere)."""
    text = str(value or "").rpartition(":")[2]
    return int(text) if text.isdigit() else 0


def binding_environment(values: Mapping[str, Any]) -> dict[str, str]:
    """--cpu-bind, --mem-bind, --gpu-bind (or the binding --gpus-per-task / --ntasks-per-gpu imply)
    and -m as the step's variables, which the stepd binds each task by (pyslurm_d/task_binding.py)."""
    from pyslurm_common import gpu_binding

    env: dict[str, str] = {}
    if values.get("cpu_bind") is not None:
        from pyslurm_common import cpu_binding   # only then: its import costs an srun without it

        text = str(values["cpu_bind"])
        if text.lower() == "help":
            print(cpu_binding.HELP)
            raise SystemExit(1)
        try:
            env.update(cpu_binding.parse(text).environment())
        except cpu_binding.BindError as exc:
            print(f"srun: error: {exc}", file=sys.stderr)
            die("Failed to parse --cpu-bind= values.", severity="fatal")
    mem_bind = job_options.mem_bind(values)
    if mem_bind is not None:
        env.update(mem_bind.environment())
    explicit = str(values.get("gpu_bind") or "")
    if "g" in (accel := accel_bind(values)):   # --accel-bind=g wins over --gpu-bind, as in Slurm's gres/gpu
        explicit = "verbose,closest" if "v" in accel else "closest"
    gpu_bind = gpu_binding.implied(explicit, _count_of(values.get("gpus_per_task")),
                                   _count_of(values.get("ntasks_per_gpu")))
    if gpu_bind:
        try:
            gpu_binding.parse(gpu_bind)
        except gpu_binding.GpuBindError as exc:
            die(str(exc))
        env["SLURM_GPU_BIND"] = gpu_bind
    if values.get("distribution"):
        env["SLURM_DISTRIBUTION"] = str(values["distribution"])
    if str(values.get("slurmd_debug") or "0") != "0":   # settled by srun_step_options.slurmd_debug
        env["SLURMD_DEBUG"] = str(values["slurmd_debug"])
    return env


# The MPI plugins this build has: pmi2 is served by every stepd (pyslurm_common/pmi2.py). Debian's
# Slurm 22.05 also ships mpi/pmix (pmix_v4) without the PMIx library it loads, and so does
# pyslurm, which has no PMIx server: `--mpi=list` names them and they are refused as that srun
# refuses them. Other names (cray_shasta, pmix_v3, ...) are plugins this build lacks.
MPI_TYPES = ("none", "pmi2")
PMIX_TYPES = ("pmix", "pmix_v4")   # pmix is the newest version's other name


def mpi_type(values: Mapping[str, Any]) -> str:
    """--mpi (or SLURM_MPI_TYPE), else MpiDefault from slurm.conf, else none. --mpi=list prints the
    types and ends srun; a type without a plugin is refused in Slurm's words."""
    name = values.get("mpi")
    if name is None:
        from pyslurm_common.client_settings import conf_value
        name = conf_value("MpiDefault") or "none"
    if name == "list":
        print("MPI plugin types are...", *(f"\t{t}" for t in (PMIX_TYPES[0], *MPI_TYPES)), sep="\n")
        print(f"specific pmix plugin versions available: {','.join(PMIX_TYPES[1:])}")
        raise SystemExit(0)
    if name in PMIX_TYPES:
        lines: tuple[str, ...] = (
            f" mpi/{PMIX_TYPES[-1]}: init: (null) [0]: mpi_pmix.c:195: pmi/pmix: can not load PMIx library",
            f"Couldn't load specified plugin name for mpi/{name}: Plugin init() callback failed")
    elif name not in MPI_TYPES:
        lines = (f"Couldn't find the specified plugin name for mpi/{name} looking at all files",
                 f"cannot find mpi plugin for mpi/{name}")
    else:
        return str(name)
    for line in (*lines, f"MPI: Cannot create context for mpi/{name}", "MPI: Unable to load any plugin"):
        print(f"srun: error: {line}", file=sys.stderr)
    die(f"Invalid MPI type '{name}', --mpi=list for acceptable types")


def check_step_gres(values: Mapping[str, Any]) -> None:
    """A step's --gres names only what jobs here can hold (GPUs); Slurm refuses others outright."""
    raw = values.get("gres")
    if raw is None:
        return
    from pyslurm_common.gres import GPU, GresError, parse_gres_request

    try:
        specs = parse_gres_request(str(raw))
    except GresError:
        die("Invalid generic resource (gres) specification")
    if any(spec.name != GPU for spec in specs):
        die("Invalid generic resource (gres) specification")


def multi_prog_config(values: Mapping[str, Any], argv: Sequence[str]) -> tuple[str, int]:
    """--multi-prog: the configuration file argv[0] names, read and checked as Slurm's srun does
    before anything is asked of the controller; (its text, the step's task count)."""
    from pyslurm_common.multi_prog import MAX_FILE_BYTES, MultiProgError, check_config

    name = argv[0]
    try:
        with open(name, "rb") as config:
            data = config.read(MAX_FILE_BYTES + 1)
    except OSError:
        die(f"Could not open multi_prog config file {name}")
    if len(data) > MAX_FILE_BYTES:
        die(f"Multi_prog config file {name} is too large")
    text = data.decode(errors="replace")
    given = values.get("ntasks") is not None
    try:
        tasks, _commands = check_config(name, text, job_options.task_count(values) if given else 1, given)
    except MultiProgError as exc:
        die(*exc.lines)
    return text, tasks


def kill_on_bad_exit(values: Mapping[str, Any]) -> bool:
    """-K / --kill-on-bad-exit[=0|1]: bare is 1."""
    return values.get("kill_on_bad_exit") not in (None, "0")


def wait_seconds(values: Mapping[str, Any]) -> int:
    raw = values.get("wait")
    if raw is None:
        return 0
    if not str(raw).isdigit():
        die(f'Invalid numeric value "{raw}" for --wait.')
    return min(int(raw), 2 ** 31 - 1)


def step_name(values: OptionValues, argv: Sequence[str]) -> str:
    """-J names a step only from the command line; SLURM_JOB_NAME (the job's) does not."""
    if values.source("job_name") == COMMAND_LINE:
        return str(values["job_name"])
    return os.path.basename(argv[0])


def step_request(values: OptionValues, argv: Sequence[str], environ: Mapping[str, str], job_id: int, io_port: int,
                 io_key: str, pty_size: tuple[int, int]) -> pb.StepRequest:
    tasks, nodes, cpus = step_sizes(values)
    out, err, inp = (stream_spec(values.get(k)) for k in ("output", "error", "input"))
    pty = bool(values.get("pty"))
    work_dir = job_options.work_dir(values)
    umask = job_options.current_umask()
    return pb.StepRequest(
        job_id=job_id, name=step_name(values, argv),
        num_tasks=tasks, min_nodes=nodes, max_nodes=node_maximum(values, nodes), cpus_per_task=cpus,
        exact=bool(values.get("exact")) or values.given("exclusive") or cpus > 0,   # --exclusive: --exact for a step
        overlap=values.given("overlap"), overcommit=bool(values.get("overcommit")),
        nodelist=values.get("nodelist") or "", argv=list(argv), environment=step_environment(values, environ, work_dir, umask),
        work_dir=work_dir, io_port=io_port, io_key=io_key, pty=pty,
        std_out=out.pattern if out.on_node else "", std_err=err.pattern if err.on_node else "",
        std_in=inp.pattern if inp.on_node else "", input_task=input_task(inp, pty),
        kill_on_bad_exit=kill_on_bad_exit(values), umask=umask,
        rlimits=rlimits(values), pty_rows=pty_size[0] if pty else 0, pty_cols=pty_size[1] if pty else 0,
        open_mode=job_options.open_mode(values),
        distribution=str(values.get("distribution") or ""), unbuffered=bool(values.get("unbuffered")) or pty,
        preserve_env=bool(values.get("preserve_env")),
    )


def allocation_desc(values: Mapping[str, Any], argv: Sequence[str], environ: Mapping[str, str]) -> pb.JobDesc:
    """The job srun creates outside an allocation: named after the program unless -J."""
    return job_options.job_desc(values, os.path.basename(argv[0]), environ, launcher="srun", script="",
                                argv=list(argv), exclusive="exclusive" in values)
