"""GPUs on a node: gres.conf devices, allocation by index, environment, device isolation.

No real GPU is needed: the node's "GPUs" are character devices with NVIDIA's major number
(195) made with mknod in a temporary directory and listed in gres.conf, exactly as a lab
would list /dev/nvidia[0-3].
"""
from __future__ import annotations

import dataclasses
import os
import re
import stat
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec

from .conftest import Cluster, running_cluster, two_node_spec, wait_for

GPUS = 4


def _gpu_spec(root: Path, name: str) -> ClusterSpec:
    dev = root / "dev"
    dev.mkdir(parents=True)
    os.chmod(root, 0o755)
    os.chmod(dev, 0o755)
    for index in range(GPUS):
        os.mknod(dev / f"nvidia{index}", stat.S_IFCHR | 0o666, os.makedev(195, index))
        os.chmod(dev / f"nvidia{index}", 0o666)  # mknod honours the umask; real /dev/nvidia* are 0666
    base = two_node_spec(root, name)
    gpu_node = dataclasses.replace(base.nodes[0], name="gpu1", gres=f"gpu:{GPUS}")
    return dataclasses.replace(base, nodes=(gpu_node,),
                               gres_conf=f"NodeName=gpu1 Name=gpu File={dev}/nvidia[0-{GPUS - 1}]\n")


@pytest.fixture(scope="module")
def gpu_cluster() -> Iterator[Cluster]:
    with running_cluster(_gpu_spec) as c:
        yield c


PROBE = r"""#!/bin/bash
echo "JOB_GPUS=$SLURM_JOB_GPUS CUDA=$CUDA_VISIBLE_DEVICES ON_NODE=$SLURM_GPUS_ON_NODE"
for i in 0 1 2 3; do
  /usr/bin/python3 - "$i" <<'PY'
import errno, os, sys
path = os.path.join(os.environ["DEVDIR"], "nvidia" + sys.argv[1])
try:
    os.close(os.open(path, os.O_RDWR))
    print(sys.argv[1], "open")
except OSError as exc:
    print(sys.argv[1], errno.errorcode[exc.errno])
PY
done
sleep 2
"""


def test_gpus_are_allocated_by_index_and_isolated(gpu_cluster: Cluster) -> None:
    dev = gpu_cluster.spec.conf_dir.parent / "dev"
    submit = ["env", f"DEVDIR={dev}", "sbatch", "--parsable", "--gres=gpu:2"]
    first = int(gpu_cluster.run(*submit, user="alice", input=PROBE, check=True).stdout)
    second = int(gpu_cluster.run(*submit, user="bob", input=PROBE, check=True).stdout)
    gpu_cluster.wait_state(first, "RUNNING")
    gpu_cluster.wait_state(second, "RUNNING")
    assert gpu_cluster.job_field(first, "b") == "gres:gpu:2"
    node = gpu_cluster.run("scontrol", "show", "node", "gpu1").stdout
    assert "Gres=gpu:4" in node and re.search(r"GresUsed=gpu:4\(IDX:0-3\)", node), node
    gpu_cluster.wait_state(first, "COMPLETED")
    gpu_cluster.wait_state(second, "COMPLETED")
    seen = []
    for job_id, user in ((first, "alice"), (second, "bob")):
        lines = (gpu_cluster.work_dir(user) / f"slurm-{job_id}.out").read_text().splitlines()
        match = re.fullmatch(r"JOB_GPUS=(\d),(\d) CUDA=0,1 ON_NODE=2", lines[0])
        assert match, lines[0]
        mine = {int(match.group(1)), int(match.group(2))}
        seen.append(mine)
        results = dict(line.split() for line in lines[1:])
        for index in range(GPUS):
            # An allocated device passes the cgroup check (no driver behind it: ENXIO);
            # one allocated to someone else is refused by the cgroup (EPERM).
            assert results[str(index)] == ("ENXIO" if index in mine else "EPERM"), (index, results)
    assert seen[0].isdisjoint(seen[1])


def test_more_gpus_than_any_node_has_are_refused(gpu_cluster: Cluster) -> None:
    result = gpu_cluster.run("sbatch", "--gres=gpu:5", "--wrap", "true", user="alice")
    assert result.returncode == 1
    assert result.stderr.endswith(
        "sbatch: error: Batch job submission failed: Invalid generic resource (gres) specification\n")


def test_jobs_without_gpus_get_no_gpu_variables(gpu_cluster: Cluster) -> None:
    job_id = gpu_cluster.sbatch("--wrap", "env | grep -c -E '^(CUDA_VISIBLE_DEVICES|SLURM_JOB_GPUS)=' || true",
                                user="alice")
    gpu_cluster.wait_state(job_id, "COMPLETED")
    assert (gpu_cluster.work_dir("alice") / f"slurm-{job_id}.out").read_text() == "0\n"


def test_autodetected_gpus_without_gres_conf(tmp_path_factory: pytest.TempPathFactory) -> None:
    dev = tmp_path_factory.mktemp("dev")
    for index in range(2):
        os.mknod(dev / f"nvidia{index}", stat.S_IFCHR | 0o666, os.makedev(195, index))
    os.mknod(dev / "nvidiactl", stat.S_IFCHR | 0o666, os.makedev(195, 255))  # not a GPU

    def spec(root: Path, name: str) -> ClusterSpec:
        base = two_node_spec(root, name)
        return dataclasses.replace(base, nodes=(dataclasses.replace(base.nodes[0], name="auto1", gres="gpu:2"),))

    with running_cluster(spec, node_args={"auto1": ("--dev-root", str(dev))}) as c:
        job_id = c.sbatch("--gpus=1", "--wrap", "echo $CUDA_VISIBLE_DEVICES $SLURM_JOB_GPUS $SLURM_GPUS", user="bob")
        c.wait_state(job_id, "COMPLETED")
        assert (c.work_dir("bob") / f"slurm-{job_id}.out").read_text() == "0 0 1\n"


def test_a_node_with_fewer_gpus_than_configured_goes_down(tmp_path_factory: pytest.TempPathFactory) -> None:
    dev = tmp_path_factory.mktemp("dev1")
    os.mknod(dev / "nvidia0", stat.S_IFCHR | 0o666, os.makedev(195, 0))

    def spec(root: Path, name: str) -> ClusterSpec:
        base = two_node_spec(root, name)
        return dataclasses.replace(base, nodes=(dataclasses.replace(base.nodes[0], name="short1", gres="gpu:2"),))

    with running_cluster(spec, node_args={"short1": ("--dev-root", str(dev)),}, wait_idle=False) as c:
        def reason() -> str:
            out = c.run("scontrol", "show", "node", "short1").stdout
            return next((line.strip() for line in out.splitlines() if line.strip().startswith("Reason=")), "")

        wait_for(lambda: reason().startswith("Reason=gres/gpu count reported lower than configured (1 < 2)"))
        assert "short1 down" in c.run("sinfo", "-h", "-N", "-o", "%N %t").stdout
