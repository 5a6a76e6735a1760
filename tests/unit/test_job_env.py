"""The batch script's SLURM_* environment (pyslurm_ctld/translate/job_env.py), spec cli-sbatch-srun-salloc.md §2.7."""
from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from pyslurm_ctld.model.job import Allocation, Job, JobId, JobState
from pyslurm_ctld.translate.job_env import batch_environment, compress_counts, merged_environment
from tests.builders import job_request

REQUEST = job_request(name="wrap", partition="debug", account="root", qos="normal", time_limit_min=60,
                      work_dir="/root/work", script="#!/bin/sh\nenv\n", environment=("PATH=/usr/bin", "HOME=/root"),
                      submit_host="vm")


def running_job(allocation: Allocation = Allocation(("localhost",), (1,), (1024,)), job_id: int = 666,
                uid: int = 0, user: str = "root", restarts: int = 0, **request: Any) -> Job:
    return Job(job_id=JobId(job_id), request=dataclasses.replace(REQUEST, **request), uid=uid, gid=uid,
               user_name=user, group_name=user, submit_time=1, state=JobState.RUNNING, start_time=2,
               allocation=allocation, restarts=restarts)


def env_of(job: Job) -> dict[str, str]:
    return batch_environment(job, "anchor", "/etc/pyslurm/slurm.conf", "localhost", 16817)


@pytest.mark.parametrize(("counts", "text"), [
    ((2, 2, 2, 1), "2(x3),1"), ((1,), "1"), ((72, 72, 36), "72(x2),36"), ((1, 2, 1), "1,2,1"),
    ((4, 4), "4(x2)"), ((3, 1, 1, 3), "3,1(x2),3")])
def test_compress_counts(counts: tuple[int, ...], text: str) -> None:
    assert compress_counts(counts) == text


def test_the_verified_22_05_wrap_job_environment() -> None:
    # sbatch --wrap on the anchor: 1 CPU, DefMemPerCPU=1024, no -n (spec §2.7, [V22]).
    # SLURMD_NODENAME and SLURM_TASK_PID come from the node agent, not from here; SLURM_UMASK is
    # not there either: the batch step gets the submit umask with its launch, and Slurm's stepd
    # takes the variable out of the batch script's environment.
    env = env_of(running_job())
    assert env.pop("PYSLURM_CONF") == env["SLURM_CONF"]   # ours: survives tools that strip SLURM_*
    assert env == {
        "SLURM_CLUSTER_NAME": "anchor", "SLURM_CONF": "/etc/pyslurm/slurm.conf", "SLURM_CPUS_ON_NODE": "1",
        "SLURM_GTIDS": "0", "SLURM_JOBID": "666", "SLURM_JOB_ACCOUNT": "root", "SLURM_JOB_CPUS_PER_NODE": "1",
        "SLURM_JOB_GID": "0", "SLURM_JOB_ID": "666", "SLURM_JOB_NAME": "wrap", "SLURM_JOB_NODELIST": "localhost",
        "SLURM_JOB_NUM_NODES": "1", "SLURM_JOB_PARTITION": "debug", "SLURM_JOB_QOS": "normal",
        "SLURM_JOB_UID": "0", "SLURM_JOB_USER": "root", "SLURM_LOCALID": "0", "SLURM_MEM_PER_CPU": "1024",
        "SLURM_NNODES": "1", "SLURM_NODEID": "0", "SLURM_NODELIST": "localhost", "SLURM_PRIO_PROCESS": "0",
        "SLURM_NODE_ALIASES": "(null)",
        "SLURM_PROCID": "0", "SLURM_SUBMIT_DIR": "/root/work", "SLURM_SUBMIT_HOST": "vm",
        "SLURM_TASKS_PER_NODE": "1", "SLURM_TOPOLOGY_ADDR": "localhost", "SLURM_TOPOLOGY_ADDR_PATTERN": "node",
        "SLURM_WORKING_CLUSTER": "anchor:localhost:16817:9728:109",
        "ENVIRONMENT": "BATCH", "HOSTNAME": "localhost",
    }


def test_node_aliases_as_in_22_05() -> None:
    assert env_of(running_job())["SLURM_NODE_ALIASES"] == "(null)"


