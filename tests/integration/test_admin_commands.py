"""scontrol ping, scontrol show config and sdiag against the real daemons.

Spec: cli-squeue-sinfo-scontrol-scancel.md §3.5-3.6 (show config, ping), Slurm's sdiag layout.
"""
from __future__ import annotations

import re

from .conftest import Cluster, wait_for

BANNER = ("*****************************************\n"
          "** RESTORE SLURMCTLD DAEMON TO SERVICE **\n"
          "*****************************************\n")


def test_ping_says_up_or_down_with_slurms_words_and_exit_code(cluster: Cluster) -> None:
    up = cluster.run("scontrol", "ping", user="alice")
    assert (up.returncode, up.stdout) == (0, "Slurmctld(primary) at localhost is UP\n")
    cluster.stop("ctld")
    try:
        down = cluster.run("scontrol", "ping", user="alice")
        assert (down.returncode, down.stdout) == (1, "Slurmctld(primary) at localhost is DOWN\n")
        as_root = cluster.run("scontrol", "ping")
        assert (as_root.returncode, as_root.stdout) == (1, "Slurmctld(primary) at localhost is DOWN\n" + BANNER)
    finally:
        cluster.start("ctld")
    wait_for(lambda: cluster.run("scontrol", "ping").returncode == 0)
    cluster.wait_idle()


def test_show_config_shows_the_spec_keys_and_the_cgroup_backend_in_use(cluster: Cluster) -> None:
    out = cluster.run("scontrol", "show", "config", user="bob").stdout
    main, _, cgroup = out.partition("\n\nCgroup Support Configuration:\n")
    assert re.match(r"^Configuration data as of \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n", main)
    lines = dict(line.split(" = ", 1) for line in main.splitlines()[1:])
    values = {key.rstrip(): value for key, value in lines.items()}
    assert values["ClusterName"] == cluster.spec.cluster_name
    assert values["SlurmctldHost[0]"] == "localhost(127.0.0.1)"
    assert values["ReturnToService"] == "1" and values["SlurmdTimeout"] == "4 sec"
    assert values["SlurmctldLogFile"] == str(cluster.spec.log_dir / "pyslurmctld.log")
    assert values["SlurmctldDebug"] == "info" and values["ProctrackType"] == "proctrack/cgroup"
    assert values["AccountingStorageType"] == "accounting_storage/slurmdbd"
    # Keys SchedMD's testsuite reads, with what this controller runs (Slurm prints them all).
    assert values["PriorityType"] == "priority/basic" and values["SwitchType"] == "switch/none"
    assert values["PreemptType"] == "preempt/none" and values["MaxNodeCount"] == "2"
    assert out.endswith("\n\nSlurmctld(primary) at localhost is UP\n")
    backend = re.search(r"^CgroupPlugin\s+= autodetect \((cgroup/v[12])\)$", cgroup, re.M)
    assert backend is not None, cgroup
    agent_log = (cluster.spec.log_dir / "pyslurmd-node1.log").read_text()
    detected = re.search(r"cgroup (v2|hybrid) at ", agent_log)
    assert detected is not None
    assert backend.group(1) == {"v2": "cgroup/v2", "hybrid": "cgroup/v1"}[detected.group(1)]
    assert re.search(r"^ConstrainCores\s+= yes$", cgroup, re.M)


def sdiag_counts(cluster: Cluster) -> dict[str, int]:
    out = cluster.run("sdiag", user="alice").stdout
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^\t?([A-Za-z ]+):\s+(\d+)$", out, re.M)}


def test_sdiag_counts_what_really_happened(cluster: Cluster) -> None:
    before = sdiag_counts(cluster)
    ok = cluster.sbatch("-o", "/dev/null", "--wrap", "true", user="alice")
    bad = cluster.sbatch("-o", "/dev/null", "--wrap", "exit 3", user="alice")
    held = cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "true", user="bob")
    cluster.wait_state(ok, "COMPLETED")
    cluster.wait_state(bad, "FAILED")
    pending = sdiag_counts(cluster)
    assert pending["Jobs pending"] >= 1
    cluster.run("scancel", str(held), check=True)
    after = sdiag_counts(cluster)
    changed = {key: after[key] - before[key] for key in
               ("Jobs submitted", "Jobs started", "Jobs completed", "Jobs canceled", "Jobs failed")}
    assert changed == {"Jobs submitted": 3, "Jobs started": 2, "Jobs completed": 1, "Jobs canceled": 1,
                       "Jobs failed": 1}
    assert after["Total cycles"] > before["Total cycles"] and after["Server thread count"] >= 1
    assert after["Max cycle"] >= after["Last cycle"]
