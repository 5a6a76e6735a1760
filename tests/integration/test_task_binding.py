"""Per-task binding by the stepd: --cpu-bind (sched_setaffinity, Slurm's verbose lines),
--gpu-bind / --gpus-per-task / --ntasks-per-gpu (each task's CUDA_VISIBLE_DEVICES), and -m
placing ranks over the namespace-free two-node test cluster. The test nodes have two CPUs each."""
from __future__ import annotations

import re
import socket
from typing import Iterator

import pytest

from .conftest import Cluster, running_cluster
from .test_gpus import _gpu_spec

SHOW_CPUS = "grep Cpus_allowed_list /proc/self/status | cut -f2"
VERBOSE = re.compile(r"cpu-bind-cores=MASK - (\S+), task +(\d+) +(\d+) \[(\d+)\]: mask 0x([0-9a-f]+) set")


def _labelled(stdout: str) -> dict[int, str]:
    return {int(rank): text.strip() for rank, _, text in (line.partition(":") for line in stdout.splitlines())}


def test_cpu_bind_cores_gives_each_task_its_own_cpu(cluster: Cluster) -> None:
    result = cluster.run("srun", "-N1", "-n2", "-l", "--cpu-bind=verbose,cores", "sh", "-c", SHOW_CPUS,
                         user="alice")
    assert result.returncode == 0, result.stderr
    assert _labelled(result.stdout) in ({0: "0", 1: "1"}, {0: "1", 1: "0"})
    lines = [VERBOSE.search(line) for line in result.stderr.splitlines()]
    masks = {int(m[2]): (m[3], m[5]) for m in lines if m}
    assert masks.keys() == {0, 1}, result.stderr
    assert {masks[0], masks[1]} == {("0", "1"), ("1", "2")}   # local ids 0 and 1, masks 0x1 and 0x2
    assert "SLURM_CPU_BIND=verbose,cores" in cluster.run(
        "srun", "-N1", "-n1", "--cpu-bind=v,cores", "env", user="alice").stdout


def test_cpu_bind_map_and_quiet(cluster: Cluster) -> None:
    mapped = cluster.run("srun", "-N1", "-n2", "-l", "--cpu-bind=map_cpu:1,0", "sh", "-c", SHOW_CPUS, user="bob")
    assert mapped.returncode == 0, mapped.stderr
    assert _labelled(mapped.stdout) == {0: "1", 1: "0"}
    assert mapped.stderr == ""                      # quiet unless verbose
    quiet = cluster.run("srun", "-N1", "-n1", "-c2", "--cpu-bind=q", "sh", "-c", SHOW_CPUS, user="bob")
    assert (quiet.returncode, quiet.stdout.strip()) == (0, "0-1"), quiet.stderr   # snakemake's q: no binding
    none = cluster.run("srun", "-N1", "-n1", "-c2", "--cpu-bind=verbose,none", "true", user="bob")
    assert re.search(r"cpu-bind=NONE - node\d, task  0  0 \[\d+\]: mask 0x3$", none.stderr, re.M), none.stderr


def test_cpu_bind_refused_in_slurms_words(cluster: Cluster) -> None:
    bad = cluster.run("srun", "-n1", "--cpu-bind=sideways", "true", user="alice")
    assert bad.returncode == 1
    assert bad.stderr == ('srun: error: unrecognized --cpu-bind argument "sideways"\n'
                          "srun: fatal: Failed to parse --cpu-bind= values.\n")
    outside = cluster.run("srun", "-N1", "-n1", "--cpu-bind=map_cpu:7", "echo", "ran", user="alice")
    assert (outside.returncode, outside.stdout) == (1, ""), outside.stderr   # the launch fails, nothing runs
    assert re.fullmatch(r"srun: error: Task launch for StepId=\d+\.0 failed on node node\d: (.*)\n"
                        r"srun: error: Application launch failed: \1\n", outside.stderr), outside.stderr
    assert re.search(r": Unable to satisfy cpu bind request: CPU binding outside of job step allocation, "
                     r"allocated CPUs are: [12]\.\n", outside.stderr)   # the step's one CPU, as a mask
    cluster.wait_idle()   # the failed launch's job ends and gives its node back


NUMA_POLICY = "grep -m1 -o -E ' (bind|prefer|default)[:0-9]*' /proc/self/numa_maps"


