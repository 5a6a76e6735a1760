"""PrivateData=jobs,reservations as slurmctld applies it: an ordinary user sees only her own jobs in
squeue, scontrol and REST; another user's job id is, to her, an unknown id; operators see every job.
Reservations are seen only by the users they name (scontrol show res, sinfo -T) and operators."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterator

import pytest

from .conftest import Cluster, running_cluster, two_node_spec, wait_for
from .restd_support import RestClient, serving


def _spec(root: Path, name: str):  # type: ignore[no-untyped-def]
    spec = two_node_spec(root, name)
    return dataclasses.replace(spec, extra=(*spec.extra, "PrivateData=jobs,reservations"))


@pytest.fixture(scope="module")
def lab() -> Iterator[Cluster]:
    with running_cluster(_spec) as c:
        wait_for(lambda: c.run("sacctmgr", "-n", "show", "cluster").returncode == 0)
        yield c


def test_users_see_only_their_own_jobs_and_operators_see_all(lab: Cluster) -> None:
    alices = lab.sbatch("--hold", "--wrap", "true", user="alice")
    bobs = lab.sbatch("--hold", "--wrap", "true", user="bob")

    def listed(user: str | None, *args: str) -> list[str]:
        return lab.run("squeue", "-h", "-o", "%i %u", *args, user=user).stdout.splitlines()

    assert listed("alice") == [f"{alices} alice"]
    # equal-priority pending jobs list newest first, as slurmctld sends them (b6d0366)
    assert listed(None) == [f"{bobs} bob", f"{alices} alice"]
    for command in (("squeue", "-j", str(bobs)), ("scontrol", "show", "job", str(bobs))):
        hidden = lab.run(*command, user="alice")
        assert (hidden.returncode, hidden.stdout, hidden.stderr) == (
            1, "", "slurm_load_jobs error: Invalid job id specified\n"), command
    assert "UserId=bob(" in lab.run("scontrol", "show", "job", str(bobs), check=True).stdout
    lab.run("sacctmgr", "-i", "add", "user", "bob", "Account=root", check=True)
    lab.run("sacctmgr", "-i", "modify", "user", "bob", "set", "AdminLevel=Operator", check=True)
    wait_for(lambda: len(listed("bob")) == 2, 10)                   # operators see every job
    lab.run("scancel", str(alices), str(bobs), check=True)


def test_users_see_only_the_reservations_they_are_in(lab: Cluster) -> None:
    lab.run("scontrol", "create", "reservation", "ReservationName=alices", "StartTime=now+1day", "Duration=30",
            "Users=alice", "Nodes=node1", check=True)
    try:
        assert lab.run("scontrol", "show", "res", user="alice", check=True).stdout.startswith(
            "ReservationName=alices ")
        assert lab.run("sinfo", "-h", "-T", "-o", "%R", user="alice").stdout.split()[:1] == ["alices"]
        if lab.run("sacctmgr", "-n", "show", "user", "bob").stdout.strip():   # an operator since the test above
            lab.run("sacctmgr", "-i", "modify", "user", "bob", "set", "AdminLevel=None", check=True)
        wait_for(lambda: lab.run("scontrol", "show", "res", user="bob").stdout == "No reservations in the system\n",
                 10)
        hidden = lab.run("scontrol", "show", "res", "alices", user="bob")
        assert (hidden.returncode, hidden.stdout) == (1, "Reservation alices not found\n")
        assert lab.run("sinfo", "-h", "-T", user="bob").stdout == "No reservations in the system\n"
        assert "ReservationName=alices " in lab.run("scontrol", "show", "res", check=True).stdout   # root
        with serving(lab) as port:      # pyslurmrestd asks as the token's user: the same view
            for user, seen in (("alice", ["alices"]), ("bob", [])):
                token = lab.run("scontrol", "token", user=user, check=True).stdout.strip().removeprefix("SLURM_JWT=")
                answer = RestClient(port=port).with_headers(token=token).get("/slurm/v0.0.44/reservations")
                assert [r["name"] for r in answer.json["reservations"]] == seen, (user, answer.text)
    finally:
        lab.run("scontrol", "delete", "ReservationName=alices", check=True)
