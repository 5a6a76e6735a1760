"""The SLURM_* environment of a batch script or a job step, built when it starts.

PYSLURM_CONF rides along with SLURM_CONF when the job takes the submit environment: tools
that strip every SLURM_* variable but SLURM_JOB_ID (submitit, some MPI launchers) still leave
srun and scontrol inside the job talking to the cluster that runs it.

Pure: everything comes from the job, its allocation and the cluster name. The variables a
batch script shares with salloc's command (the job's identity, nodes, layout, -n/-c/--mem) and
those every step repeats are pyslurm_common.job_environment's; this module adds the batch
host's, the step's, the GPUs' and an array task's.
The node agent adds what only it knows (SLURMD_NODENAME, SLURM_TASK_PID).

GPU variables (daemons-and-cgroups.md §6) describe the batch host's allocated GPUs:
SLURM_JOB_GPUS has their global indices; CUDA_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL
are 0..n-1 because the job's device cgroup shows it only its own GPUs (the task/cgroup
case). A job without GPUs gets none of them, not even from the submit environment.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from pyslurm_common.hostlist import compress, compress_counts
from pyslurm_common.job_environment import JobFacts, allocation_variables, block_tasks_per_node, identity_variables

from ..model.job import Job, JobRequest, Step


def job_facts(job: Job) -> JobFacts:
    """The started job as the shared builder sees it. Memory: the option given, else the
    allocation's per-CPU share (a job that asked for none still learns what it got)."""
    alloc = job.allocation
    assert alloc is not None
    req = job.request
    mem_per_cpu = req.mem_per_cpu_mb
    if not mem_per_cpu and not req.mem_per_node_mb and alloc.memory_mb_per_node[0]:
        mem_per_cpu = alloc.memory_mb_per_node[0] // max(1, alloc.cpus_per_node[0])
    return JobFacts(
        job_id=job.job_id, name=req.name, partition=req.partition, uid=job.uid, user_name=job.user_name,
        gid=job.gid, work_dir=req.work_dir, submit_host=req.submit_host, account=req.account, qos=req.qos,
        nodelist=compress(alloc.nodes), num_nodes=len(alloc.nodes), cpus_per_node=alloc.cpus_per_node,
        tasks_per_node=block_tasks_per_node(len(alloc.nodes), req.num_tasks, req.ntasks_given, alloc.cpus_per_node,
                                            req.cpus_per_task),
        num_tasks=req.num_tasks if req.ntasks_given else None,
        cpus_per_task=req.cpus_per_task if req.cpus_per_task_given else None,
        mem_per_cpu_mb=mem_per_cpu, mem_per_node_mb=req.mem_per_node_mb)


def batch_environment(job: Job, cluster_name: str, conf_path: str, ctld_host: str, ctld_port: int) -> dict[str, str]:
    alloc = job.allocation
    assert alloc is not None
    req = job.request
    env = allocation_variables(job_facts(job), cluster_name, conf_path)
    env.update({
        "SLURM_CPUS_ON_NODE": str(alloc.cpus_per_node[0]),
        "SLURM_NODEID": "0", "SLURM_PROCID": "0", "SLURM_LOCALID": "0", "SLURM_GTIDS": "0",
        "SLURM_PRIO_PROCESS": str(req.nice),
        "SLURM_TOPOLOGY_ADDR": alloc.batch_host, "SLURM_TOPOLOGY_ADDR_PATTERN": "node",
        "SLURM_WORKING_CLUSTER": f"{cluster_name}:{ctld_host}:{ctld_port}:9728:109",
        "ENVIRONMENT": "BATCH", "HOSTNAME": alloc.batch_host, "SLURM_NODE_ALIASES": "(null)",
    })
    # sbatch sets SLURM_EXPORT_ENV unless it is ALL, the default (opt.c); the submit umask reaches
    # the batch step by its launch, and slurmstepd drops SLURM_UMASK from the batch script's
    # environment (ulimits.c set_umask), keeping it for srun steps only
    if req.export_env and req.export_env.upper() != "ALL":
        env["SLURM_EXPORT_ENV"] = req.export_env
    if job.restarts:
        env["SLURM_RESTART_COUNT"] = str(job.restarts)
    env.update(conf_alias(req.export_env, conf_path))
    env.update(request_echoes(req))
    env.update(gpu_environment(job))
    env.update(array_environment(job))
    return env


def conf_alias(export: str, conf_path: str) -> dict[str, str]:
    """PYSLURM_CONF beside SLURM_CONF, for a job that takes the submit environment (--export
    ALL, the default); --export=NONE or a list gives the job nothing but what it names and
    Slurm's own SLURM_* variables."""
    head = export.split(",", 1)[0].upper()
    return {"PYSLURM_CONF": conf_path} if head in ("", "ALL") else {}


