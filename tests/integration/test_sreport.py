"""sreport through the real CLI and accounting daemon: the rollups agree with the job records."""
from __future__ import annotations

import time
from datetime import datetime

from .conftest import Cluster, wait_for


def _epoch(text: str) -> int:
    return int(datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").timestamp())


def _alice_cpu_seconds(cluster: Cluster, hour: int, now: int) -> int:
    """alice's allocated CPU-seconds in [hour, now), from sacct's job records."""
    out = cluster.run("sacct", "-X", "-n", "-P", "-u", "alice", "-S", time.strftime("%Y-%m-%dT%H:%M:%S",
                      time.localtime(hour)), "-o", "AllocCPUS,Start,End", check=True).stdout
    total = 0
    for line in out.splitlines():
        cpus, start, end = line.split("|")
        if start == "Unknown":
            continue
        begin, finish = max(_epoch(start), hour), min(now if end == "Unknown" else _epoch(end), now)
        total += int(cpus) * max(0, finish - begin)
    return total


def test_utilization_and_topusage_match_the_jobs(cluster: Cluster) -> None:
    job = cluster.sbatch("-c", "2", "-o", "/dev/null", "--wrap", "sleep 3", user="alice")
    cluster.wait_state(job, "COMPLETED", timeout=30)
    cluster.wait_idle()
    now = int(time.time())
    hour = now - now % 3600
    if now - hour < 10:      # the job may have run in the hour before: wait for a stable picture
        time.sleep(10)
        now = int(time.time())
    start = f"start={time.strftime('%Y-%m-%dT%H:%M:%S', time.localtime(hour))}"
    wait_for(lambda: str(job) in cluster.run("sacct", "-X", "-n", "-o", "JobID", "-j", str(job)).stdout)
    expected = _alice_cpu_seconds(cluster, hour, now)
    assert expected >= 6

    top = cluster.run("sreport", "-n", "-P", "-t", "seconds", "user", "topusage", start, "end=now",
                      "users=alice", "format=Cluster,Login,Account,Used", check=True).stdout.splitlines()
    assert [line.split("|")[:2] for line in top] == [[cluster.spec.cluster_name, "alice"]] * len(top)
    assert sum(int(line.split("|")[3]) for line in top) == expected

    util = cluster.run("sreport", "-n", "-P", "-t", "seconds", "cluster", "utilization", start, "end=now",
                       check=True).stdout.split("|")
    name, allocated, down, planned_down, idle, reserved, reported = util
    assert name == cluster.spec.cluster_name
    assert int(allocated) >= expected and int(planned_down) == 0
    assert int(reported.strip()) == int(allocated) + int(down) + int(idle) + int(reserved)

    framed = cluster.run("sreport", "-t", "percent", "cluster", "utilization", start, "end=now",
                         check=True).stdout.splitlines()
    assert framed[0] == "-" * 80 and framed[1].startswith("Cluster Utilization ")
    assert framed[2] == "Usage reported in Percentage of Total"
    assert framed[4].split() == ["Cluster", "Allocate", "Down", "PLND", "Dow", "Idle", "Reserved", "Reported"]
    bad = cluster.run("sreport", "cluster", "nosuchreport")
    assert (bad.returncode, bad.stderr) == (1, "sreport: error: Not valid report cluster nosuchreport\n")
    missing = cluster.run("sreport", "job", "sizesbyaccount")
    assert missing.returncode == 1 and "not available in pyslurm" in missing.stderr
