"""What a job may and may not do on its node: identity, limits, cleanup."""
from __future__ import annotations

import pwd
import re

from .conftest import Cluster


def _output(cluster: Cluster, user: str, job_id: int) -> str:
    return (cluster.work_dir(user) / f"slurm-{job_id}.out").read_text()


def test_tasks_run_without_privileges_and_with_the_submitters_umask_and_limits(cluster: Cluster) -> None:
    script = ("#!/bin/bash\ngrep -E '^(CapEff|CapPrm|Uid|Gid):' /proc/self/status\numask\nulimit -n\nulimit -c\n"
              "echo HOME=$HOME USER=$USER LOGNAME=$LOGNAME\n")
    job_id = int(cluster.run("bash", "-c", "umask 0027; ulimit -n 321; ulimit -c 0; exec sbatch --parsable "
                                           "--export=NONE", user="bob", input=script, check=True).stdout)
    cluster.wait_state(job_id, "COMPLETED")
    out = _output(cluster, "bob", job_id)
    bob = pwd.getpwnam("bob")
    assert re.search(r"^CapEff:\s+0+$", out, re.M) and re.search(r"^CapPrm:\s+0+$", out, re.M)
    assert re.search(rf"^Uid:\s+{bob.pw_uid}\s+{bob.pw_uid}\s+{bob.pw_uid}\s+{bob.pw_uid}$", out, re.M)
    assert re.search(rf"^Gid:\s+{bob.pw_gid}\s+{bob.pw_gid}\s+{bob.pw_gid}\s+{bob.pw_gid}$", out, re.M)
    lines = out.splitlines()
    assert lines[-4:] == ["0027", "321", "0", f"HOME={bob.pw_dir} USER=bob LOGNAME=bob"]
    assert (cluster.work_dir("bob") / f"slurm-{job_id}.out").stat().st_mode & 0o777 == 0o640


def test_a_process_that_escapes_with_setsid_is_still_killed(cluster: Cluster) -> None:
    marker = cluster.work_dir("alice") / "escaped.pid"
    script = (f"#!/bin/bash\nsetsid bash -c 'echo $$ > {marker}; trap \"\" TERM; exec sleep 600' &\n"
              f"sleep 1\necho launched\n")
    job_id = int(cluster.run("sbatch", "--parsable", user="alice", input=script, check=True).stdout)
    cluster.wait_state(job_id, "COMPLETED", timeout=30)
    pid = int(marker.read_text())
    import os
    assert not os.path.exists(f"/proc/{pid}"), "the escaped process survived the end of its job"


def test_an_output_path_the_user_cannot_write_fails_the_job_and_creates_nothing(cluster: Cluster) -> None:
    job_id = cluster.sbatch("-o", "/root/not-yours-%j.out", "--wrap", "echo hi", user="alice")
    cluster.wait_state(job_id, "FAILED")
    assert cluster.job_field(job_id, "r") == "JobLaunchFailure"
    import os
    assert not os.path.exists(f"/root/not-yours-{job_id}.out")
