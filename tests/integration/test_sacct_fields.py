"""sacct's field table, long format and state filter through the real CLI on a live cluster."""
from __future__ import annotations

import grp
import pwd

from .conftest import Cluster, wait_for


def _sacct(cluster: Cluster, *args: str, user: str | None = None) -> str:
    return cluster.run("sacct", *args, user=user, check=True).stdout


def test_usage_fields_of_a_finished_job_and_its_steps(cluster: Cluster) -> None:
    job = cluster.sbatch("-J", "fields", "-N", "2", "-q", "normal", "-o", "/dev/null",
                         "--wrap", "srun -N 2 -n 2 true", user="alice")
    cluster.wait_state(job, "COMPLETED", timeout=40)
    fields = "JobID,JobName,User,Group,MaxRSSNode,MaxVMSize,ReqCPUFreqMin,Layout,Flags,Suspended,QOSRAW"
    query = ("-P", "-n", "-j", str(job), "-o", fields)
    wait_for(lambda: len(_sacct(cluster, *query).splitlines()) == 3)
    job_row, batch_row, step_row = (line.split("|") for line in _sacct(cluster, *query).splitlines())
    group = grp.getgrgid(pwd.getpwnam("alice").pw_gid).gr_name
    assert job_row[:4] == [str(job), "fields", "alice", group]
    assert job_row[4:] == ["", "", "", "", "SchedMain", "00:00:00", "1"]   # usage is a step figure
    nodes = cluster.run("sacct", "-P", "-n", "-X", "-j", str(job), "-o", "NodeList").stdout.strip()
    assert batch_row[:2] == [f"{job}.batch", "batch"] and batch_row[4] in cluster.run(
        "scontrol", "show", "hostnames", nodes).stdout.split()
    assert batch_row[5:9] == ["0", "Unknown", "Unknown", ""]
    assert step_row[:2] == [f"{job}.0", "true"] and step_row[7] == "Block"
    long_lines = _sacct(cluster, "-l", "-j", str(job)).splitlines()
    assert long_lines[0].split()[:5] == ["JobID", "JobIDRaw", "JobName", "Partition", "MaxVMSize"]
    assert len(long_lines) == 5 and len({len(line) for line in long_lines[:2]}) == 1
    assert "Reserved" in " ".join(_sacct(cluster, "--helpformat").split())
    by_group = _sacct(cluster, "-X", "-n", "-P", "-g", group, "-o", "JobID", user="alice").split()
    assert str(job) in by_group
    assert _sacct(cluster, "-X", "-n", "-p", "--delimiter", ";", "-j", str(job), "-o", "JobID,State") == \
        f"{job};COMPLETED;\n"


def test_state_filter_selects_by_state_in_the_window(cluster: Cluster) -> None:
    done = cluster.sbatch("-o", "/dev/null", "--wrap", "true", user="bob")
    running = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 30", user="bob")
    cluster.wait_state(done, "COMPLETED")
    cluster.wait_state(running, "RUNNING")

    def ids(*args: str) -> set[str]:
        return set(_sacct(cluster, "-X", "-n", "-P", "-o", "JobID", "-u", "bob", *args).split())

    wait_for(lambda: str(running) in ids("-s", "R"))
    # -s alone: what runs now (once the second in which `done` ended is over)
    wait_for(lambda: str(done) not in ids("-s", "R"), timeout=5)
    assert str(done) in ids("-s", "R", "-S", "now-1hour", "-E", "now")  # it ran in that window
    assert str(done) in ids("-s", "CD", "-S", "now-1hour", "-E", "now")
    assert str(running) not in ids("-s", "CD", "-S", "now-1hour", "-E", "now")
    cluster.run("scancel", str(running), user="bob", check=True)
    cluster.wait_state(running, "CANCELLED")
    wait_for(lambda: str(running) in ids("-s", "CA", "-S", "now-1hour", "-E", "now"))


def test_noconvert_and_units_print_sizes_as_asked(cluster: Cluster) -> None:
    job = cluster.sbatch("--mem=512M", "-o", "/dev/null", "--wrap", "true", user="alice")
    cluster.wait_state(job, "COMPLETED")
    query = ("-P", "-n", "-j", str(job), "-o", "JobID,ReqMem,MaxRSS")
    wait_for(lambda: len(_sacct(cluster, *query).splitlines()) == 2)
    rows = [line.split("|") for line in _sacct(cluster, *query).splitlines()]
    assert rows[0] == [str(job), "512M", ""]
    raw = [line.split("|") for line in _sacct(cluster, "--noconvert", *query).splitlines()]
    assert raw[0] == [str(job), "512M", ""]
    assert raw[1][1] == "512M" and raw[1][2].isdigit() and int(raw[1][2]) % 1024 == 0   # bytes
    in_k = [line.split("|") for line in _sacct(cluster, "--units=K", *query).splitlines()]
    rss_bytes = int(raw[1][2])
    assert _sacct(cluster, "--units=g", *query).splitlines()[0] == f"{job}|0.50G|"
    assert in_k[0][1] == "524288K" and in_k[1][2] == (f"{rss_bytes // 1024}K" if rss_bytes else "0")
    bad = cluster.run("sacct", "--units=X", "-j", str(job))
    assert (bad.returncode, bad.stderr) == (1, "sacct: error: Invalid unit type 'X'. Possible options are KMGTP\n")


