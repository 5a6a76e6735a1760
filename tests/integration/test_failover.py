"""A backup controller: two SlurmctldHost lines sharing one StateSaveLocation. The primary
runs on a second "machine" (a network namespace with its own address,
tests/integration/netns.py), the backup here, beside the node agents, accounting and the
auth agent; each controller finds its SlurmctldHost line by its own address.

The primary is killed with SIGKILL; within SlurmctldTimeout the backup takes the state lock,
replays the shared journal and serves: the running job finishes, the held one is still
there, and sbatch, squeue and the node agents reach it by trying the controllers in order.
A returning primary takes control back; `scontrol takeover` hands it to the backup again.
"""
from __future__ import annotations

import dataclasses
import signal
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import NodeSpec

from .conftest import BIN, Cluster, running_cluster, two_node_spec, wait_for
from .netns import SeparateHost, separate_host

# A command waits up to 1.5 x SlurmctldTimeout for a backup standing by to take over (Slurm's
# rule), so the backup has half of SlurmctldTimeout to replay the journal and serve once it has;
# SlurmdTimeout is longer than a primary's hang, or its nodes would be down when it resumes.
SLURMCTLD_TIMEOUT = 6
SLURMD_TIMEOUT = 3 * SLURMCTLD_TIMEOUT
MARGIN = 15        # start-up of the backup's controller and a node agent's next heartbeat


@pytest.fixture(scope="module")
def primary_host() -> Iterator[SeparateHost]:
    with separate_host("10.251.81") as host:
        yield host


@pytest.fixture(scope="module")
def lab(primary_host: SeparateHost) -> Iterator[Cluster]:
    here = primary_host.gateway   # this host's address on the link to the primary's

    def spec(root: Path, name: str):  # type: ignore[no-untyped-def]
        base = two_node_spec(root, name)
        return dataclasses.replace(
            base, controller_host="ctla", controller_addr=primary_host.address, slurmd_timeout=SLURMD_TIMEOUT,
            nodes=tuple(NodeSpec(n.name, n.cpus, n.real_memory_mb, address=here, port=n.port) for n in base.nodes),
            extra=(f"SlurmctldHost=ctlb({here})", f"SlurmctldTimeout={SLURMCTLD_TIMEOUT}",
                   f"AccountingStorageHost={here}"))

    with running_cluster(spec, wait_idle=False, start_controller=False) as c:
        start_controller(c, primary_host, "ctla")
        start_controller(c, None, "ctlb")
        c.wait_idle()
        # the nodes reach the primary before the backup's standby server is up
        wait_for(lambda: ping(c) == BOTH_UP, timeout=MARGIN)
        yield c


def start_controller(lab: Cluster, host: SeparateHost | None, name: str) -> None:
    """pyslurmctld on `host` (None: this one), as systemd would start it there."""
    log = (lab.spec.log_dir / f"{name}.stderr").open("ab")
    argv = [str(BIN / "pyslurmctld")]
    lab.procs[name] = subprocess.Popen(host.command(*argv) if host else argv, env=lab.env, stdout=log,
                                       stderr=log, stdin=subprocess.DEVNULL)


def ping(lab: Cluster) -> str:
    return lab.run("scontrol", "ping", user="alice").stdout


BOTH_UP = "Slurmctld(primary) at ctla is UP\nSlurmctld(backup) at ctlb is UP\n"
PRIMARY_DOWN = "Slurmctld(primary) at ctla is DOWN\nSlurmctld(backup) at ctlb is UP\n"


def state_lock_holder(lab: Cluster) -> str:
    return (lab.spec.state_dir / "ctld" / "controller.lock").read_text().split()[0]


def test_both_controllers_answer_ping_and_the_primary_serves(lab: Cluster) -> None:
    result = lab.run("scontrol", "ping", user="alice")
    assert (result.stdout, result.returncode) == (BOTH_UP, 0)
    assert state_lock_holder(lab) == "ctla"
    shown = lab.run("scontrol", "show", "config").stdout
    assert "SlurmctldHost[0]        = ctla(10.251.81.2)\nSlurmctldHost[1]        = ctlb(10.251.81.1)\n" in shown


def test_a_hung_primary_keeps_the_state_from_the_backup(lab: Cluster) -> None:
    """Alive but not answering (SIGSTOP): the primary still holds the state lock, so the backup
    waits instead of writing the journal beside it; the primary carries on when it resumes."""
    primary = lab.procs["ctla"]
    primary.send_signal(signal.SIGSTOP)
    try:
        wait_for(lambda: f"not taking over yet: ctla pid {primary.pid} still holds" in
                 (lab.spec.log_dir / "pyslurmctld.log").read_text(), timeout=SLURMCTLD_TIMEOUT + MARGIN)
        assert state_lock_holder(lab) == "ctla"
    finally:
        primary.send_signal(signal.SIGCONT)
    wait_for(lambda: ping(lab) == BOTH_UP, timeout=MARGIN)
    job = lab.sbatch("-o", "/dev/null", "--wrap", "true", user="alice")
    lab.wait_state(job, "COMPLETED")
    assert state_lock_holder(lab) == "ctla"


