"""Refusals of job, node and partition requests in real Slurm 22.05's words, stream and exit status
(tests/data/slurm_job_errors/refusals.json, recorded by record.py beside it): each recorded command
runs again through pyslurm's CLIs, as root or as alice, on jobs in the same states."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import Cluster, wait_for

RECORDS = json.loads((Path(__file__).resolve().parents[1] / "data/slurm_job_errors/refusals.json").read_text())
# Recorded, not yet as Slurm in pyslurm (strict: each one that starts to agree must leave this list).
NOT_YET = {
    "update_unknown_node": "Slurm says 'Invalid node state specified' to RESUME of an unknown node",
}


@pytest.fixture(scope="module")
def jobs(cluster: Cluster) -> Iterator[dict[str, str]]:
    held = cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "sleep 60")
    mine = cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "sleep 60", user="alice")
    done = cluster.sbatch("-o", "/dev/null", "--wrap", "true", user="alice")
    cluster.wait_state(done, "COMPLETED")
    running = cluster.sbatch("-o", "/dev/null", "--wrap", "srun sleep 120")
    wait_for(lambda: f"{running}.0" in cluster.run("squeue", "-h", "-s", "-j", str(running), "-o", "%i").stdout.split(),
             60)   # as record.py asks real Slurm
    yield {"held": str(held), "mine": str(mine), "done": str(done), "running": str(running)}
    cluster.run("scancel", str(held), str(mine), str(done), str(running))   # requeue_finished requeues done


@pytest.mark.parametrize("record", [pytest.param(r, marks=pytest.mark.xfail(reason=NOT_YET[r["name"]], strict=True))
                                    if r["name"] in NOT_YET else r for r in RECORDS], ids=[r["name"] for r in RECORDS])
def test_refusal_as_real_slurm_words_it(cluster: Cluster, jobs: dict[str, str], record: dict[str, object]) -> None:
    names = {"node": cluster.spec.nodes[0].name, "partition": "debug"}
    command = str(record["command"]).format(**jobs, **names).split()
    done = cluster.run(*command, user="alice" if record["actor"] == "user" else None)
    want = {key: str(record[key]).format(**jobs, **names) for key in ("stdout", "stderr")}
    assert (done.returncode, done.stdout, done.stderr) == (record["exit"], want["stdout"], want["stderr"]), command
