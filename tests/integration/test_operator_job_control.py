"""AdminLevel=Operator "can perform any slurm operation" (man sacctmgr): bob, made an operator,
holds (an admin hold, as real Slurm 22.05 shows it), releases and cancels alice's job; as a plain
user he gets Slurm's refusals. Its own cluster: an operator must not leak into other modules."""
from __future__ import annotations

from typing import Iterator

import pytest

from .conftest import Cluster, running_cluster, two_node_spec, wait_for


@pytest.fixture(scope="module")
def lab() -> Iterator[Cluster]:
    with running_cluster(two_node_spec) as c:
        wait_for(lambda: c.run("sacctmgr", "-n", "show", "cluster").returncode == 0)
        yield c


def test_an_operator_holds_and_cancels_another_users_job_a_plain_user_may_not(lab: Cluster) -> None:
    job = str(lab.sbatch("--begin=now+1hour", "--wrap", "sleep 60", user="alice"))
    refused = lab.run("scontrol", "hold", job, user="bob")
    assert (refused.returncode, refused.stderr) == (   # real Slurm 22.05's two lines
        1, f"Invalid user id for job {job}\nslurm_suspend error: Invalid user id\n")
    denied = lab.run("scancel", job, user="bob")
    assert denied.stderr == f"scancel: error: Kill job error on job id {job}: Access/permission denied\n"
    lab.run("sacctmgr", "-i", "add", "user", "bob", "Account=root", check=True)
    lab.run("sacctmgr", "-i", "modify", "user", "bob", "set", "AdminLevel=Operator", check=True)
    wait_for(lambda: lab.run("scontrol", "hold", job, user="bob").returncode == 0)   # once the feed has it
    assert lab.run("squeue", "-h", "-j", job, "-o", "%r").stdout == "JobHeldAdmin\n"
    lab.run("scontrol", "release", job, user="bob", check=True)
    assert lab.run("squeue", "-h", "-j", job, "-o", "%r").stdout != "JobHeldAdmin\n"
    lab.run("scancel", job, user="bob", check=True)
    wait_for(lambda: lab.run("squeue", "-h", "-j", job, "-o", "%T").stdout in ("", "CANCELLED\n"))
