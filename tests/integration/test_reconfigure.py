"""scontrol reconfigure and SIGHUP: configuration changes apply to the running daemons without
losing jobs; a bad configuration is refused with file:line and the old one kept.

Spec: config-slurm-conf.md §1 (SIGHUP / scontrol reconfigure), cli-squeue-sinfo-scontrol-scancel.md
§3.6 (reconfigure is for administrators).
"""
from __future__ import annotations

import re
import signal
import time
from pathlib import Path
from typing import Iterator

import pytest

from .conftest import Cluster, running_cluster, two_node_spec, wait_for


@pytest.fixture(scope="module")
def lab() -> Iterator[Cluster]:
    with running_cluster(two_node_spec) as c:
        yield c


@pytest.fixture()
def conf(lab: Cluster) -> Iterator[Path]:
    """slurm.conf of the module's cluster, put back (and re-read) after each test."""
    path = lab.spec.slurm_conf
    original = path.read_text()
    cgroup_conf = path.parent / "cgroup.conf"
    original_cgroup = cgroup_conf.read_text()
    yield path
    path.write_text(original)
    cgroup_conf.write_text(original_cgroup)
    lab.run("scontrol", "reconfigure", check=True)


def log_of(lab: Cluster, daemon: str) -> str:
    return (lab.spec.log_dir / f"{daemon}.log").read_text()


def test_reconfigure_applies_partition_changes_and_keeps_running_and_pending_jobs(lab: Cluster, conf: Path) -> None:
    running = lab.sbatch("-o", "/dev/null", "--wrap", "sleep 300", user="alice")
    held = lab.sbatch("--hold", "-o", "/dev/null", "--wrap", "true", user="bob")
    lab.wait_state(running, "RUNNING")
    text = conf.read_text().replace("MaxTime=INFINITE", "MaxTime=30")
    conf.write_text(text + "PartitionName=extra Nodes=node2 MaxTime=10\n")
    result = lab.run("scontrol", "reconfigure")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    parts = lab.run("sinfo", "-h", "-o", "%P %l %N").stdout.split("\n")
    assert "debug* 30:00 node[1-2]" in parts and "extra 10:00 node2" in parts
    assert lab.job_field(running, "T") == "RUNNING" and lab.job_field(held, "T") == "PENDING"
    # A job in the new partition runs; every node agent re-read its configuration too.
    extra = lab.sbatch("-p", "extra", "-o", "/dev/null", "--wrap", "true", user="bob")
    lab.wait_state(extra, "COMPLETED")
    for node in ("node1", "node2"):
        wait_for(lambda: "reconfigured from" in log_of(lab, f"pyslurmd-{node}"))
    lab.run("scancel", str(running), str(held), check=True)


def test_a_bad_configuration_is_refused_with_file_and_line_and_the_old_one_kept(lab: Cluster, conf: Path) -> None:
    lines = conf.read_text().splitlines()
    conf.write_text("\n".join([*lines, "PartitionName=never Nodes=node1", "KillWait=soon"]) + "\n")
    bad_line = len(lines) + 2
    result = lab.run("scontrol", "reconfigure")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == (f"scontrol: error: {conf}:{bad_line}: invalid KillWait value 'soon': expected an integer\n"
                             "slurm_reconfigure error: Invalid argument\n")
    assert f"reconfigure refused, keeping the running configuration: {conf}:{bad_line}: invalid KillWait" \
        in log_of(lab, "pyslurmctld")
    assert "never" not in lab.run("sinfo", "-h", "-o", "%P").stdout
    config = lab.run("scontrol", "show", "config").stdout
    assert "KillWait                = 3 sec" in config.split("\n")


def test_an_out_of_range_number_is_refused_and_sinfo_keeps_working(lab: Cluster, conf: Path) -> None:
    huge = "99999999999999999999999"
    lines = conf.read_text().splitlines()
    number = next(i for i, line in enumerate(lines, 1) if line.startswith("NodeName=node1 "))
    lines[number - 1] = re.sub(r"RealMemory=\d+", f"RealMemory={huge}", lines[number - 1])
    conf.write_text("\n".join(lines) + "\n")
    result = lab.run("scontrol", "reconfigure")
    assert result.stderr == (f"scontrol: error: {conf}:{number}: RealMemory value ({huge}) is out of range\n"
                             "slurm_reconfigure error: Invalid argument\n")
    assert f"reconfigure refused, keeping the running configuration: {conf}:{number}: RealMemory value" \
        in log_of(lab, "pyslurmctld")
    assert lab.run("sinfo", "-h", "-N", "-o", "%N %m", user="alice").stdout == "node1 1000\nnode2 1000\n"


def test_a_change_that_needs_a_restart_is_refused(lab: Cluster, conf: Path) -> None:
    conf.write_text(conf.read_text().replace(f"SlurmctldPort={lab.spec.ctld_port}", "SlurmctldPort=1"))
    result = lab.run("scontrol", "reconfigure")
    assert result.returncode == 1
    assert f"SlurmctldPort changed ({lab.spec.ctld_port} -> 1): restart pyslurmctld to change it" in result.stderr


def test_only_administrators_may_reconfigure(lab: Cluster, conf: Path) -> None:
    result = lab.run("scontrol", "reconfigure", user="alice")
    assert (result.returncode, result.stderr) == (1, "slurm_reconfigure error: Invalid user id\n")


