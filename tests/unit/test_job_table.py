"""The MaxJobCount tally of the job table (pyslurm_ctld/model/job_table.py) against a full count.

Every state change the manager makes goes through the table; after each step of a mixed life
(plain jobs, arrays splitting tasks off, cancels, ends, purges, recovery by replay) the kept
tally must equal the count Slurm's definition gives: active jobs, an array's remainder counting
its pending tasks.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.cancel import cancellation
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.timers import purgeable
from pyslurm_ctld.model.job_table import JobTable, active_weight, held_nodes, in_play

from test_job_arrays import submit_array
from tests.builders import ALICE, finish, make_manager, schedule, submit


def full_count(mgr: ClusterState) -> int:
    """The tally recounted, after checking the per-node index and the jobs in play against a full
    walk too."""
    for node in mgr.nodes:
        assert sorted(j.job_id for j in mgr.jobs.on_node(node)) == \
            sorted(j.job_id for j in mgr.jobs.values() if node in held_nodes(j))
    assert sorted(j.job_id for j in mgr.jobs.in_play()) == sorted(j.job_id for j in mgr.jobs.values() if in_play(j))
    return sum(active_weight(job) for job in mgr.jobs.values())


def test_tally_follows_every_change_of_a_mixed_life(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, "MaxJobCount=100\nMinJobAge=2\n")
    steps = [lambda: submit(mgr), lambda: submit_array(mgr, "1-6", cpus_per_task=4),
             lambda: submit(mgr, hold=True), lambda: schedule(mgr, now=200)]
    for step in steps:
        step()
        assert mgr.jobs.active_count == full_count(mgr)
    assert mgr.jobs.active_count == 1 + 6 + 1   # the split-off tasks count themselves, the remainder the rest
    assert sum(len(list(mgr.jobs.on_node(n))) for n in mgr.nodes) == 3   # the plain job and two 4-CPU tasks
    for job in [j for j in mgr.jobs.values() if j.state.name == "RUNNING"]:
        finish(mgr, job.job_id, now=300)
        assert mgr.jobs.active_count == full_count(mgr)
    # what a scheduling pass walks: not the jobs finished for good
    assert {j.state.name for j in mgr.jobs.in_play()} == {"PENDING"}
    assert {j.state.name for j in mgr.jobs.values()} == {"PENDING", "COMPLETED"}
    held = next(j for j in mgr.jobs.values() if j.state.name == "PENDING" and j.array is None)
    apply(mgr, cancellation(mgr, held.job_id, ALICE, now=310))
    assert mgr.jobs.active_count == full_count(mgr)
    purge = purgeable(mgr, 10_000)
    assert purge is not None
    apply(mgr, purge)
    assert mgr.jobs.active_count == full_count(mgr) > 0

    replayed = make_manager(tmp_path)
    for event in mgr.snapshot_events():
        apply(replayed, event)
    assert replayed.jobs.active_count == mgr.jobs.active_count


def test_table_refuses_bulk_changes_that_would_skip_the_tally(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr)
    table = JobTable([job])
    assert table.active_count == 1
    with pytest.raises(TypeError):
        table.update({job.job_id: job})
    assert table.pop(job.job_id) is job and table.active_count == 0
    assert table.pop(job.job_id, None) is None
    with pytest.raises(KeyError):
        table.pop(job.job_id)
