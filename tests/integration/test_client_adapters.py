"""The Slurm adapters of Nextflow and Open OnDemand, replayed as the ordinary user alice.

Neither tool is in PyPI, so the tests run the exact command lines their adapters build and parse
the output the way the adapters do:
- Nextflow's SlurmExecutor (modules/nextflow/.../executor/SlurmExecutor.groovy): a script with
  `#SBATCH` pairs (`-J`, `-o`, `--no-requeue`, `--signal B:USR2@30`, `-c`, `-t HH:mm:ss`,
  `--mem NM`, `-p`, `--array 0-N`), `sbatch <script>` parsed with /Submitted batch job (\\d+)/,
  `squeue --noheader -o '%i %t' -t all -p <queue> -u <user>` split into two columns, `scancel <ids>`.
- Open OnDemand's ood_core (lib/ood_core/job/adapters/slurm.rb): the script on stdin of
  `sbatch ... --export NONE --parsable` (first `;` field), `squeue --all --states=all --noconvert
  -O Name:<US>,...` split on the unit separator after the header line, `scontrol hold|release`,
  `scancel`, `sacct -P --delimiter <US> -n --units G --allocations -o ...`, `scontrol show part -o`
  (every token key=value), `sinfo -aho %F/%C`, `sinfo -ahNO nodehost:100,gres:512,...`,
  `sinfo -ho <RS>%c<US>%n<US>%f` and `sacctmgr -nP show users withassoc format=account,qos`.
"""
from __future__ import annotations

import re
from typing import Iterator

import pytest

from .conftest import Cluster, running_cluster, two_node_spec, wait_for

US = "\x1f"
RS = "\x1e"

# ood_core's all_squeue_fields, in its order (the keys it zips the values with)
OOD_SQUEUE_FIELDS = {
    "account": "Account", "job_id": "JobID", "exec_host": "BatchHost", "min_cpus": "MinCpus",
    "cpus": "NumCPUs", "min_tmp_disk": "MinTmpDisk", "nodes": "NumNodes", "end_time": "EndTime",
    "dependency": "Dependency", "features": "Feature", "array_job_id": "ArrayJobID",
    "group_name": "GroupName", "group_id": "GroupID", "over_subscribe": "OverSubscribe",
    "sockets_per_node": "Sockets", "array_job_task_id": "JobArrayID", "cores_per_socket": "Cores",
    "job_name": "Name", "threads_per_core": "Threads", "comment": "Comment",
    "array_task_id": "ArrayTaskID", "time_limit": "TimeLimit", "time_left": "TimeLeft",
    "min_memory": "MinMemory", "time_used": "TimeUsed", "req_node": "ReqNodes",
    "node_list": "NodeList", "command": "Command", "contiguous": "Contiguous", "qos": "QOS",
    "partition": "Partition", "priority": "PriorityLong", "reason": "Reason",
    "start_time": "StartTime", "state_compact": "StateCompact", "state": "State",
    "user": "UserName", "user_id": "UserID", "reservation": "Reservation",
    "submit_time": "SubmitTime", "wckey": "WCKey", "licenses": "Licenses", "excluded_nodes": "ExcNodes",
    "core_specialization": "CoreSpec", "nice": "Nice", "scheduled_nodes": "SchedNodes",
    "sockets_cores_threads": "SCT", "work_dir": "WorkDir", "tres_alloc": "tres-alloc",
    "gres": "tres-per-node",
}  # fmt: skip
OOD_SACCT_FIELDS = ("User", "Group", "JobId", "JobName", "Elapsed", "ReqMem", "AllocCPUS", "ReqCPUS",
                    "Timelimit", "State", "TotalCPU", "MaxRSS", "Partition", "Submit", "Start", "End",
                    "ReqTRES")



@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """Its own cluster: the accounts test gives alice an association."""
    with running_cluster(two_node_spec) as c:
        yield c


# ----------------------------------------------------------------------------- Nextflow


def nextflow_script(work: str, name: str, array: int = 0) -> str:
    """What SlurmExecutor.getHeaders writes: each directive pair on one #SBATCH line."""
    lines = ["#!/bin/bash"]
    if array:
        lines.append(f"#SBATCH --array 0-{array - 1}")
    lines += [f"#SBATCH -J {name}", f"#SBATCH -o {'/dev/null' if array else work + '/.command.log'}",
              "#SBATCH --no-requeue", "#SBATCH --signal B:USR2@30", "#SBATCH -c 2",
              "#SBATCH -t 00:10:00", "#SBATCH --mem 100M", "#SBATCH -p debug",
              f"NXF_CHDIR={work}", "echo task $SLURM_ARRAY_TASK_ID > $NXF_CHDIR/.exitcode.$SLURM_ARRAY_TASK_ID",
              "sleep 30"]
    return "\n".join(lines) + "\n"


