"""The environment salloc gives its command: the allocation's SLURM_* variables (spec §4).

Pure: the running job as the controller reports it (JobInfo with node_names and
cpus_per_node), the cluster name from the submit reply and the config path in; a dict out.
`srun` run from that environment finds the job (SLURM_JOB_ID) and the cluster (SLURM_CONF).
"""
from __future__ import annotations

from pyslurm_common.hostlist import compress, compress_counts
from pyslurm_common.rpc import messages as pb


def tasks_per_node(job: pb.JobInfo) -> list[int]:
    """Block distribution of the job's tasks (one per node unless -n asked for more)."""
    nodes = max(len(job.node_names), 1)
    tasks = max(job.num_tasks, nodes) if job.ntasks_given else nodes
    base, extra = divmod(tasks, nodes)
    return [base + (1 if i < extra else 0) for i in range(nodes)]


def allocation_environment(job: pb.JobInfo, cluster_name: str, conf_path: str) -> dict[str, str]:
    nodelist = compress(job.node_names) if job.node_names else job.nodes
    num_nodes = str(len(job.node_names) or job.num_nodes)
    env = {
        "SLURM_JOB_ID": str(job.job_id), "SLURM_JOBID": str(job.job_id), "SLURM_JOB_NAME": job.name,
        "SLURM_JOB_NODELIST": nodelist, "SLURM_NODELIST": nodelist,
        "SLURM_JOB_NUM_NODES": num_nodes, "SLURM_NNODES": num_nodes,
        "SLURM_JOB_CPUS_PER_NODE": compress_counts(list(job.cpus_per_node)),
        "SLURM_TASKS_PER_NODE": compress_counts(tasks_per_node(job)),
        "SLURM_JOB_PARTITION": job.partition,
        "SLURM_JOB_UID": str(job.user_id), "SLURM_JOB_USER": job.user_name, "SLURM_JOB_GID": str(job.group_id),
        "SLURM_SUBMIT_DIR": job.work_dir, "SLURM_SUBMIT_HOST": job.submit_host,
    }
    if cluster_name:
        env["SLURM_CLUSTER_NAME"] = cluster_name
    if conf_path:
        env["SLURM_CONF"] = conf_path
    if job.account:
        env["SLURM_JOB_ACCOUNT"] = job.account
    if job.qos:
        env["SLURM_JOB_QOS"] = job.qos
    if job.ntasks_given:
        env["SLURM_NTASKS"] = env["SLURM_NPROCS"] = str(job.num_tasks)
    if job.cpus_per_task_given:
        env["SLURM_CPUS_PER_TASK"] = str(job.cpus_per_task)
    if job.mem_per_cpu_mb:
        env["SLURM_MEM_PER_CPU"] = str(job.mem_per_cpu_mb)
    elif job.mem_per_node_mb:
        env["SLURM_MEM_PER_NODE"] = str(job.mem_per_node_mb)
    if job.gpu_indices:
        env["SLURM_JOB_GPUS"] = job.gpu_indices
    return env
