"""The environment salloc gives its command: the allocation's SLURM_* variables (spec §4).

Pure: the running job as the controller reports it (JobInfo with node_names and
cpus_per_node), the cluster name from the submit reply and the config path in; a dict out.
`srun` run from that environment finds the job (SLURM_JOB_ID) and the cluster (SLURM_CONF).
The variables themselves are pyslurm_common.job_environment's, as a batch script gets them.
"""
from __future__ import annotations

from pyslurm_common.hostlist import compress
from pyslurm_common.job_environment import JobFacts, allocation_variables, block_tasks_per_node
from pyslurm_common.rpc import messages as pb


def job_facts(job: pb.JobInfo) -> JobFacts:
    num_nodes = len(job.node_names) or job.num_nodes
    return JobFacts(
        job_id=job.job_id, name=job.name, partition=job.partition, uid=job.user_id, user_name=job.user_name,
        gid=job.group_id, work_dir=job.work_dir, submit_host=job.submit_host, account=job.account, qos=job.qos,
        nodelist=compress(job.node_names) if job.node_names else job.nodes, num_nodes=num_nodes,
        cpus_per_node=list(job.cpus_per_node),
        tasks_per_node=block_tasks_per_node(len(job.node_names), job.num_tasks, job.ntasks_given,
                                            list(job.cpus_per_node), job.cpus_per_task),
        num_tasks=job.num_tasks if job.ntasks_given else None,
        cpus_per_task=job.cpus_per_task if job.cpus_per_task_given else None,
        mem_per_cpu_mb=job.mem_per_cpu_mb, mem_per_node_mb=job.mem_per_node_mb)


def allocation_environment(job: pb.JobInfo, cluster_name: str, conf_path: str) -> dict[str, str]:
    env = allocation_variables(job_facts(job), cluster_name, conf_path)
    if job.gpu_indices:
        env["SLURM_JOB_GPUS"] = job.gpu_indices
    return env
