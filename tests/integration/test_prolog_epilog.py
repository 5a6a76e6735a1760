"""Prolog and Epilog: run as root around each job; a failing Prolog requeues held and drains; a
launch cut short in the Prolog by a node agent's death is requeued."""
from __future__ import annotations

import dataclasses
import os
import signal
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec

from .conftest import Cluster, running_cluster, two_node_spec, wait_for

SCRIPT = """#!/bin/sh
echo "$SLURM_SCRIPT_CONTEXT job=$SLURM_JOB_ID user=$SLURM_JOB_USER as=$(id -u) exit=${{SLURM_JOB_EXIT_CODE:-none}}" >> {log}
while [ -e {hold} ]; do sleep 0.1; done
[ ! -e {fail} ]
"""


def _spec(root: Path, name: str) -> ClusterSpec:
    base = two_node_spec(root, name)
    scripts = root / "scripts"
    scripts.mkdir(parents=True)
    for kind in ("prolog", "epilog"):
        path = scripts / kind
        path.write_text(SCRIPT.format(log=root / f"{kind}.log", fail=root / f"fail-{kind}",
                                      hold=root / f"hold-{kind}"))
        os.chmod(path, 0o755)
    return dataclasses.replace(base, nodes=base.nodes[:1],
                               extra=(f"Prolog={scripts / 'prolog'}", f"Epilog={scripts / 'epilog'}"))


@pytest.fixture(scope="module")
def scripted() -> Iterator[Cluster]:
    with running_cluster(_spec) as c:
        yield c


def _root(cluster: Cluster) -> Path:
    return cluster.spec.conf_dir.parent


def test_prolog_and_epilog_run_as_root_with_the_job_environment(scripted: Cluster) -> None:
    job_id = scripted.sbatch("-o", "/dev/null", "--wrap", "exit 3", user="alice")
    scripted.wait_state(job_id, "FAILED")
    root = _root(scripted)
    assert f"prolog_slurmd job={job_id} user=alice as=0 exit=none" in (root / "prolog.log").read_text()
    wait_for(lambda: f"epilog_slurmd job={job_id} user=alice as=0 exit=3" in (root / "epilog.log").read_text())


def test_a_failing_prolog_requeues_the_job_held_and_drains_the_node(scripted: Cluster) -> None:
    root = _root(scripted)
    (root / "fail-prolog").touch()
    try:
        job_id = scripted.sbatch("-o", "/dev/null", "--wrap", "true", user="bob")
        wait_for(lambda: scripted.job_field(job_id, "r") == "JobHeldAdmin", timeout=20)
        assert scripted.job_field(job_id, "T") == "PENDING"
        show = scripted.run("scontrol", "show", "job", str(job_id)).stdout
        assert "Restarts=1" in show
        assert "node1 drain" in scripted.run("sinfo", "-h", "-N", "-o", "%N %t").stdout
        assert "Reason=Prolog error" in scripted.run("scontrol", "show", "node", "node1").stdout
        denied = scripted.run("scontrol", "release", str(job_id), user="bob")
        assert denied.returncode == 1  # an admin hold is the admin's to release
    finally:
        (root / "fail-prolog").unlink()
    scripted.run("scontrol", "update", "nodename=node1", "state=resume", check=True)
    scripted.run("scontrol", "release", str(job_id), check=True)
    scripted.wait_state(job_id, "COMPLETED")


def test_a_node_agent_killed_during_the_prolog_gets_the_job_requeued(scripted: Cluster) -> None:
    """Nothing of the job ran: the restarted agent forgets the launch, the controller, which no
    longer hears of the job from the node, requeues it, and the second run completes."""
    root = _root(scripted)
    hold = root / "hold-prolog"
    hold.touch()
    try:
        job_id = scripted.sbatch("-o", "/dev/null", "--wrap", "true", user="alice")
        wait_for(lambda: f"prolog_slurmd job={job_id} " in (root / "prolog.log").read_text(), timeout=20)
        scripted.stop("node1", signal.SIGKILL)
    finally:
        hold.unlink()                      # the orphaned Prolog ends
    scripted.start("node1")
    scripted.wait_state(job_id, "COMPLETED", timeout=60)
    assert "Restarts=1" in scripted.run("scontrol", "show", "job", str(job_id)).stdout
    assert (root / "prolog.log").read_text().count(f"prolog_slurmd job={job_id} ") == 2
