"""sacct --json and -D against the real accounting daemon, for a job that really ran."""
from __future__ import annotations

import json

from .conftest import Cluster, wait_for


def test_sacct_json_describes_a_finished_job_and_its_batch_step(cluster: Cluster) -> None:
    job_id = cluster.sbatch("-J", "jsonjob", "--wrap", "exit 4", user="bob")
    wait_for(lambda: "FAILED" in cluster.run("sacct", "-n", "-X", "-P", "-j", str(job_id), "-o", "State",
                                             user="bob").stdout)
    result = cluster.run("sacct", "--json", "-j", str(job_id), user="bob")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["errors"] == []
    (job,) = doc["jobs"]
    assert (job["job_id"], job["name"], job["user"], job["cluster"]) == (
        job_id, "jsonjob", "bob", cluster.spec.cluster_name)
    assert job["state"]["current"] == "FAILED"
    assert job["exit_code"] == {"status": "FAILED", "return_code": 4}
    assert job["time"]["start"] >= job["time"]["submission"] > 0
    assert job["time"]["end"] >= job["time"]["start"]
    assert [s["step"]["id"] for s in job["steps"]] == [f"{job_id}.batch"]
    assert job["steps"][0]["exit_code"] == {"status": "FAILED", "return_code": 4}
    duplicates = cluster.run("sacct", "-D", "-n", "-X", "-P", "-j", str(job_id), "-o", "JobID,State", user="bob")
    assert duplicates.stdout == f"{job_id}|FAILED\n"


def test_sacct_selects_by_account_and_qos(cluster: Cluster) -> None:
    job_id = cluster.sbatch("-A", "physics", "--qos", "normal", "--wrap", "true", user="alice")
    wait_for(lambda: "COMPLETED" in cluster.run("sacct", "-n", "-X", "-P", "-j", str(job_id), "-o", "State",
                                                user="alice").stdout)

    def listed(*args: str) -> bool:
        out = cluster.run("sacct", "-n", "-X", "-P", "-o", "JobID,Account,QOS", *args, user="alice").stdout
        return f"{job_id}|physics|normal" in out.splitlines()

    assert listed("-A", "physics") and listed("-A", "chem,physics", "-q", "normal")
    assert not listed("-A", "chem") and not listed("-q", "high")