def nextflow_submit(c: Cluster, script: str) -> str:
    work = c.work_dir("alice")
    (work / ".command.run").write_text(script)
    out = c.run("sbatch", ".command.run", user="alice", cwd=work, check=True).stdout
    match = next((m for m in map(re.compile(r"Submitted batch job (\d+)").search, out.splitlines()) if m), None)
    assert match, out
    return match.group(1)


def nextflow_status(c: Cluster) -> dict[str, str]:
    """SlurmExecutor.queueStatusCommand + parseQueueStatus."""
    out = c.run("squeue", "--noheader", "-o", "%i %t", "-t", "all", "-p", "debug", "-u", "alice",
                user="alice", check=True).stdout
    status = {}
    for line in out.splitlines():
        cols = line.split()
        assert len(cols) == 2, f"Nextflow drops the line {line!r}"
        status[cols[0]] = cols[1]
    return status


def test_nextflow_task_submit_status_kill(cluster: Cluster) -> None:
    c = cluster
    job = nextflow_submit(c, nextflow_script(str(c.work_dir("alice")), "nf-hello_1"))
    wait_for(lambda: nextflow_status(c).get(job) == "R")
    info = c.run("scontrol", "show", "job", job, check=True).stdout
    assert "NumCPUs=2" in info and "Requeue=0" in info and "TimeLimit=00:10:00" in info
    assert "JobName=nf-hello_1" in info
    c.run("scancel", job, user="alice", check=True)
    wait_for(lambda: nextflow_status(c).get(job) == "CA")


def test_nextflow_task_array(cluster: Cluster) -> None:
    c = cluster
    job = nextflow_submit(c, nextflow_script(str(c.work_dir("alice")), "nf-array", array=3))
    wait_for(lambda: {f"{job}_0", f"{job}_1"} <= set(nextflow_status(c)))
    # TaskArrayExecutor kills the whole array by its tasks' ids ("<job>_<index>")
    c.run("scancel", f"{job}_0", f"{job}_1", f"{job}_2", user="alice", check=True)
    wait_for(lambda: all(nextflow_status(c).get(f"{job}_{i}") in ("CA", None) for i in range(3)))
    assert "PD" not in nextflow_status(c).values()


# ----------------------------------------------------------------------------- Open OnDemand


def ood_jobs(c: Cluster, job: str = "") -> list[dict[str, str]]:
    """ood_core's get_jobs: header line skipped, each line split on US and zipped with the keys."""
    fields = ",".join(f"{name}:{US}" for name in OOD_SQUEUE_FIELDS.values()) + ","
    args = ["squeue", "--all", "--states=all", "--noconvert", "-O", fields, "-u", "alice"]
    result = c.run(*args, *(["-j", job] if job else []), user="alice")
    assert result.returncode == 0, result.stderr
    # Slurm 22.05 has no ExcNodes field: it says so and prints the column empty
    assert result.stderr == "squeue: error: Invalid job format specification: ExcNodes\n"
    header, _, body = result.stdout.partition(f"{US}\n")
    assert header.split(US)[:3] == ["ACCOUNT", "JOBID", "EXEC_HOST"]
    jobs = []
    for line in body.splitlines():
        values = line.split(US)
        assert values[-1] == "", "every column ends with the separator"
        jobs.append(dict(zip(OOD_SQUEUE_FIELDS, values[:-1])))
        assert len(values) - 1 == len(OOD_SQUEUE_FIELDS), line
    return jobs


def ood_submit(c: Cluster, script: str, *args: str) -> str:
    out = c.run("sbatch", "-J", "ood_app", "-o", "ood.out", *args, "--export", "NONE", "--parsable",
                user="alice", input=script, check=True).stdout
    return out.strip().split(";")[0]


