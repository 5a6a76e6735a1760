"""-o/-e as real Slurm 22.05 shows them (checked on it): squeue --json keeps the patterns as given,
made absolute, and "" for a default; scontrol show job's StdOut/StdErr are the expanded paths."""
from __future__ import annotations

import json

from .conftest import Cluster


def test_squeue_json_keeps_the_patterns_and_scontrol_expands_them(cluster: Cluster) -> None:
    work = cluster.work_dir("alice")
    job = cluster.sbatch("--hold", "-J", "nm", "-o", "out-%j-%x.txt", "-e", "/tmp/err-%A_%a.txt", "--wrap", "true",
                         user="alice")
    plain = cluster.sbatch("--hold", "--wrap", "true", user="alice")
    try:
        records = {r["job_id"]: r for r in json.loads(cluster.run("squeue", "--json", user="alice").stdout)["jobs"]}
        assert (records[job]["standard_output"], records[job]["standard_error"]) == (
            f"{work}/out-%j-%x.txt", "/tmp/err-%A_%a.txt")
        assert (records[plain]["standard_output"], records[plain]["standard_error"]) == ("", "")
        shown = cluster.run("scontrol", "show", "job", str(job), user="alice").stdout
        assert f"   StdErr=/tmp/err-{job}_4294967294.txt\n" in shown
        assert f"   StdOut={work}/out-{job}-nm.txt\n" in shown
        assert f"   StdOut={work}/slurm-{plain}.out\n" in cluster.run("scontrol", "show", "job", str(plain)).stdout
    finally:
        cluster.run("scancel", str(job), str(plain))
