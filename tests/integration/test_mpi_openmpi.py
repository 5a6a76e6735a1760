"""Open MPI's mpirun inside an allocation: Debian's openmpi-bin finds the allocation from the SLURM_*
variables (ras/slurm) and starts its orted daemons with srun (plm/slurm: `srun --ntasks-per-node=1
--kill-on-bad-exit --mpi=none [--nodes=N --nodelist=...] --ntasks=N orted ...` with
SLURM_CPU_BIND=none), one per node; the ranks are the orteds' children, so they run in the job's
cgroup, are accounted with the orted step and die with the job.

The test cluster's two nodes share one kernel and one host name, so Open MPI's shared-memory
transport would mix the two orteds' segments: the ranks talk over TCP (`--mca btl self,tcp`), as
on two real machines. Skipped without mpicc.openmpi (CI installs Debian's `openmpi-bin`, .ci/run).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from .conftest import Cluster, running_cluster, two_node_spec, wait_for
from .test_mpi_pmi2 import ALLREDUCE, _ranks, first_step, first_step_cpu_seconds


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """Own cluster: cancelling MPI jobs must not hold the shared cluster's nodes (test_mpi_pmi2)."""
    with running_cluster(two_node_spec) as c:
        yield c

pytestmark = pytest.mark.skipif(shutil.which("mpicc.openmpi") is None,
                                reason="needs Debian's openmpi-bin (mpicc.openmpi)")
MPIRUN = ("mpirun.openmpi", "--mca", "btl", "self,tcp")


@pytest.fixture(scope="module")
def ompi_allreduce(cluster: Cluster) -> str:
    source = cluster.work / "ompi_allreduce.c"
    source.write_text(ALLREDUCE.replace("#include <unistd.h>", "#include <unistd.h>\n#include <stdlib.h>"))
    binary = cluster.work / "ompi_allreduce"
    subprocess.run(["mpicc.openmpi", "-o", str(binary), str(source)], check=True, timeout=120)
    os.chmod(binary, 0o755)
    return str(binary)


def test_mpirun_in_salloc_runs_across_both_nodes(cluster: Cluster, ompi_allreduce: str) -> None:
    result = cluster.run("salloc", "-N2", "-n4", *MPIRUN, "-np", "4", ompi_allreduce, user="alice", timeout=120)
    assert result.returncode == 0, result.stderr
    rows = _ranks(result.stdout)
    assert sorted(rows) == [0, 1, 2, 3]
    assert {(size, total) for size, total, _ in rows.values()} == {(4, 10)}
    assert rows[0][2] == rows[1][2] != rows[2][2] == rows[3][2]   # by slot: two ranks per node
    # Two ranks fill the first node's slots: one orted, started with --nodes=1 --nodelist=<that node>.
    one_node = cluster.run("salloc", "-N2", "-n4", *MPIRUN, "-np", "2", ompi_allreduce, user="alice", timeout=120)
    assert one_node.returncode == 0, one_node.stderr
    assert {(size, total, node) for size, total, node in _ranks(one_node.stdout).values()} == {(2, 3, rows[0][2])}


def test_mpirun_ranks_are_in_the_job_accounted_and_cancelled(cluster: Cluster, ompi_allreduce: str) -> None:
    mpirun = " ".join(MPIRUN)
    script = f"#!/bin/sh\n{mpirun} -np 4 {ompi_allreduce} spin\n{mpirun} -np 4 {ompi_allreduce} 300\n"
    job_id = int(cluster.run("sbatch", "--parsable", "-N2", "-n4", user="bob", input=script, check=True).stdout)
    out = cluster.work_dir("bob") / f"slurm-{job_id}.out"
    wait_for(lambda: out.exists() and out.read_text().count("size=4 sum=10") == 8, timeout=90)

    def rank_pids() -> list[str]:
        return subprocess.run(["pgrep", "-u", "bob", "-x", "ompi_allreduce"], capture_output=True,
                              text=True).stdout.split()

    wait_for(lambda: len(rank_pids()) == 4)
    for pid in rank_pids():
        cgroups = Path(f"/proc/{pid}/cgroup").read_text()
        assert re.search(rf"/job_{job_id}/step_\d+/", cgroups), cgroups   # under an orted step of the job
    cluster.run("scancel", str(job_id), user="bob", check=True)
    cluster.wait_state(job_id, "CANCELLED", timeout=40)
    wait_for(lambda: not rank_pids() and not subprocess.run(["pgrep", "-u", "bob", "orted"],
                                                            capture_output=True).stdout, timeout=20)

    wait_for(lambda: first_step(cluster, job_id, "bob", "JobName,NTasks") == ["orted", "2"], timeout=30)
    assert first_step_cpu_seconds(cluster, job_id, "bob") >= 1.0   # the four ranks' half second of CPU each
