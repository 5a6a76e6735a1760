"""priority/multifactor through the real daemons and CLIs: sprio's layouts and `scontrol show
job` Priority= from the same factors, scontrol update priority=/nice= permission rules as alice,
bob and root, sshare over the controller's fairshare state, and usage that survives a controller
restart (spec scheduling-policy.md §3-4, cli-sacct-sacctmgr-sprio-sshare.md §4-5)."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterator

import pytest

from .conftest import Cluster, running_cluster, two_node_spec, wait_for

PRIORITY = ("PriorityType=priority/multifactor", "PriorityWeightFairshare=10000", "PriorityWeightAge=1000")
HEADER = "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE"


def _spec(root: Path, name: str):  # type: ignore[no-untyped-def]
    spec = two_node_spec(root, name)
    return dataclasses.replace(spec, extra=(*spec.extra, *PRIORITY))


def _shares(cluster: Cluster, *args: str, user: str | None = None) -> dict[tuple[str, str], list[str]]:
    """sshare -P -n rows by (account, user)."""
    out = cluster.run("sshare", "-P", "-n", *args, user=user, check=True).stdout
    rows = [line.split("|") for line in out.splitlines()]
    return {(row[0].strip(), row[1]): row for row in rows}


@pytest.fixture(scope="module")
def lab() -> Iterator[Cluster]:
    with running_cluster(_spec) as c:
        wait_for(lambda: c.run("sacctmgr", "-n", "show", "cluster").returncode == 0)
        for args in (("add", "account", "physics", "Fairshare=2"), ("add", "account", "chem", "Fairshare=1"),
                     ("add", "user", "alice", "Account=physics"), ("add", "user", "bob", "Account=chem")):
            c.run("sacctmgr", "-i", *args, check=True)
        wait_for(lambda: {("physics", "alice"), ("chem", "bob")} <= set(_shares(c, "-a")))
        yield c


def _row(job_id: int, priority: int, fairshare: int) -> str:
    return f"{job_id:>15} {'debug':<9} {priority:>10} {0:>10} {0:>10} {fairshare:>10}"


def test_sprio_and_scontrol_show_the_same_priority(lab: Cluster) -> None:
    later = "--begin=now+3600"     # pending (BeginTime), not held: no age yet, fairshare 1.0 for all
    alice = lab.sbatch(later, "--wrap", "true", user="alice")
    bob = lab.sbatch(later, "--wrap", "true", user="bob")
    out = lab.run("sprio", user="alice")
    assert (out.returncode, out.stderr) == (0, "")
    assert out.stdout == f"{HEADER}\n{_row(alice, 10000, 10000)}\n{_row(bob, 10000, 10000)}\n"
    assert "   Priority=10000 Nice=0 " in lab.run("scontrol", "show", "job", str(alice)).stdout
    assert lab.job_field(alice, "Q") == "10000"
    weights = lab.run("sprio", "-w", user="alice").stdout.splitlines()
    assert weights == [HEADER, f"{'Weights':>15} {'':9} {'':10} {1:>10} {1000:>10} {10000:>10}"]
    mine = lab.run("sprio", "-u", "alice", "-h", user="bob").stdout
    assert mine == f"{alice:>15} {'debug':<9} {'alice':>8} {10000:>10} {0:>10} {0:>10} {10000:>10}\n"
    norm = lab.run("sprio", "-n", "-h", "-j", str(bob), user="alice").stdout.split()
    assert norm == [str(bob), "debug", f"{10000 / 0xFFFFFFFF:16.14f}"[:10], "0", "0.0000000", "1.0000000"]
    long = lab.run("sprio", "-l", "-j", str(alice), user="alice").stdout.splitlines()
    assert long[0].split() == ["JOBID", "PARTITION", "USER", "PRIORITY", "SITE", "AGE", "ASSOC", "FAIRSHARE",
                               "JOBSIZE", "PARTITION", "QOS", "NICE", "TRES"]
    assert long[1].split() == [str(alice), "debug", "alice", "10000", "0", "0", "0", "10000", "0", "0", "0", "0"]
    assert lab.run("sprio", "-o", "%.6i|%Y|%F", "-h", "-j", str(alice)).stdout == f"{alice:>6}|10000|10000\n"
    bad = lab.run("sprio", "-h", "-o", "%.6i|%Z|%Y", "-j", str(alice))   # as real Slurm 22.05: left out, exit 0
    assert (bad.returncode, bad.stdout, bad.stderr) == (0, f"{alice:>6}|10000\n",
                                                        "sprio: error: Invalid job format specification: Z\n")
    lab.run("scancel", str(alice), str(bob), check=True)


def test_scontrol_update_priority_and_nice_permissions(lab: Cluster) -> None:
    job = lab.sbatch("--begin=now+3600", "--wrap", "true", user="alice")

    def update(user: str | None, setting: str) -> tuple[int, str]:
        out = lab.run("scontrol", "update", f"jobid={job}", setting, user=user)
        return out.returncode, out.stderr

    def shown() -> str:
        line = next(li for li in lab.run("scontrol", "show", "job", str(job)).stdout.splitlines()
                    if "Priority=" in li)
        return " ".join(line.split()[:2])

    denied = (1, f"Access/permission denied for job {job}\n")
    assert update("alice", "priority=20000") == denied          # users may not raise
    assert update("alice", "nice=-5") == denied                 # negative nice is privileged
    assert update("bob", "nice=5") == (1, f"Invalid user id for job {job}\n")   # nor touch others' jobs
    assert update("alice", "nice=100") == (0, "")
    assert shown() == "Priority=9900 Nice=100"
    assert lab.run("sprio", "-h", "-o", "%Y %N", "-j", str(job)).stdout == "9900 100\n"
    assert update("alice", "priority=5000") == (0, "")          # lowering is allowed
    assert shown() == "Priority=5000 Nice=100"
    assert update("alice", "priority=6000") == denied
    assert update(None, "priority=50000") == (0, "")            # root may raise
    assert shown() == "Priority=50000 Nice=100"
    assert lab.run("sprio", "-h", "-o", "%Y %N", "-j", str(job)).stdout == "50000 0\n"
    assert update(None, "nice=-20") == (0, "")
    lab.run("scancel", str(job), check=True)
    assert update("alice", "nice=1") == (1, f"Job has already finished for job {job}\n")


def test_sshare_usage_fairshare_and_restart(lab: Cluster) -> None:
    job = lab.sbatch("-n", "2", "--wrap", "sleep 3", user="alice")
    lab.wait_state(job, "COMPLETED", timeout=30)
    mine = _shares(lab, user="alice")
    assert ("physics", "alice") in mine and ("chem", "bob") not in mine   # only the caller's users
    assert ("root", "") in mine and ("physics", "") in mine and ("chem", "") in mine
    everyone = _shares(lab, "-a", user="alice")
    alice, bob = everyone[("physics", "alice")], everyone[("chem", "bob")]
    assert int(alice[4]) >= 6                                   # 2 CPUs x >= 3 s
    assert (alice[2], bob[2]) == ("1", "1")
    # Fair Tree over three users (root's own association, alice, bob): root and chem never ran
    # (Level Fairshare inf, tied: rank 3 of 3), physics did, so alice ranks last (1 of 3).
    assert ("root", "root") in everyone
    assert (float(everyone[("root", "root")][6]), float(bob[6]), alice[6]) == (1.0, 1.0, "0.333333")
    header = lab.run("sshare", "-l", user="alice").stdout.splitlines()[0].split()
    assert header == ["Account", "User", "RawShares", "NormShares", "RawUsage", "NormUsage", "EffectvUsage",
                      "FairShare", "LevelFS", "GrpTRESMins", "TRESRunMins"]
    table = lab.run("sshare", "-A", "physics", user="alice").stdout.splitlines()
    assert table[0] == ("Account                    User  RawShares  NormShares    RawUsage  EffectvUsage"
                        "  FairShare ")
    assert [line.split()[0] for line in table[2:]] == ["physics", "physics"]
    assert table[3].split()[1] == "alice"
    # The finished job leaves the controller after MinJobAge; its usage was journaled first and
    # survives a controller restart.
    wait_for(lambda: lab.run("squeue", "-h", "-t", "all", "-j", str(job)).stdout == "", timeout=60)
    before = _shares(lab, "-a")[("physics", "alice")][4]
    lab.stop("ctld")
    lab.start("ctld")
    wait_for(lambda: lab.run("sshare", "-a").returncode == 0, timeout=30)
    after = _shares(lab, "-a")[("physics", "alice")][4]
    # RawUsage is truncated: 6 CPU-seconds decayed over half a minute print as 5.
    assert int(after) == pytest.approx(int(before), abs=1) and int(after) >= 5


def test_sshare_long_run_minutes_and_blank_root_usage(lab: Cluster) -> None:
    """Slurm 22.05's sshare -l (oracle): root's NormUsage blank; TRESRunMins the TRES-minutes the
    running jobs still hold, on their association and every account above it; GrpTRESMins blank."""
    job = lab.sbatch("-n", "2", "-t", "10", "-o", "/dev/null", "--wrap", "sleep 60", user="alice")
    lab.wait_state(job, "RUNNING", timeout=30)
    try:
        out = lab.run("sshare", "-l", "-a", "-P", "-n", user="alice", check=True).stdout
        rows = {(r[0].strip(), r[1]): r for r in (line.split("|") for line in out.splitlines())}
        root, chem, bob = rows[("root", "")], rows[("chem", "")], rows[("chem", "bob")]
        assert root[5] == "" and chem[5] != "" and root[9] == ""
        def held(minutes: int) -> str:   # 2 CPUs on 1 node for the minutes left of 10
            return f"cpu={2 * minutes},mem=0,energy=0,node={minutes},billing={2 * minutes},fs/disk=0,vmem=0,pages=0"
        for key in (("root", ""), ("physics", ""), ("physics", "alice")):
            assert rows[key][10] in (held(10), held(9)), rows[key]
        assert bob[10] == held(0)
    finally:
        lab.run("scancel", str(job))


def test_negative_nice_at_submission_is_for_operators(lab: Cluster) -> None:
    out = lab.run("sbatch", "--nice=-5", "--begin=now+3600", "--wrap", "true", user="alice")
    # real Slurm 22.05's answer (validate_job_create_req: ESLURM_INVALID_NICE; tests/differential)
    assert (out.returncode, out.stderr) == (1, "sbatch: error: Batch job submission failed: Invalid --nice value\n")
    job = lab.sbatch("--nice=-5", "--begin=now+3600", "--wrap", "true")       # root may
    nice = lab.sbatch("--nice=50", "--begin=now+3600", "--wrap", "true", user="alice")
    assert lab.run("sprio", "-h", "-o", "%i %N", "-j", f"{job},{nice}").stdout == f"{job} -5\n{nice} 50\n"
    lab.run("scancel", str(job), str(nice), check=True)
