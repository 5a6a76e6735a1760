"""sbcast's refusals in Slurm 22.05's words and exit statuses (checked on the oracle).
The copy to several nodes, as the job's user, is in test_multi_host.py."""
from __future__ import annotations

import os

from .conftest import Cluster, wait_for


def test_sbcast_errors_as_slurm(cluster: Cluster) -> None:
    work = cluster.work_dir("alice")
    (work / "data.txt").write_text("data\n")
    dest = f"/tmp/pyslurm-sbcast-e{os.getpid()}"
    script = (f"sbcast data.txt {dest}; echo rc=$?; sbcast data.txt {dest}; echo rc=$?; "
              "sbcast data.txt /root/denied; echo rc=$?; sbcast data.txt; echo rc=$?; "
              "sbcast missing.txt /tmp/x; echo rc=$?; sbcast -C lz4 data.txt /tmp/x; echo rc=$?")
    try:
        result = cluster.run("salloc", "-Q", "-N1", "sh", "-c", script, user="alice", timeout=120)
        assert result.stdout.split() == ["rc=0", "rc=17", "rc=13", "rc=1", "rc=255", "rc=1"], result
        node = open(dest).read() and cluster.run("sacct", "-n", "-X", "-P", "-o", "NodeList", "-u", "alice",
                                                  "--name", "sh").stdout.split()[-1]
        assert result.stderr.splitlines() == [
            f"sbcast: error: REQUEST_FILE_BCAST({node}): File exists",
            f"sbcast: error: REQUEST_FILE_BCAST({node}): Permission denied",
            "Need two file names, have 1 names",
            'Try "sbcast --help" for more information',
            "sbcast: error: Can't open `missing.txt`: No such file or directory",
            # -C takes its library only glued (-Clz4): "lz4" is a third file name, as in Slurm
            "Need two file names, have 3 names",
            'Try "sbcast --help" for more information',
        ]
        assert os.stat(dest).st_uid != 0 and open(dest).read() == "data\n"
    finally:
        if os.path.exists(dest):
            os.unlink(dest)
    outside = cluster.run("sbcast", "data.txt", "/tmp/x", user="alice")
    assert (outside.returncode, outside.stderr) == (1, "sbcast: error: Need a job id to run this command.  "
                                                       "Run from within a Slurm job or use the --jobid option.\n")


def test_sbcast_into_another_users_job_is_refused(cluster: Cluster) -> None:
    job_id = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 30", user="alice")
    cluster.wait_state(job_id, "RUNNING")
    (cluster.work_dir("bob") / "mine.txt").write_text("bob's\n")
    dest = f"/tmp/pyslurm-sbcast-b{os.getpid()}"
    try:
        refused = cluster.run("sbcast", "-j", str(job_id), "mine.txt", dest, user="bob")
        assert refused.returncode == 1 and not os.path.exists(dest), refused
        assert refused.stderr == f"sbcast: error: Slurm job {job_id} lookup error: Access/permission denied\n"
    finally:
        cluster.run("scancel", str(job_id), check=True)
        if os.path.exists(dest):
            os.unlink(dest)
    for argv in (("--send-libs",), ("--send-libs=yes",)):
        refused = cluster.run("sbcast", *argv, "-j", "1", "data.txt", "/tmp/x", user="alice")
        assert (refused.returncode, refused.stderr) == (
            1, "sbcast: error: --send-libs is not supported: copy the libraries with sbcast one by one\n")


def test_sbcast_to_a_step_copies_to_the_steps_nodes_only(cluster: Cluster) -> None:
    """-j J.S: the step's nodes, not the job's (Slurm's sbcast lookup of a step). Both nodes of the
    test cluster share this host's /tmp, so a copy to the whole job meets its own file."""
    work = cluster.work_dir("alice")
    (work / "data.txt").write_text("data\n")
    job_id = cluster.sbatch("-N2", "-n2", "-o", "/dev/null", "--wrap", "srun -w node2 -n1 sleep 60", user="alice")
    dest = f"/tmp/pyslurm-sbcast-s{os.getpid()}"
    try:
        assert wait_for(lambda: cluster.run("sattach", "--layout", f"{job_id}.0", user="alice").returncode == 0,
                        timeout=60, interval=0.5)
        first = cluster.run("sbcast", "-j", f"{job_id}.0", "data.txt", dest, user="alice")
        assert (first.returncode, first.stderr) == (0, ""), first
        again = cluster.run("sbcast", "-j", f"{job_id}.0", "data.txt", dest, user="alice")
        assert (again.returncode, again.stderr) == (17, "sbcast: error: REQUEST_FILE_BCAST(node2): File exists\n")
        unknown = cluster.run("sbcast", "-j", f"{job_id}.5", "data.txt", dest, user="alice")
        assert (unknown.returncode, unknown.stderr) == (
            1, f"sbcast: error: Slurm job {job_id}.5 lookup error: Invalid job id specified\n")
    finally:
        cluster.run("scancel", str(job_id), check=True)
        if os.path.exists(dest):
            os.unlink(dest)