def request_echoes(req: JobRequest) -> dict[str, str]:
    """The variables that echo layout and per-GPU options, only for the options given (as
    sbatch's, and the steps' through srun's own environment)."""
    echoes = {
        "SLURM_NTASKS_PER_NODE": req.ntasks_per_node, "SLURM_NTASKS_PER_CORE": req.ntasks_per_core,
        "SLURM_NTASKS_PER_GPU": req.ntasks_per_gpu,
        "SLURM_NTASKS_PER_SOCKET": req.ntasks_per_socket, "SLURM_THREADS_PER_CORE": req.threads_per_core,
        "SLURM_CPUS_PER_GPU": req.cpus_per_gpu, "SLURM_MEM_PER_GPU": req.mem_per_gpu_mb,
        "SLURM_DISTRIBUTION": req.distribution, "SLURM_OVERCOMMIT": int(req.overcommit),
        "SLURM_GPU_BIND": req.gpu_bind,
    }
    return {name: str(value) for name, value in echoes.items() if value}


def array_environment(job: Job) -> dict[str, str]:
    """SLURM_ARRAY_* of an array task (none for other jobs)."""
    array = job.array
    if array is None or array.task_id is None:
        return {}
    return {
        "SLURM_ARRAY_JOB_ID": str(array.array_job_id), "SLURM_ARRAY_TASK_ID": str(array.task_id),
        "SLURM_ARRAY_TASK_COUNT": str(array.task_count), "SLURM_ARRAY_TASK_MIN": str(array.task_min),
        "SLURM_ARRAY_TASK_MAX": str(array.task_max), "SLURM_ARRAY_TASK_STEP": str(array.task_step),
    }


# Dropped from the submit environment: a job's GPU view comes from its own allocation only
# (sbatch run inside a GPU job would otherwise hand the outer job's GPUs on).
GPU_VARIABLES = frozenset({
    "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
    "SLURM_JOB_GPUS", "SLURM_STEP_GPUS", "SLURM_GPUS_ON_NODE", "SLURM_GPUS", "SLURM_GPUS_PER_NODE",
    "SLURM_GPUS_PER_TASK",
})


# Dropped from the submit environment too: only an array task has them, and its own.
ARRAY_PREFIX = "SLURM_ARRAY_"


def _typed(gpu_type: str, count: int) -> str:
    """The `[type:]N` echo of a --gpus* option."""
    return f"{gpu_type}:{count}" if gpu_type else str(count)


def gpu_environment(job: Job) -> dict[str, str]:
    """GPU variables of the batch step; empty for a job without GPUs on its batch host."""
    assert job.allocation is not None
    gpus = job.allocation.gpus_on(0)
    if not gpus:
        return {}
    req = job.request
    local = ",".join(str(i) for i in range(len(gpus)))
    env = {
        "SLURM_JOB_GPUS": ",".join(str(i) for i in gpus),
        "CUDA_VISIBLE_DEVICES": local, "GPU_DEVICE_ORDINAL": local,
        "SLURM_GPUS_ON_NODE": str(len(gpus)),
    }
    # Echoes of the request, only for the option that was used (--gres=gpu:N echoes nothing).
    if req.gpus:
        env["SLURM_GPUS"] = _typed(req.gpu_type, req.gpus)
    if req.gpus_per_node_given:
        env["SLURM_GPUS_PER_NODE"] = _typed(req.gpu_type, req.gpus_per_node)
    if req.gpus_per_task:
        env["SLURM_GPUS_PER_TASK"] = _typed(req.gpu_type, req.gpus_per_task)
    return env


def ranged(ports: Sequence[int]) -> str:
    """12000-12002,12005: a step's reserved ports (SLURM_STEP_RESV_PORTS) as Slurm writes them."""
    runs: list[list[int]] = []
    for port in sorted(ports):
        if runs and runs[-1][1] == port - 1:
            runs[-1][1] = port
        else:
            runs.append([port, port])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def merged_environment(job: Job, slurm_env: dict[str, str]) -> list[str]:
    """Submit-time environment (less its GPU variables) with the job's SLURM_* values on top."""
    return overlay_environment(job.request.environment, slurm_env)