def test_ood_submit_info_hold_release_delete(cluster: Cluster) -> None:
    c = cluster
    job = ood_submit(c, "#!/bin/bash\nsleep 60\n", "-H", "-t", "00:05:00", "-n", "1")
    assert job.isdigit()
    (info,) = ood_jobs(c, job)
    assert info["job_id"] == job and info["state_compact"] == "PD" and info["state"] == "PENDING"
    assert info["job_name"] == "ood_app" and info["user"] == "alice" and info["time_limit"] == "5:00"
    assert info["reason"] == "JobHeldUser" and info["partition"] == "debug"
    assert info["tres_alloc"].startswith("cpu=1,") and info["gres"] == "N/A"
    assert info["excluded_nodes"] == "" and info["sockets_cores_threads"] == "*:*:*"
    assert info["work_dir"] == str(c.work_dir("alice"))
    c.run("scontrol", "release", job, user="alice", check=True)
    wait_for(lambda: ood_jobs(c, job)[0]["state_compact"] == "R")
    (info,) = ood_jobs(c, job)
    assert info["node_list"] in ("node1", "node2") and info["exec_host"] == info["node_list"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", info["start_time"])
    assert info["cpus"] == "1" and info["nodes"] == "1"
    c.run("scancel", job, user="alice", check=True)
    wait_for(lambda: ood_jobs(c, job)[0]["state_compact"] in ("CA", "CG"))
    # info_historic: sacct, one allocation line per job, US-separated, no header
    def historic() -> list[list[str]]:
        out = c.run("sacct", "-P", "--delimiter", US, "-n", "--units", "G", "--allocations",
                    "-o", ",".join(OOD_SACCT_FIELDS), "-j", job, user="alice", check=True).stdout
        return [line.strip().split(US) for line in out.splitlines()]
    rows = wait_for(lambda: [r for r in historic() if r[9].startswith("CANCELLED")])
    (row,) = rows
    assert len(row) == len(OOD_SACCT_FIELDS)
    assert row[0] == "alice" and row[2] == job and row[3] == "ood_app" and row[8] == "00:05:00"
    assert re.fullmatch(r"\d\d:\d\d:\d\d", row[4]) and row[12] == "debug"


def test_ood_cluster_queue_and_node_info(cluster: Cluster) -> None:
    c = cluster
    counts = c.run("sinfo", "-aho", "%F/%C", user="alice", check=True).stdout.strip().split("/")
    assert len(counts) == 8 and all(x.isdigit() for x in counts)
    assert counts[3] == "2" and counts[7] == "4"  # nodes total, cpus total
    gres = c.run("sinfo", "-ahNO", "nodehost:100,gres:512,gresused:512,statelong",
                 user="alice", check=True).stdout
    rows = [line.split() for line in gres.splitlines()]
    assert sorted(r[0] for r in rows) == ["node1", "node2"] and all(len(r) == 4 for r in rows)
    for line in c.run("scontrol", "show", "part", "-o", user="alice", check=True).stdout.splitlines():
        pairs = dict(token.split("=", 1) for token in line.split(" "))   # ood raises on a bare token
        assert pairs["PartitionName"] == "debug" and pairs["AllowAccounts"] == "ALL"
        assert dict(t.split("=") for t in pairs["TRES"].split(","))["cpu"] == "4"
    out = c.run("sinfo", "-ho", f"{RS}%c{US}%n{US}%f", user="alice", check=True).stdout
    records = [r.strip().split(US) for r in out.split(RS) if r.strip()]
    assert records and all(len(r) == 3 and r[0].isdigit() for r in records)


def test_ood_accounts(cluster: Cluster) -> None:
    c = cluster
    c.run("sacctmgr", "-i", "add", "account", "oodlab", check=True)
    c.run("sacctmgr", "-i", "add", "user", "alice", "account=oodlab", check=True)
    name = c.spec.cluster_name
    out = c.run("sacctmgr", "-nP", "show", "users", "withassoc", "format=account,qos", "where",
                "user=alice", f"cluster={name}", user="alice", check=True).stdout
    pairs = [line.split("|") for line in out.splitlines()]
    assert ["oodlab", "normal"] in pairs
    # Jobs are charged to the user's DefaultAccount and its QOS even without enforcement, as
    # Slurm's (checked on real Slurm 22.05: OOD's Account and QOS columns are filled)
    from pyslurm_common.rpc import dbd_pb2
    cache = c.spec.state_dir / "ctld" / "associations.state"   # the controller's copy of the associations
    wait_for(lambda: cache.exists() and any(a.key.user == "alice" and a.key.account == "oodlab"
                                            for a in dbd_pb2.AssociationState.FromString(cache.read_bytes()).associations))
    job = ood_submit(c, "#!/bin/bash\nsleep 60\n", "-H")
    (info,) = ood_jobs(c, job)
    assert (info["account"], info["qos"], info["command"]) == ("oodlab", "normal", "(null)")   # stdin: no Command
    c.run("scancel", job, user="alice", check=True)


def test_ood_command_of_a_script_file(cluster: Cluster) -> None:
    """Command: the script as named (found in the working directory: its full path) and its
    arguments, as real Slurm's squeue shows it; `./script` stays as written."""
    c = cluster
    work = c.work_dir("alice")
    (work / "job.sh").write_text("#!/bin/bash\nsleep 60\n")
    named = c.run("sbatch", "--parsable", "-H", "job.sh", "a b", "c", user="alice", cwd=work, check=True)
    relative = c.run("sbatch", "--parsable", "-H", "./job.sh", user="alice", cwd=work, check=True)
    jobs = [named.stdout.strip(), relative.stdout.strip()]
    assert [ood_jobs(c, job)[0]["command"] for job in jobs] == [f"{work}/job.sh a b c", "./job.sh"]
    c.run("scancel", *jobs, user="alice", check=True)
