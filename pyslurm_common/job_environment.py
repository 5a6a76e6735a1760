"""The SLURM_* variables that describe a started job, built in one place for every caller.

The controller gives them to a batch script and, in part, to every srun step's tasks
(pyslurm_ctld/translate/job_env.py adds what only it knows: the batch host, the step, the GPUs, array
tasks); salloc gives them to its command (cli/allocation_env.py), from the job as the controller
reports it. Each caller describes the job as `JobFacts`; the variable names and values are
decided here only, so a batch script, an srun task and an salloc shell see the same words.

Pure: no I/O, no errors.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyslurm_common.hostlist import compress_counts


@dataclass(frozen=True, slots=True, kw_only=True)
class JobFacts:
    """What a job's SLURM_* variables say about it: who runs it, where, with what layout."""

    job_id: int
    name: str
    partition: str
    uid: int
    user_name: str
    gid: int
    work_dir: str
    submit_host: str
    account: str = ""
    qos: str = ""
    nodelist: str                       # compressed (node[1-3])
    num_nodes: int
    cpus_per_node: Sequence[int]
    tasks_per_node: Sequence[int]
    num_tasks: int | None = None        # only when -n/--ntasks was given
    cpus_per_task: int | None = None    # only when -c/--cpus-per-task was given
    mem_per_cpu_mb: int = 0             # 0: not set (then mem_per_node_mb, if set)
    mem_per_node_mb: int = 0


def block_tasks_per_node(num_nodes: int, num_tasks: int, ntasks_given: bool, cpus_per_node: Sequence[int] = (),
                         cpus_per_task: int = 1) -> tuple[int, ...]:
    """Block distribution of a job's tasks over its nodes: one per node unless -n asked for more;
    with the allocation's CPUs per node, as many as each holds (block_counts)."""
    nodes = max(num_nodes, 1)
    tasks = max(num_tasks, nodes) if ntasks_given else nodes
    if ntasks_given and len(cpus_per_node) == nodes:
        return block_counts([cpus // max(1, cpus_per_task) for cpus in cpus_per_node], tasks)
    base, extra = divmod(tasks, nodes)
    return tuple(base + (1 if i < extra else 0) for i in range(nodes))


def block_counts(capacities: Sequence[int], tasks: int) -> tuple[int, ...]:
    """How many of `tasks` each node takes in Slurm's block layout (slurm_step_layout.c, without
    CR_Pack_Nodes): a task per node in turn, each round only to nodes with a CPU left for it; when
    no node has one, every node in turn (overcommit). Equal nodes share evenly, the first ones
    taking the remainder."""
    if not capacities:
        return ()
    counts = [0] * len(capacities)
    dealt, round_, oversubscribe = 0, 0, False
    while dealt < tasks:
        room_left = False
        for i, capacity in enumerate(capacities):
            if dealt == tasks:
                break
            if round_ < capacity or oversubscribe:
                counts[i] += 1
                dealt += 1
                room_left = room_left or round_ + 1 < capacity
        oversubscribe = oversubscribe or not room_left
        round_ += 1
    return tuple(counts)


def identity_variables(facts: JobFacts, cluster_name: str, conf_path: str) -> dict[str, str]:
    """The job's id, owner, origin, cluster and charge: the same in the batch script, every step's
    tasks and salloc's command. An empty cluster name or config path is left out (salloc that
    cannot see slurm.conf)."""
    env = {
        "SLURM_JOB_ID": str(facts.job_id), "SLURM_JOBID": str(facts.job_id),
        "SLURM_JOB_PARTITION": facts.partition,
        "SLURM_JOB_UID": str(facts.uid), "SLURM_JOB_USER": facts.user_name, "SLURM_JOB_GID": str(facts.gid),
        "SLURM_SUBMIT_DIR": facts.work_dir, "SLURM_SUBMIT_HOST": facts.submit_host,
    }
    if cluster_name:
        env["SLURM_CLUSTER_NAME"] = cluster_name
    if conf_path:
        env["SLURM_CONF"] = conf_path
    if facts.account:
        env["SLURM_JOB_ACCOUNT"] = facts.account
    if facts.qos:
        env["SLURM_JOB_QOS"] = facts.qos
    return env


def allocation_variables(facts: JobFacts, cluster_name: str, conf_path: str) -> dict[str, str]:
    """The whole allocation as a batch script or salloc's command sees it: its identity, name,
    nodes, layout and the -n/-c/--mem* options that were given."""
    env = {
        **identity_variables(facts, cluster_name, conf_path),
        "SLURM_JOB_NAME": facts.name,
        "SLURM_JOB_NODELIST": facts.nodelist, "SLURM_NODELIST": facts.nodelist,
        "SLURM_JOB_NUM_NODES": str(facts.num_nodes), "SLURM_NNODES": str(facts.num_nodes),
        "SLURM_JOB_CPUS_PER_NODE": compress_counts(facts.cpus_per_node),
        "SLURM_TASKS_PER_NODE": compress_counts(facts.tasks_per_node),
    }
    if facts.num_tasks is not None:
        env["SLURM_NTASKS"] = env["SLURM_NPROCS"] = str(facts.num_tasks)
    if facts.cpus_per_task is not None:
        env["SLURM_CPUS_PER_TASK"] = str(facts.cpus_per_task)
    if facts.mem_per_cpu_mb:
        env["SLURM_MEM_PER_CPU"] = str(facts.mem_per_cpu_mb)
    elif facts.mem_per_node_mb:
        env["SLURM_MEM_PER_NODE"] = str(facts.mem_per_node_mb)
    return env
