"""Licenses on a real cluster, as alice and bob: `-L` is checked against slurm.conf's Licenses=
with Slurm's error, a job waits with reason Licenses while another holds the last one, the counts
show in `scontrol show licenses` and survive a controller restart."""
from __future__ import annotations

import dataclasses
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from pyslurm_common.cluster_files import ClusterSpec

from .conftest import Cluster, running_cluster, two_node_spec, wait_for


def _spec(root: Path, name: str) -> ClusterSpec:
    return dataclasses.replace(two_node_spec(root, name), extra=("Licenses=matlab:1,fluent:4",))


@pytest.fixture(scope="module")
def licensed() -> Iterator[Cluster]:
    with running_cluster(_spec) as c:
        yield c


def test_unknown_licenses_are_refused_with_slurms_error(licensed: Cluster) -> None:
    for asked in ("ansys", "matlab:2", "matlab|fluent"):
        result = licensed.run("sbatch", "-L", asked, "--wrap", "true", user="alice")
        assert result.returncode == 1
        assert result.stderr == "sbatch: error: Batch job submission failed: Invalid license specification\n"


def test_a_job_waits_for_the_license_another_holds_also_across_a_restart(licensed: Cluster) -> None:
    work = licensed.work_dir("alice")
    go = work / "lic.go"
    holder = licensed.sbatch("-L", "matlab", "-o", "/dev/null", "--wrap",
                             f"while [ ! -e {go} ]; do sleep 0.2; done", user="alice")
    licensed.wait_state(holder, "RUNNING")
    waiter = licensed.sbatch("--licenses=matlab:1,fluent:2", "-o", "/dev/null", "--wrap", "true", user="bob")
    wait_for(lambda: licensed.job_field(waiter, "r") == "Licenses")
    assert licensed.job_field(waiter, "W") == "matlab:1,fluent:2"
    shown = licensed.run("scontrol", "show", "lic", user="bob", check=True).stdout
    assert shown == ("LicenseName=fluent\n    Total=4 Used=0 Free=4 Reserved=0 Remote=no\n"
                     "LicenseName=matlab\n    Total=1 Used=1 Free=0 Reserved=0 Remote=no\n")
    licensed.stop("ctld", signal.SIGKILL)
    licensed.start("ctld")
    wait_for(lambda: licensed.run("scontrol", "-o", "show", "licenses", "matlab").stdout ==
             "LicenseName=matlab Total=1 Used=1 Free=0 Reserved=0 Remote=no\n", timeout=30)
    wait_for(lambda: licensed.job_field(waiter, "r") == "Licenses", timeout=30)
    assert "Licenses=matlab:1,fluent:2 " in licensed.run("scontrol", "show", "job", str(waiter)).stdout
    go.touch()
    licensed.wait_state(holder, "COMPLETED", timeout=30)
    licensed.wait_state(waiter, "COMPLETED", timeout=30)
    go.unlink()


def test_rest_api_lists_the_licenses(licensed: Cluster) -> None:
    from tests import restd_contract as contract
    from tests.integration.restd_support import RestClient, restd

    socket_path = licensed.work_dir("alice") / "restd.socket"
    with restd(licensed, "alice", f"unix:{socket_path}", auth="rest_auth/local"):
        client = RestClient(unix_path=str(socket_path))
        wait_for(lambda: socket_path.exists() and client.up(), 20)
        answer = client.get("/slurm/v0.0.44/licenses/")
    contract.validate(answer.method, answer.path, answer.status, answer.text)
    assert [(lic["LicenseName"], lic["Total"], lic["Used"], lic["Free"]) for lic in answer.json["licenses"]] == [
        ("fluent", 4, 0, 4), ("matlab", 1, 0, 1)]


def test_scontrol_update_job_licenses(licensed: Cluster) -> None:
    job = licensed.sbatch("--hold", "-L", "fluent", "-o", "/dev/null", "--wrap", "true", user="alice")
    licensed.run("scontrol", "update", f"jobid={job}", "Licenses=matlab:1,fluent:2", user="alice", check=True)
    assert licensed.job_field(job, "W") == "matlab:1,fluent:2"
    refused = licensed.run("scontrol", "update", f"jobid={job}", "Licenses=ansys", user="alice")
    assert refused.returncode == 1 and "Invalid license specification" in refused.stderr
    licensed.run("scancel", str(job), user="alice", check=True)


def test_a_reservation_holds_licenses_for_its_users(licensed: Cluster) -> None:
    """Licenses= in a LICENSE_ONLY (ANY_NODES) reservation: its users' jobs take them on any node,
    other jobs wait with reason Licenses; scontrol shows them reserved."""
    refused = licensed.run("scontrol", "create", "res", "ReservationName=nolic", "StartTime=now", "Duration=10",
                           "Users=alice", "Licenses=fluent:9", "Flags=LICENSE_ONLY")
    assert (refused.returncode, refused.stderr) == (1, "Error creating the reservation: Invalid license specification\n")
    licensed.run("scontrol", "create", "res", "ReservationName=lic", "StartTime=now", "Duration=10", "Users=alice",
                 "Licenses=fluent:3", "Flags=LICENSE_ONLY", check=True)
    try:
        shown = licensed.run("scontrol", "show", "res", "lic", check=True).stdout
        assert "   Nodes=(null) NodeCnt=0 CoreCnt=0 Features=(null) PartitionName=(null) Flags=ANY_NODES\n" in shown
        assert "   Users=alice Groups=(null) Accounts=(null) Licenses=fluent:3 State=ACTIVE " in shown
        assert "Used=0 Free=1 Reserved=3 " in licensed.run("scontrol", "show", "lic", "fluent", check=True).stdout
        kept = licensed.sbatch("-L", "fluent:2", "-o", "/dev/null", "--wrap", "true", user="bob")
        inside = licensed.sbatch("--reservation=lic", "-L", "fluent:3", "-o", "/dev/null", "--wrap", "true",
                                 user="alice")
        licensed.wait_state(inside, "COMPLETED", timeout=30)
        assert (licensed.job_field(kept, "T"), licensed.job_field(kept, "r")) == ("PENDING", "Licenses")
    finally:
        licensed.run("scontrol", "delete", "ReservationName=lic", check=True)
    licensed.wait_state(kept, "COMPLETED", timeout=30)