def test_ntasks_and_cpus_per_task_only_when_given() -> None:
    plain = env_of(running_job())
    assert not {"SLURM_NTASKS", "SLURM_NPROCS", "SLURM_CPUS_PER_TASK"} & set(plain)
    given = env_of(running_job(Allocation(("n1",), (8,), (0,)), num_tasks=4, ntasks_given=True, cpus_per_task=2,
                               cpus_per_task_given=True))
    assert (given["SLURM_NTASKS"], given["SLURM_NPROCS"], given["SLURM_CPUS_PER_TASK"]) == ("4", "4", "2")
    assert given["SLURM_TASKS_PER_NODE"] == "4"
    assert given["SLURM_CPUS_ON_NODE"] == "8"


def test_multi_node_job() -> None:
    alloc = Allocation(("n1", "n2", "n3", "n5"), (2, 2, 2, 1), (0, 0, 0, 0))
    env = env_of(running_job(alloc, num_tasks=7, ntasks_given=True, min_nodes=4))
    assert (env["SLURM_JOB_NODELIST"], env["SLURM_NODELIST"]) == ("n[1-3,5]", "n[1-3,5]")
    assert (env["SLURM_JOB_NUM_NODES"], env["SLURM_NNODES"]) == ("4", "4")
    assert env["SLURM_JOB_CPUS_PER_NODE"] == "2(x3),1"
    assert env["SLURM_TASKS_PER_NODE"] == "2(x3),1"       # 7 tasks over 4 nodes, the first ones get more
    assert (env["SLURM_CPUS_ON_NODE"], env["SLURM_TOPOLOGY_ADDR"], env["HOSTNAME"]) == ("2", "n1", "n1")
    assert "SLURM_MEM_PER_CPU" not in env and "SLURM_MEM_PER_NODE" not in env   # memory not tracked


def test_one_task_per_node_without_ntasks() -> None:
    env = env_of(running_job(Allocation(("a", "b"), (1, 1), (0, 0)), min_nodes=2))
    assert env["SLURM_TASKS_PER_NODE"] == "1(x2)"


def test_memory_variables() -> None:
    per_cpu = env_of(running_job(Allocation(("n1",), (4,), (2000,)), mem_per_cpu_mb=500))
    assert per_cpu["SLURM_MEM_PER_CPU"] == "500" and "SLURM_MEM_PER_NODE" not in per_cpu
    per_node = env_of(running_job(Allocation(("n1",), (4,), (3000,)), mem_per_node_mb=3000))
    assert per_node["SLURM_MEM_PER_NODE"] == "3000" and "SLURM_MEM_PER_CPU" not in per_node
    default = env_of(running_job(Allocation(("n1",), (4,), (4096,))))    # DefMemPerCPU=1024 applied
    assert default["SLURM_MEM_PER_CPU"] == "1024"


def test_optional_variables() -> None:
    env = env_of(running_job(account="", qos="", export_env="NONE,FOO=1", restarts=2, nice=5, umask=0o077,
                             uid=1000, user="alice"))
    assert "SLURM_JOB_ACCOUNT" not in env and "SLURM_JOB_QOS" not in env
    assert (env["SLURM_EXPORT_ENV"], env["SLURM_RESTART_COUNT"]) == ("NONE,FOO=1", "2")
    assert env["SLURM_PRIO_PROCESS"] == "5" and "SLURM_UMASK" not in env
    assert (env["SLURM_JOB_UID"], env["SLURM_JOB_USER"], env["SLURM_JOB_GID"]) == ("1000", "alice", "1000")
    plain = env_of(running_job())
    assert "SLURM_EXPORT_ENV" not in plain and "SLURM_RESTART_COUNT" not in plain
    # sbatch --export=ALL (the snakemake plugin's) sets no SLURM_EXPORT_ENV, as real sbatch 22.05
    assert "SLURM_EXPORT_ENV" not in env_of(running_job(export_env="ALL"))


