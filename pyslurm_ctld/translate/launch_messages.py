"""The node agent's launch messages, built in one place: the batch script's (BatchLaunch) and a
step's, first as srun asked for it (the spec), then completed for each node of the step.

The shell signs them (job credentials) and sends them; nothing here does I/O.
"""
from __future__ import annotations

from pyslurm_common.config import SlurmConfig
from pyslurm_common.rpc import ctld_pb2, slurmd_pb2
from pyslurm_common.task_distribution import node_ranks

from ..model.job import Job, Step
from . import convert
from .job_env import batch_environment, merged_environment, overlay_environment, step_environment, step_options_win


def batch_launch(job: Job, cfg: SlurmConfig) -> slurmd_pb2.BatchLaunch:
    """The batch script's launch on the batch host (unsigned)."""
    assert job.allocation is not None
    env = batch_environment(job, cfg.cluster_name, str(cfg.path), cfg.controller_host, cfg.ctld_port)
    std_out, std_err, std_in = convert.io_paths(job)
    req = job.request
    return slurmd_pb2.BatchLaunch(
        job_id=job.job_id, uid=job.uid, gid=job.gid, user_name=job.user_name,
        script=req.script, environment=merged_environment(job, env), argv=list(req.argv),
        work_dir=req.work_dir, std_out=std_out, std_err=std_err, std_in=std_in,
        cpus=job.allocation.cpus_per_node[0], memory_mb=job.allocation.memory_mb_per_node[0],
        umask=req.umask, append=req.append_output or job.restarts > 0, kill_wait=cfg.kill_wait, job_name=req.name,
        cpu_ids=list(job.allocation.cpus_on(0)), gpu_indices=list(job.allocation.gpus_on(0)),
        rlimits=list(req.rlimits),
    )


def step_spec(request: ctld_pb2.StepRequest, step_name: str, io_host: str, requeued: bool) -> slurmd_pb2.TaskLaunch:
    """What every node of a step shares, from srun's request. `io_host`: where srun listens;
    `requeued`: the job ran before, so its steps append to their files unless srun says."""
    return slurmd_pb2.TaskLaunch(
        argv=request.argv, environment=request.environment, work_dir=request.work_dir,
        io_host=io_host, io_port=request.io_port, io_key=request.io_key,
        pty=request.pty, pty_rows=request.pty_rows, pty_cols=request.pty_cols, std_out=request.std_out,
        std_err=request.std_err, std_in=request.std_in, input_task=request.input_task,
        rlimits=request.rlimits, umask=request.umask, step_name=step_name,
        kill_on_bad_exit=request.kill_on_bad_exit,
        multi_prog=request.multi_prog, preserve_env=request.preserve_env, bcast_staged=request.bcast_staged,
        append=request.open_mode == "append" or (not request.open_mode and requeued))


def step_part_launches(job: Job, step: Step, spec: slurmd_pb2.TaskLaunch,
                       cfg: SlurmConfig) -> list[tuple[str, slurmd_pb2.TaskLaunch]]:
    """Each node of `step` with its part of the launch (unsigned): `spec` with the node's
    environment, its task ranks by the step's -m distribution, CPUs, GPUs and memory."""
    ranks = node_ranks(step.tasks_per_node, step.distribution)
    parts = []
    for index, node in enumerate(step.nodes):
        message = slurmd_pb2.TaskLaunch()
        message.CopyFrom(spec)
        env = step_options_win(step_environment(job, step, index, cfg.cluster_name, str(cfg.path),
                                                cfg.controller_host, cfg.ctld_port, spec.io_host,
                                                spec.io_port), spec.environment, spec.preserve_env)
        job_index = job.allocation.nodes.index(node) if job.allocation else 0
        del message.environment[:]
        message.environment.extend(overlay_environment(spec.environment, env))
        message.node_index = index
        message.task_ids.extend(ranks[index])
        message.num_tasks = step.num_tasks
        message.cpu_ids.extend(step.cpu_ids[index] if step.cpu_ids else
                               (job.allocation.cpus_on(job_index) if job.allocation else ()))
        message.gpu_indices.extend(job.allocation.gpus_on(job_index) if job.allocation else ())
        message.memory_mb = job.allocation.memory_mb_per_node[job_index] if job.allocation else 0
        message.job_id, message.step_id = job.job_id, step.step_id
        message.uid, message.gid, message.user_name = job.uid, job.gid, job.user_name
        message.kill_wait, message.job_name = cfg.kill_wait, job.request.name
        parts.append((node, message))
    return parts