def test_nodelist_selects_jobs_that_ran_on_those_nodes(cluster: Cluster) -> None:
    job = cluster.sbatch("-N", "1", "-o", "/dev/null", "--wrap", "true", user="bob")
    cluster.wait_state(job, "COMPLETED")
    query = ("-X", "-n", "-P", "-o", "JobID", "-u", "bob")
    wait_for(lambda: str(job) in _sacct(cluster, *query).split())
    ran_on = cluster.run("sacct", *query[:3], "-o", "NodeList", "-j", str(job)).stdout.strip()
    all_nodes = cluster.run("sinfo", "-h", "-N", "-o", "%N").stdout.split()
    (other,) = set(all_nodes) - {ran_on}
    assert str(job) in _sacct(cluster, *query, "-N", ran_on).split()
    assert str(job) in _sacct(cluster, *query, "--nodelist", f"{other},{ran_on}").split()
    assert str(job) not in _sacct(cluster, *query, "-N", other).split()


def test_submit_line_is_the_sbatch_command_line(cluster: Cluster) -> None:
    job = cluster.sbatch("-J", "line", "-o", "/dev/null", "--wrap", "true", user="alice")
    cluster.wait_state(job, "COMPLETED")
    query = ("-X", "-n", "-P", "-j", str(job), "-o", "JobName,SubmitLine,Constraints")
    wait_for(lambda: _sacct(cluster, *query).startswith("line|"))
    assert _sacct(cluster, *query) == "line|sbatch --parsable -J line -o /dev/null --wrap true|\n"


def test_jobs_option_selects_steps(cluster: Cluster) -> None:
    """Slurm 22.05 (checked on the oracle): `-j 146.1` lists step 146.1 alone, `-j 146.batch` the
    batch step, `-j 146.extern` nothing without an extern step, `-j 146,146.1` the job and every
    step, `-X -j 146.1` the job's own line."""
    job_id = cluster.sbatch("--wrap", "srun true; srun true", user="alice")
    cluster.wait_state(job_id, "COMPLETED")

    def ids(*args: str) -> list[str]:
        out = cluster.run("sacct", "-n", "-P", "-o", "JobID", *args, user="alice", check=True).stdout
        return out.split()
    wait_for(lambda: len(ids("-j", str(job_id))) == 4)
    assert ids("-j", f"{job_id}.1") == [f"{job_id}.1"]
    assert ids("-j", f"{job_id}.batch") == [f"{job_id}.batch"]
    assert ids("-j", f"{job_id}.extern") == []
    assert ids("-j", f"{job_id}.0,{job_id}.1") == [f"{job_id}.0", f"{job_id}.1"]
    assert ids("-j", f"{job_id},{job_id}.1") == [str(job_id), f"{job_id}.batch", f"{job_id}.0", f"{job_id}.1"]
    assert ids("-X", "-j", f"{job_id}.1") == [str(job_id)]


def test_duplicates_list_a_requeued_held_jobs_pending_record(cluster: Cluster) -> None:
    """Slurm 22.05 (oracle): after `scontrol requeuehold`, `sacct -D -X -j N` lists the ended run
    (REQUEUED) and the current record, PENDING, not eligible until released."""
    job_id = cluster.sbatch("--requeue", "--wrap", "sleep 60", user="alice")
    cluster.wait_state(job_id, "RUNNING")
    cluster.run("scontrol", "requeuehold", str(job_id), check=True)

    def records() -> list[str]:
        return cluster.run("sacct", "-D", "-X", "-n", "-P", "-j", str(job_id), "-o", "JobID,State,Start",
                           user="alice", check=True).stdout.splitlines()
    wait_for(lambda: len(records()) == 2, 20)
    ended, current = records()
    assert ended.startswith(f"{job_id}|REQUEUED|") and current == f"{job_id}|PENDING|Unknown"
    cluster.run("scancel", str(job_id), user="alice", check=True)