def test_merged_environment_puts_slurm_values_over_the_submit_environment() -> None:
    job = running_job(environment=("PATH=/usr/bin", "SLURM_JOB_ID=1", "BROKEN", "EMPTY=", "X=a=b"))
    merged = merged_environment(job, env_of(job))
    assert merged.count("SLURM_JOB_ID=666") == 1 and "SLURM_JOB_ID=1" not in merged
    assert {"PATH=/usr/bin", "EMPTY=", "X=a=b", "ENVIRONMENT=BATCH"} <= set(merged)
    assert not [item for item in merged if item.startswith("BROKEN")]
    assert len(merged) == len({item.partition("=")[0] for item in merged})


# ---- GPUs (daemons-and-cgroups.md §6) ------------------------------------------------------------

GPU_VARIABLES = {"SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "SLURM_GPUS_ON_NODE",
                 "SLURM_GPUS", "SLURM_GPUS_PER_NODE", "SLURM_GPUS_PER_TASK", "SLURM_STEP_GPUS"}


def gpu_job(gpu_ids: tuple[tuple[int, ...], ...], **request: Any) -> Job:
    nodes = tuple(f"g{i}" for i in range(1, len(gpu_ids) + 1))
    alloc = Allocation(nodes, (2,) * len(nodes), (0,) * len(nodes),
                       cpu_ids=((0, 1),) * len(nodes), gpu_ids=gpu_ids)
    return running_job(alloc, min_nodes=len(nodes), gpus_per_node=len(gpu_ids[0]), **request)


def test_gpu_job_sees_global_indices_in_slurm_job_gpus_and_local_ones_in_cuda() -> None:
    # The spec's example: a 4-GPU node, the job got GPUs 1 and 3, devices constrained.
    env = env_of(gpu_job(((1, 3),)))                                   # --gres=gpu:2
    assert {k: v for k, v in env.items() if k in GPU_VARIABLES} == {
        "SLURM_JOB_GPUS": "1,3", "CUDA_VISIBLE_DEVICES": "0,1", "GPU_DEVICE_ORDINAL": "0,1",
        "SLURM_GPUS_ON_NODE": "2"}


def test_gpu_variables_describe_the_batch_host() -> None:
    env = env_of(gpu_job(((2,), (0,))))
    assert (env["SLURM_JOB_GPUS"], env["CUDA_VISIBLE_DEVICES"], env["SLURM_GPUS_ON_NODE"]) == ("2", "0", "1")


@pytest.mark.parametrize(("request_", "echo"), [
    ({"gpus": 2}, {"SLURM_GPUS": "2"}),
    ({"gpus": 2, "gpu_type": "a100"}, {"SLURM_GPUS": "a100:2"}),
    ({"gpus_per_node_given": True}, {"SLURM_GPUS_PER_NODE": "2"}),
    ({"gpus_per_node_given": True, "gpu_type": "v100"}, {"SLURM_GPUS_PER_NODE": "v100:2"}),
    ({"gpus_per_task": 1, "num_tasks": 2, "ntasks_given": True}, {"SLURM_GPUS_PER_TASK": "1"}),
    ({"gpu_type": "a100"}, {}),                                        # --gres=gpu:a100:2 echoes nothing
])
def test_gpu_options_are_echoed_only_when_used(request_: dict[str, Any], echo: dict[str, str]) -> None:
    env = env_of(gpu_job(((0, 1),), **request_))
    echoes = {"SLURM_GPUS", "SLURM_GPUS_PER_NODE", "SLURM_GPUS_PER_TASK"}
    assert {k: v for k, v in env.items() if k in echoes} == echo


def test_a_job_without_gpus_gets_no_gpu_variables_even_from_the_submit_environment() -> None:
    # e.g. sbatch run inside a GPU job: the outer job's GPUs must not leak into this one.
    submitted = ("CUDA_VISIBLE_DEVICES=0", "SLURM_JOB_GPUS=3", "SLURM_GPUS_PER_NODE=1", "GPU_DEVICE_ORDINAL=0",
                 "PATH=/usr/bin")
    job = running_job(environment=submitted)
    assert not GPU_VARIABLES & set(env_of(job))
    merged = merged_environment(job, env_of(job))
    assert not [item for item in merged if item.partition("=")[0] in GPU_VARIABLES]
    assert "PATH=/usr/bin" in merged
    gpu = gpu_job(((3,),), environment=submitted)
    merged = merged_environment(gpu, env_of(gpu))
    assert {"SLURM_JOB_GPUS=3", "CUDA_VISIBLE_DEVICES=0"} <= set(merged)
    assert not [item for item in merged if item.startswith("SLURM_GPUS_PER_NODE=")]