def test_mem_bind_sets_each_tasks_numa_policy(cluster: Cluster) -> None:
    """--mem-bind as Slurm 22.05's task/affinity: the policy is set before exec (the task's own
    numa_maps says bind:0; this machine has NUMA node 0 only), `verbose` prints Slurm's line with
    the host's name, and a node the machine lacks fails that task with the stepd's lines."""
    host = socket.gethostname().split(".")[0]
    bound = cluster.run("srun", "-N1", "-n1", "--mem-bind=verbose,map_mem:0", "sh", "-c",
                        f"{NUMA_POLICY}; env | grep ^SLURM_MEM_BIND= ", user="alice")
    assert bound.returncode == 0, bound.stderr
    assert bound.stdout.split() == ["bind:0", "SLURM_MEM_BIND=verbose,map_mem:0"]
    assert re.fullmatch(rf"mem-bind=MAP - {host}, task  0  0 \[\d+\]: mask 0x1 set\n", bound.stderr), bound.stderr
    preferred = cluster.run("srun", "-N1", "-n1", "--mem-bind=p,local", "sh", "-c", NUMA_POLICY, user="alice")
    assert (preferred.returncode, preferred.stdout.split()) == (0, ["prefer:0"]), preferred.stderr
    unbound = cluster.run("srun", "-N1", "-n1", "--mem-bind=none", "sh", "-c", NUMA_POLICY, user="alice")
    assert (unbound.returncode, unbound.stdout.split()) == (0, ["default"]), unbound.stderr
    missing = cluster.run("srun", "-N1", "-n2", "--mem-bind=map_mem:0,1", "sh", "-c", "echo ran", user="alice")
    assert missing.returncode == 1 and missing.stdout == "ran\n", missing   # task 0 ran, task 1 never did
    node = re.search(r"slurmstepd-(node\d): error", missing.stderr)
    assert node is not None, missing.stderr
    assert [line for line in missing.stderr.splitlines() if "slurmstepd" in line] == [
        f"{node[0][:-7]}: error: NUMA node 1 does not exist; cannot bind local task 1 to it (--mem-bind=map_mem)",
        f"{node[0][:-7]}: error: Failed to invoke task plugins: task_p_pre_launch error"]
    assert f"srun: error: {node[1]}: task 1: Exited with exit code 1" in missing.stderr
    bad = cluster.run("srun", "-n1", "--mem-bind=sideways", "true", user="alice")
    assert (bad.returncode, bad.stderr) == (255, 'srun: error: unrecognized --mem-bind argument "sideways"\n')


def test_sbatch_and_salloc_mem_bind_reach_the_sruns_inside(cluster: Cluster) -> None:
    """As real Slurm 22.05: sbatch/salloc export SLURM_MEM_BIND and SLURM_MEM_BIND_VERBOSE only, and
    an srun inside binds by them (the batch script itself is not bound)."""
    script = f"env | grep ^SLURM_MEM_BIND | sort; srun -n1 sh -c \"{NUMA_POLICY}\""
    job_id = cluster.sbatch("-N1", "-n1", "--mem-bind=v,local", "-o", "mb-%j.out", "--wrap", script, user="alice")
    cluster.wait_state(job_id, "COMPLETED", timeout=30)
    out = (cluster.work_dir("alice") / f"mb-{job_id}.out").read_text().splitlines()
    assert out[:2] == ["SLURM_MEM_BIND=verbose,local", "SLURM_MEM_BIND_VERBOSE=verbose"], out
    assert re.fullmatch(r"mem-bind=LOC - \S+, task  0  0 \[\d+\]: mask 0x1 set", out[2]) and out[3].strip() == "bind:0", out
    inside = cluster.run("salloc", "-Q", "-N1", "--mem-bind=rank", "sh", "-c", "env | grep ^SLURM_MEM_BIND=",
                         user="alice", timeout=60)
    assert inside.stdout == "SLURM_MEM_BIND=quiet,rank\n", inside
    for command in ("sbatch", "salloc"):
        bad = cluster.run(command, "--mem-bind=bogus", "--wrap" if command == "sbatch" else "true",
                          *(["true"] if command == "sbatch" else []), user="alice")
        assert (bad.returncode, bad.stderr) == (255, f'{command}: error: unrecognized --mem-bind argument "bogus"\n')


