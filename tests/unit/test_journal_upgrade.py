"""A new version reads the journal an old one wrote: upgrading pyslurmctld keeps every job.

tests/unit/journals/v1.jsonl is the live journal of a real cluster of the first journal format
(written by tests/integration's two-node cluster): finished, failed, cancelled jobs, a job with
srun steps, an array, a running job, a held job, one waiting on a dependency, a drained node.
Keep each format's file when the format changes; replaying must give the same jobs forever.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pyslurm_common.config import load_config
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.model.events import event_from_dict, event_to_dict
from pyslurm_ctld.model.job import JobId, JobState
from pyslurm_ctld.shell.journal import Journal

JOURNALS = Path(__file__).parent / "journals"
ALICE, BOB = 1001, 1002

# The cluster that wrote it (tests/integration/conftest.two_node_spec).
CONF = """\
ClusterName=it
SlurmctldHost=localhost(127.0.0.1)
NodeName=node1 CPUs=2 RealMemory=1000
NodeName=node2 CPUs=2 RealMemory=1000
PartitionName=debug Nodes=node1,node2 Default=YES MaxTime=INFINITE State=UP
"""


def replayed(directory: Path, tmp_path: Path) -> ClusterState:
    (tmp_path / "slurm.conf").write_text(CONF)
    manager = ClusterState(load_config(tmp_path / "slurm.conf"), slurm_uid=0)
    for data in Journal(directory).replay():
        apply(manager, event_from_dict(data))
    return manager


@pytest.fixture
def v1(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    state.mkdir()
    shutil.copy(JOURNALS / "v1.jsonl", state / "journal.jsonl")
    return state


def test_every_job_of_a_v1_journal_comes_back(v1: Path, tmp_path: Path) -> None:
    manager = replayed(v1, tmp_path)
    states = {int(job_id): (job.request.name, job.state, job.uid) for job_id, job in manager.jobs.items()}
    assert states == {
        1: ("done", JobState.COMPLETED, ALICE),
        2: ("failed", JobState.FAILED, BOB),
        3: ("steps", JobState.COMPLETED, ALICE),
        4: ("arr", JobState.COMPLETED, ALICE),
        5: ("arr", JobState.COMPLETED, ALICE),
        6: ("arr", JobState.COMPLETED, ALICE),
        7: ("cancelled", JobState.CANCELLED, BOB),
        8: ("running", JobState.RUNNING, ALICE),
        9: ("held", JobState.PENDING, BOB),
        10: ("dep", JobState.PENDING, ALICE),
    }
    running = manager.jobs[JobId(8)]
    assert running.allocation is not None and running.allocation.nodes == ("node1",)
    assert [step.name for step in manager.jobs[JobId(3)].steps] == ["true", "hostname"]
    assert manager.jobs[JobId(2)].exit_code == 3
    assert str(manager.jobs[JobId(9)].reason) == "JobHeldUser"
    dependency = manager.jobs[JobId(10)].dependency
    assert dependency is not None and dependency.targets() == {8}
    node2 = manager.nodes["node2"]
    assert (node2.drain, node2.reason) == (True, "disk")


def test_a_v1_journal_compacts_and_replays_to_the_same_jobs(v1: Path, tmp_path: Path) -> None:
    """What a restart does after the upgrade: replay, compact (rewrite), replay again."""
    first = replayed(v1, tmp_path)
    compacted = tmp_path / "compacted"
    journal = Journal(compacted)
    journal.rewrite(event_to_dict(e) for e in first.snapshot_events())
    journal.close()
    second = replayed(compacted, tmp_path)
    assert second.jobs == first.jobs
    assert second.next_job_id == first.next_job_id == 11