def test_sighup_reconfigures_the_controller_and_survives_a_bad_file(lab: Cluster, conf: Path) -> None:
    good = conf.read_text() + "PartitionName=hup Nodes=node1\n"
    conf.write_text(good)
    lab.procs["ctld"].send_signal(signal.SIGHUP)
    wait_for(lambda: "hup" in lab.run("sinfo", "-h", "-o", "%P").stdout.split())
    refusals = log_of(lab, "pyslurmctld").count("reconfigure refused")
    conf.write_text(good + "NodeName=node1 CPUs=1\n")     # a duplicate node: refused
    lab.procs["ctld"].send_signal(signal.SIGHUP)
    wait_for(lambda: log_of(lab, "pyslurmctld").count("reconfigure refused") > refusals)
    assert "duplicate NodeName 'node1'" in log_of(lab, "pyslurmctld").split("reconfigure refused")[-1]
    assert lab.procs["ctld"].poll() is None
    assert lab.run("scontrol", "ping").returncode == 0


def test_sighup_reconfigures_a_node_agent_and_a_bad_cgroup_conf_is_refused(lab: Cluster, conf: Path) -> None:
    cgroup_conf = conf.parent / "cgroup.conf"
    cgroup_conf.write_text(cgroup_conf.read_text() + "AllowedRAMSpace=lots\n")
    lab.procs["node1"].send_signal(signal.SIGHUP)
    wait_for(lambda: f"reconfigure refused, keeping the running configuration: {cgroup_conf}:4: "
             "invalid AllowedRAMSpace" in log_of(lab, "pyslurmd-node1"))
    assert lab.procs["node1"].poll() is None
    lab.wait_idle()
    job = lab.sbatch("-N", "2", "-o", "/dev/null", "--wrap", "true", user="alice")
    lab.wait_state(job, "COMPLETED")


# ---- logging ------------------------------------------------------------------------------------

SLURM_LINE = re.compile(r"^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\] (?:(?:error|warning|fatal|debug\d?): +)?\S")


@pytest.mark.parametrize("daemon,proc", [("pyslurmctld", "ctld"), ("pyslurmd-node1", "node1"),
                                         ("pyslurmdbd", "dbd")])
def test_daemons_log_in_slurms_format_and_reopen_their_file_on_sigusr2(lab: Cluster, daemon: str, proc: str) -> None:
    path = lab.spec.log_dir / f"{daemon}.log"
    lines = path.read_text().splitlines()
    assert lines and [line for line in lines if not SLURM_LINE.match(line)] == []
    path.rename(path.with_name(f"{daemon}.log.1"))     # what logrotate does
    lab.procs[proc].send_signal(signal.SIGUSR2)
    wait_for(path.exists)
    assert lab.procs[proc].poll() is None
    if proc != "dbd":   # a line logged after the rotation lands in the new file
        lab.run("scontrol", "reconfigure", check=True)
        wait_for(lambda: "reconfigure" in path.read_text())


def test_debug_levels_follow_the_configuration_on_reconfigure(lab: Cluster, conf: Path) -> None:
    ctld_log, node_log = lab.spec.log_dir / "pyslurmctld.log", lab.spec.log_dir / "pyslurmd-node1.log"

    def slurmd_start() -> str:
        return re.findall(r"SlurmdStartTime=\S+", lab.run("scontrol", "show", "node", "node1").stdout)[0]

    reconfigured, registered, started = (ctld_log.read_text().count("reconfigured from"),
                                         node_log.read_text().count("registered as node1"), slurmd_start())
    time.sleep(1)   # SlurmdStartTime has a resolution of one second
    conf.write_text(conf.read_text() + "SlurmctldDebug=error\nSlurmdDebug=error\n")
    lab.run("scontrol", "reconfigure", check=True)
    wait_for(lambda: slurmd_start() != started)          # node1 re-read its files and registered again
    assert ctld_log.read_text().count("reconfigured from") == reconfigured
    assert node_log.read_text().count("registered as node1") == registered
    conf.write_text(conf.read_text().replace("SlurmctldDebug=error", "SlurmctldDebug=verbose"))
    lab.run("scontrol", "reconfigure", check=True)
    assert ctld_log.read_text().count("reconfigured from") == reconfigured + 1


def test_the_accounting_daemon_re_reads_its_log_settings_on_sighup(lab: Cluster) -> None:
    dbd_conf = lab.spec.conf_dir / "slurmdbd.conf"
    original = dbd_conf.read_text()
    dbd_log = lab.spec.log_dir / "pyslurmdbd.log"
    try:
        dbd_conf.write_text(original + "DebugLevel=debug2\n")
        lab.procs["dbd"].send_signal(signal.SIGHUP)
        wait_for(lambda: "log settings re-read: level debug2" in dbd_log.read_text())
        dbd_conf.write_text(original + "DebugLevel=loud\n")
        lab.procs["dbd"].send_signal(signal.SIGHUP)
        wait_for(lambda: f"{dbd_conf}:{len(original.splitlines()) + 1}: invalid DebugLevel value 'loud'"
                 in dbd_log.read_text())
        assert lab.procs["dbd"].poll() is None
    finally:
        dbd_conf.write_text(original)
        lab.procs["dbd"].send_signal(signal.SIGHUP)
    job = lab.sbatch("-o", "/dev/null", "--wrap", "true", user="bob")
    lab.wait_state(job, "COMPLETED")
    wait_for(lambda: lab.run("sacct", "-n", "-X", "-P", "-j", str(job), "-o", "State", user="bob").stdout
             == "COMPLETED\n")