def test_distribution_places_ranks_over_nodes(cluster: Cluster) -> None:
    probe = ["sh", "-c", "echo $SLURM_PROCID $SLURM_NODEID $SLURM_LOCALID"]
    for flag, expected in (("block", {(0, 0, 0), (1, 0, 1), (2, 1, 0), (3, 1, 1)}),
                           ("cyclic", {(0, 0, 0), (1, 1, 0), (2, 0, 1), (3, 1, 1)}),
                           ("plane=2", {(0, 0, 0), (1, 0, 1), (2, 1, 0), (3, 1, 1)}),
                           ("NoPack", {(0, 0, 0), (1, 0, 1), (2, 1, 0), (3, 1, 1)})):   # alone: the default, block
        result = cluster.run("srun", "-N2", "-n4", f"--distribution={flag}", *probe, user="alice")
        assert result.returncode == 0, result.stderr
        assert {tuple(int(x) for x in line.split()) for line in result.stdout.splitlines()} == expected, flag


@pytest.fixture(scope="module")
def gpu_cluster() -> Iterator[Cluster]:
    with running_cluster(_gpu_spec) as c:
        yield c


def _visible(cluster: Cluster, *args: str) -> dict[int, str]:
    result = cluster.run("srun", "-N1", "-l", *args, "sh", "-c", "echo $CUDA_VISIBLE_DEVICES", user="alice")
    assert result.returncode == 0, result.stderr
    return _labelled(result.stdout)


def test_gpu_binding_per_task(gpu_cluster: Cluster) -> None:
    assert _visible(gpu_cluster, "-n2", "--gres=gpu:4") == {0: "0,1,2,3", 1: "0,1,2,3"}   # unbound
    assert _visible(gpu_cluster, "-n2", "--gpus-per-task=2") == {0: "0,1", 1: "2,3"}       # per_task:2
    # One process per GPU (DDP without torchrun): each task's CUDA_VISIBLE_DEVICES names its own GPU only.
    assert _visible(gpu_cluster, "--ntasks-per-node=2", "--gpus-per-task=1") == {0: "0", 1: "1"}
    assert _visible(gpu_cluster, "-n2", "--gres=gpu:4", "--gpu-bind=map_gpu:3,1") == {0: "3", 1: "1"}
    assert _visible(gpu_cluster, "-n2", "--gres=gpu:4", "--gpu-bind=mask_gpu:0x3,0xc") == {0: "0,1", 1: "2,3"}
    assert _visible(gpu_cluster, "-n2", "--gres=gpu:2", "--gpu-bind=single:1") == {0: "0", 1: "1"}
    assert _visible(gpu_cluster, "-n2", "--ntasks-per-gpu=1") == {0: "0", 1: "1"}          # single:1
    assert _visible(gpu_cluster, "--gpus=2", "--ntasks-per-gpu=1") == {0: "0", 1: "1"}     # no -n: GPUs x 1 tasks
    assert _visible(gpu_cluster, "-n2", "--gres=gpu:4", "--gpu-bind=none") == {0: "0,1,2,3", 1: "0,1,2,3"}
    first, second = _step_gpus(gpu_cluster)
    verbose = gpu_cluster.run("srun", "-N1", "-n2", "--gres=gpu:2", "--gpu-bind=verbose,single:1", "true",
                              user="alice")
    assert sorted(line for line in verbose.stderr.splitlines() if line.startswith("gpu-bind:")) == [
        f"gpu-bind: usable_gres=0x1; bit_alloc=0x3; local_inx=2; global_list={first}; local_list=0",
        f"gpu-bind: usable_gres=0x2; bit_alloc=0x3; local_inx=2; global_list={second}; local_list=1",
    ], verbose.stderr
    bad = gpu_cluster.run("srun", "-n1", "--gpu-bind=sideways", "true", user="alice")
    assert (bad.returncode, bad.stderr) == (1, "srun: error: Invalid --gpu-bind argument: gpu:sideways\n")


