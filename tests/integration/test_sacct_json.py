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
    assert [s["step"]["id"] for s in job["steps"]] == ["batch"]   # the step part only, as 22.05
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


def test_squeue_and_sinfo_documents_and_scontrol_details(cluster: Cluster) -> None:
    """squeue/sinfo --json and --yaml through the real CLIs (their shapes are checked against real
    Slurm in tests/unit/test_data_output_oracle.py), and `scontrol -d show job`'s allocation line."""
    job = cluster.sbatch("-J", "docjob", "-o", "/dev/null", "--wrap", "sleep 60", user="alice")
    cluster.wait_state(job, "RUNNING")
    try:
        doc = json.loads(cluster.run("squeue", "--json", user="bob", check=True).stdout)   # every job, as 22.05
        (record,) = [j for j in doc["jobs"] if j["job_id"] == job]
        assert (record["name"], record["job_state"], record["user_name"]) == ("docjob", "RUNNING", "alice")
        (node,) = record["job_resources"]["allocated_nodes"]
        assert node["sockets"] and node["nodename"] == record["nodes"]
        nodes = json.loads(cluster.run("sinfo", "--json", "-p", "nosuch", check=True).stdout)["nodes"]
        assert sorted(n["name"] for n in nodes) == ["node1", "node2"]
        yaml = cluster.run("squeue", "--yaml", user="alice", check=True).stdout
        assert yaml.startswith("%YAML 1.1\n--- !!map\n") and f"  !!str job_id: !!int {job}\n" in yaml
        detail = cluster.run("scontrol", "-d", "show", "job", str(job), user="alice", check=True).stdout
        assert f"     Nodes={record['nodes']} CPU_IDs=" in detail and "   DerivedExitCode=0:0\n" in detail
    finally:
        cluster.run("scancel", str(job), check=True)