def step_environment(job: Job, step: Step, node_index: int, cluster_name: str, conf_path: str,
                     ctld_host: str, ctld_port: int, io_host: str, io_port: int) -> dict[str, str]:
    """The SLURM_* variables of a step's tasks on its `node_index`-th node, on top of the
    environment srun sent. The stepd adds the per-task ones (SLURM_PROCID, SLURM_LOCALID,
    SLURM_NODEID, SLURM_GTIDS, SLURM_TASK_PID, SLURMD_NODENAME)."""
    alloc = job.allocation
    assert alloc is not None
    req = job.request
    node = step.nodes[node_index]
    job_index = alloc.nodes.index(node)
    step_nodes = compress(step.nodes)
    tasks = str(step.num_tasks)
    env = identity_variables(job_facts(job), cluster_name, conf_path)
    env.update({
        "SLURM_STEP_ID": str(step.step_id), "SLURM_STEPID": str(step.step_id),
        "SLURM_JOB_NODELIST": compress(alloc.nodes), "SLURM_NODELIST": step_nodes,
        "SLURM_JOB_NUM_NODES": str(len(alloc.nodes)), "SLURM_NNODES": str(len(step.nodes)),
        "SLURM_JOB_CPUS_PER_NODE": compress_counts(alloc.cpus_per_node),
        "SLURM_STEP_NODELIST": step_nodes, "SLURM_STEP_NUM_NODES": str(len(step.nodes)),
        "SLURM_STEP_NUM_TASKS": tasks, "SLURM_NTASKS": tasks, "SLURM_NPROCS": tasks,
        "SLURM_STEP_TASKS_PER_NODE": compress_counts(step.tasks_per_node),
        "SLURM_TASKS_PER_NODE": compress_counts(step.tasks_per_node),
        "SLURM_CPUS_ON_NODE": str(len(step.cpu_ids[node_index]) if step.cpu_ids else alloc.cpus_per_node[job_index]),
        "SLURM_PRIO_PROCESS": str(req.nice), "SLURM_DISTRIBUTION": req.distribution or "block",
        "SLURM_TOPOLOGY_ADDR": node, "SLURM_TOPOLOGY_ADDR_PATTERN": "node",
        "SLURM_WORKING_CLUSTER": f"{cluster_name}:{ctld_host}:{ctld_port}:9728:109",
        "SLURM_LAUNCH_NODE_IPADDR": io_host, "SLURM_SRUN_COMM_HOST": io_host,
        "SLURM_SRUN_COMM_PORT": str(io_port), "SLURM_STEP_LAUNCHER_PORT": str(io_port),
        "SLURM_UMASK": f"{req.umask:04o}",
    })
    env.update(request_echoes(req))
    env.update(array_environment(job))   # srun steps of an array task are that task's
    if req.launcher == "srun":
        env["SLURM_JOB_NAME"] = req.name
    if job.restarts:
        env["SLURM_RESTART_COUNT"] = str(job.restarts)
    if step.resv_ports:
        env["SLURM_STEP_RESV_PORTS"] = ranged(step.resv_ports)
    gpus = alloc.gpus_on(job_index)
    if gpus:
        local = ",".join(str(i) for i in range(len(gpus)))
        env.update({"SLURM_STEP_GPUS": ",".join(str(i) for i in gpus), "SLURM_JOB_GPUS": ",".join(str(i) for i in gpus),
                    "CUDA_VISIBLE_DEVICES": local, "GPU_DEVICE_ORDINAL": local, "SLURM_GPUS_ON_NODE": str(len(gpus))})
    return env


# What srun sets from its own options for its step (-m, --gpu-bind, -c, --ntasks-per-node): its
# values win over the job's echoes.
STEP_OPTION_VARIABLES = ("SLURM_DISTRIBUTION", "SLURM_GPU_BIND", "SLURM_CPUS_PER_TASK", "SLURM_NTASKS_PER_NODE")
# What srun -E/--preserve-env passes through from its own environment instead of the step's counts.
PRESERVED_COUNTS = ("SLURM_NNODES", "SLURM_NTASKS", "SLURM_NPROCS", "SLURM_TASKS_PER_NODE", "SLURM_THREADS_PER_CORE")


def step_options_win(slurm_env: dict[str, str], srun_environment: Iterable[str],
                     preserve_env: bool = False) -> dict[str, str]:
    """`slurm_env` less the job's echoes of the options srun gave the step itself (and, for -E,
    less the step's counts that srun's environment has)."""
    given = {item.partition("=")[0] for item in srun_environment}
    kept = STEP_OPTION_VARIABLES + (PRESERVED_COUNTS if preserve_env else ())
    return {name: value for name, value in slurm_env.items() if name not in kept or name not in given}


def overlay_environment(environment: Iterable[str], slurm_env: dict[str, str]) -> list[str]:
    """A submitted environment (less GPU and array variables of another job) with SLURM_* values on top."""
    merged: dict[str, str] = {}
    for item in environment:
        name, sep, value = item.partition("=")
        if sep and name not in GPU_VARIABLES and not name.startswith(ARRAY_PREFIX):
            merged[name] = value
    merged.update(slurm_env)
    return [f"{k}={v}" for k, v in merged.items()]