def test_the_backup_takes_over_when_the_primary_dies(lab: Cluster) -> None:
    running = lab.sbatch("-o", "/dev/null", "--wrap", "sleep 6", user="alice")
    lab.wait_state(running, "RUNNING")
    held = lab.sbatch("--hold", "-o", "/dev/null", "--wrap", "true", user="bob")
    lab.stop("ctla", signal.SIGKILL)
    # In the failover itself (no controller in charge until SlurmctldTimeout has passed), commands
    # wait for the backup and succeed, as Slurm's do: no "Unable to contact slurm controller".
    during = lab.run("sbatch", "--parsable", "-o", "/dev/null", "--wrap", "true", user="alice")
    assert (during.returncode, during.stderr) == (0, "")
    assert int(during.stdout) > held
    listed = lab.run("squeue", "-h", "-j", str(held), "-o", "%i %T", user="bob")
    assert (listed.returncode, listed.stdout, listed.stderr) == (0, f"{held} PENDING\n", "")
    wait_for(lambda: ping(lab) == PRIMARY_DOWN and lab.job_field(held, "T") == "PENDING",
             timeout=SLURMCTLD_TIMEOUT + MARGIN)
    log = (lab.spec.log_dir / "pyslurmctld.log").read_text()   # both controllers write it (shared)
    assert f"taking over control (no controller answered for {SLURMCTLD_TIMEOUT}s)" in log
    assert state_lock_holder(lab) == "ctlb"
    assert lab.job_field(held, "r") == "JobHeldUser"
    lab.wait_state(running, "COMPLETED", timeout=30)      # the node agent reports to the backup
    new = lab.sbatch("-o", "/dev/null", "--wrap", "true", user="alice")
    assert new > held
    lab.wait_state(new, "COMPLETED")
    lab.run("scontrol", "release", str(held), user="bob", check=True)
    lab.wait_state(held, "COMPLETED")


def test_only_an_administrator_may_order_a_takeover(lab: Cluster) -> None:
    result = lab.run("scontrol", "takeover", user="alice")
    assert (result.stderr, result.returncode) == ("scontrol: error: slurm_takeover error: Access/permission denied\n", 1)


def test_a_returning_primary_takes_control_back(lab: Cluster, primary_host: SeparateHost) -> None:
    before = lab.sbatch("--hold", "-o", "/dev/null", "--wrap", "true", user="alice")
    start_controller(lab, primary_host, "ctla")
    wait_for(lambda: state_lock_holder(lab) == "ctla" and ping(lab) == BOTH_UP, timeout=MARGIN + 10)
    assert lab.job_field(before, "T") == "PENDING"
    lab.run("scancel", str(before), user="alice", check=True)
    job = lab.sbatch("-o", "/dev/null", "--wrap", "true", user="alice")
    lab.wait_state(job, "COMPLETED")


def test_takeover_hands_control_to_the_backup_and_stops_the_primary(lab: Cluster) -> None:
    wait_for(lambda: state_lock_holder(lab) == "ctla", timeout=MARGIN)
    waiting = lab.sbatch("--hold", "-o", "/dev/null", "--wrap", "true", user="bob")
    lab.run("scontrol", "takeover", check=True)
    # right after the takeover (the primary stopping, the backup not yet serving) commands wait
    after = lab.run("squeue", "-h", "-j", str(waiting), "-o", "%i %T", user="bob")
    assert (after.returncode, after.stdout, after.stderr) == (0, f"{waiting} PENDING\n", "")
    submitted = lab.run("sbatch", "--parsable", "-o", "/dev/null", "--wrap", "true", user="alice")
    assert (submitted.returncode, submitted.stderr) == (0, "")
    primary = lab.procs["ctla"]
    wait_for(lambda: primary.poll() is not None, timeout=MARGIN)
    assert primary.returncode == 0
    del lab.procs["ctla"]
    wait_for(lambda: ping(lab) == PRIMARY_DOWN and lab.job_field(waiting, "T") == "PENDING", timeout=MARGIN)
    assert state_lock_holder(lab) == "ctlb"
    lab.run("scontrol", "release", str(waiting), user="bob", check=True)
    lab.wait_state(waiting, "COMPLETED")
