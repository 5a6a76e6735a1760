"""dask-jobqueue (PyPI) as the ordinary user alice: SLURMCluster submits one batch job per worker
(`sbatch` of its generated script with `#SBATCH -J/-e/-o/-p/-n 1/--cpus-per-task/--mem/-t`, the job
id taken from sbatch's answer), the workers reach the scheduler on loopback, and scaling down
cancels their jobs (`scancel <id>`)."""
from __future__ import annotations

import textwrap
from typing import Iterator

import pytest

from .conftest import BIN, Cluster, running_cluster, two_node_spec, wait_for

pytest.importorskip("dask_jobqueue")
pytestmark = pytest.mark.real_client

PROGRAM = textwrap.dedent("""\
    import os, sys, time
    from dask.distributed import Client
    from dask_jobqueue import SLURMCluster

    cluster = SLURMCluster(cores=1, processes=1, memory="400MB", walltime="00:05:00", queue="debug",
                           interface="lo", log_directory="dask-logs", python=sys.executable,
                           job_extra_directives=["--wckey=dask"])
    print("script", "#SBATCH --mem=" in cluster.job_script())
    cluster.scale(2)
    client = Client(cluster)
    client.wait_for_workers(2, timeout=90)
    total = client.submit(sum, range(101)).result()
    print("sum", total)
    jobs = sorted(client.run(lambda: os.environ["SLURM_JOB_ID"]).values())
    print("jobs", " ".join(jobs))
    sys.stdout.flush()
    cluster.scale(0)
    deadline = time.monotonic() + 60
    while client.scheduler_info()["workers"] and time.monotonic() < deadline:
        time.sleep(0.5)
    print("workers_left", len(client.scheduler_info()["workers"]))
    client.close()
    cluster.close()
    """)


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[Cluster]:
    with running_cluster(two_node_spec) as c:
        yield c


def test_scale_up_compute_and_scale_down(dask_cluster: Cluster) -> None:
    c = dask_cluster
    result = c.run(str(BIN / "python"), "-c", PROGRAM, user="alice", timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    out = dict(line.split(" ", 1) for line in result.stdout.splitlines() if " " in line)
    assert out["script"] == "True"
    assert out["sum"] == "5050"
    assert out["workers_left"] == "0"
    jobs = out["jobs"].split()
    assert len(jobs) == 2
    for job in jobs:   # both worker jobs ran as alice and were cancelled by the scale-down
        assert c.run("squeue", "-h", "-t", "all", "-j", job, "-o", "%u %j").stdout.split() == ["alice", "dask-worker"]
    wait_for(lambda: all(c.job_field(int(job), "T") == "CANCELLED" for job in jobs), 30)