def test_accel_bind_g_binds_to_the_closest_gpus(gpu_cluster: Cluster) -> None:
    """--accel-bind=g: each task gets the GPUs closest to its CPUs (every GPU here: gres.conf names
    no Cores=), and it wins over --gpu-bind as in Slurm; v adds the verbose lines."""
    assert _visible(gpu_cluster, "-n2", "--gres=gpu:4", "--gpu-bind=map_gpu:3,1", "--accel-bind=g") == {
        0: "0,1,2,3", 1: "0,1,2,3"}
    assert _visible(gpu_cluster, "-n2", "--gres=gpu:4", "--gpu-bind=map_gpu:3,1", "--accel-bind=n") == {
        0: "3", 1: "1"}   # no NIC gres: n binds nothing, as in Slurm
    verbose = gpu_cluster.run("srun", "-N1", "-n2", "--gres=gpu:2", "--accel-bind=vg", "true", user="alice")
    assert len([line for line in verbose.stderr.splitlines() if line.startswith("gpu-bind:")]) == 2, verbose.stderr
    bad = gpu_cluster.run("srun", "-n1", "--accel-bind=x", "true", user="alice")
    assert (bad.returncode, bad.stderr) == (255, "srun: error: Invalid --accel-bind specification\n")


def _step_gpus(cluster: Cluster) -> tuple[str, str]:
    """The global indexes a two-GPU step gets on the idle GPU node (the lowest free ones)."""
    out = cluster.run("srun", "-N1", "-n1", "--gres=gpu:2", "sh", "-c", "echo $SLURM_STEP_GPUS", user="alice")
    first, second = out.stdout.strip().split(",")
    return first, second


# What PyTorch Lightning's SLURMEnvironment, submitit and torchrun wrappers read from a task
# (world size, ranks, node rank, node list, tasks per node); MASTER_ADDR and friends are theirs.
LAUNCH_VARIABLES = ("SLURM_NTASKS", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURM_NNODES",
                    "SLURM_JOB_NUM_NODES", "SLURM_STEP_NODELIST", "SLURM_NODELIST", "SLURM_NTASKS_PER_NODE",
                    "SLURM_STEP_NUM_TASKS", "SLURM_CPUS_PER_TASK", "MASTER_ADDR", "RANK", "WORLD_SIZE")
PRINT_LAUNCH = "; ".join(f'echo "{name}=${{{name}-unset}}"' for name in LAUNCH_VARIABLES)


def _launch_variables(stdout: str) -> dict[int, dict[str, str]]:
    out: dict[int, dict[str, str]] = {}
    for line in stdout.splitlines():
        rank, _, pair = line.partition(": ")
        name, _, value = pair.partition("=")
        out.setdefault(int(rank), {})[name] = value
    return out


def test_torchrun_style_launches_get_the_variables_frameworks_read(cluster: Cluster) -> None:
    # One launcher per node (srun --ntasks-per-node=1 torchrun ...) inside a two-node allocation.
    result = cluster.run("salloc", "-N2", "srun", "-l", "--ntasks-per-node=1", "sh", "-c", PRINT_LAUNCH,
                         user="alice", timeout=120)
    assert result.returncode == 0, result.stderr
    common = {"SLURM_NTASKS": "2", "SLURM_LOCALID": "0", "SLURM_NNODES": "2", "SLURM_JOB_NUM_NODES": "2",
              "SLURM_STEP_NODELIST": "node[1-2]", "SLURM_NODELIST": "node[1-2]", "SLURM_NTASKS_PER_NODE": "1",
              "SLURM_STEP_NUM_TASKS": "2", "SLURM_CPUS_PER_TASK": "unset", "MASTER_ADDR": "unset",
              "RANK": "unset", "WORLD_SIZE": "unset"}
    assert _launch_variables(result.stdout) == {
        rank: {**common, "SLURM_PROCID": str(rank), "SLURM_NODEID": str(rank)} for rank in (0, 1)}
    # One process per CPU (or GPU) on each node, as Lightning's `srun python train.py` under
    # --ntasks-per-node: ranks, local ranks and node ranks as Slurm numbers them.
    result = cluster.run("srun", "-l", "-N2", "--ntasks-per-node=2", "-c1", "sh", "-c", PRINT_LAUNCH,
                         user="alice")
    assert result.returncode == 0, result.stderr
    seen = _launch_variables(result.stdout)
    assert {rank: (v["SLURM_PROCID"], v["SLURM_LOCALID"], v["SLURM_NODEID"]) for rank, v in seen.items()} == {
        0: ("0", "0", "0"), 1: ("1", "1", "0"), 2: ("2", "0", "1"), 3: ("3", "1", "1")}
    assert {(v["SLURM_NTASKS"], v["SLURM_NTASKS_PER_NODE"], v["SLURM_CPUS_PER_TASK"], v["MASTER_ADDR"])
            for v in seen.values()} == {("4", "2", "1", "unset")}