def test_layout_and_per_gpu_options_are_echoed_as_on_the_anchor() -> None:
    # The anchor's batch environment of `sbatch -n2 --ntasks-per-node=2 --ntasks-per-core=1
    # --ntasks-per-socket=2 --threads-per-core=1 -m cyclic -O` (real Slurm 22.05.8).
    env = env_of(running_job(num_tasks=2, ntasks_given=True, ntasks_per_node=2, ntasks_per_core=1,
                             ntasks_per_socket=2, threads_per_core=1, distribution="cyclic", overcommit=True,
                             cpus_per_gpu=4, mem_per_gpu_mb=2048))
    assert {k: v for k, v in env.items() if k in (
        "SLURM_NTASKS_PER_NODE", "SLURM_NTASKS_PER_CORE", "SLURM_NTASKS_PER_SOCKET", "SLURM_THREADS_PER_CORE",
        "SLURM_DISTRIBUTION", "SLURM_OVERCOMMIT", "SLURM_CPUS_PER_GPU", "SLURM_MEM_PER_GPU")} == {
        "SLURM_NTASKS_PER_NODE": "2", "SLURM_NTASKS_PER_CORE": "1", "SLURM_NTASKS_PER_SOCKET": "2",
        "SLURM_THREADS_PER_CORE": "1", "SLURM_DISTRIBUTION": "cyclic", "SLURM_OVERCOMMIT": "1",
        "SLURM_CPUS_PER_GPU": "4", "SLURM_MEM_PER_GPU": "2048"}
    assert not any(k in env_of(running_job()) for k in ("SLURM_NTASKS_PER_NODE", "SLURM_DISTRIBUTION"))


@pytest.mark.parametrize(("export", "has_alias"), [("", True), ("ALL", True), ("ALL,X=1", True),
                                                    ("NONE", False), ("HOME", False), ("HOME,X=1", False)])
def test_pyslurm_conf_only_for_jobs_that_take_the_submit_environment(export: str, has_alias: bool) -> None:
    assert ("PYSLURM_CONF" in env_of(running_job(export_env=export))) is has_alias


def test_salloc_and_the_batch_script_see_the_same_allocation_variables() -> None:
    # One builder (pyslurm_common/job_environment.py): salloc's command, from the job as squeue
    # reports it, gets exactly the batch script's values for every variable it has.
    from cli.allocation_env import allocation_environment
    from pyslurm_ctld.translate import convert

    job = running_job(Allocation(("n1", "n2"), (2, 1), (1024, 512)), num_tasks=3, ntasks_given=True,
                      cpus_per_task=1, cpus_per_task_given=True, mem_per_cpu_mb=256)
    salloc = allocation_environment(convert.job_info(job), "anchor", "/etc/pyslurm/slurm.conf")
    batch = env_of(job)
    assert salloc == {name: batch[name] for name in salloc}
    assert {"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_TASKS_PER_NODE", "SLURM_NTASKS", "SLURM_CPUS_PER_TASK",
            "SLURM_MEM_PER_CPU", "SLURM_JOB_ACCOUNT", "SLURM_JOB_QOS", "SLURM_CONF"} <= salloc.keys()


def test_preserve_env_keeps_sruns_counts_only_where_srun_has_them() -> None:
    from pyslurm_ctld.translate.job_env import step_options_win

    step = {"SLURM_NTASKS": "1", "SLURM_NNODES": "1", "SLURM_STEP_NUM_TASKS": "1", "SLURM_NPROCS": "1"}
    srun_env = ["SLURM_NTASKS=4", "SLURM_NNODES=2", "SLURM_STEP_NUM_TASKS=9"]
    assert step_options_win(step, srun_env) == step
    assert step_options_win(step, srun_env, preserve_env=True) == {"SLURM_STEP_NUM_TASKS": "1", "SLURM_NPROCS": "1"}
