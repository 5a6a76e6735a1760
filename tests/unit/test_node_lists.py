"""-w/--nodelist and -x/--exclude: checked at submission, honoured by the scheduler
(pyslurm_ctld/core/admission.py, scheduler.py). Spec: cli-sbatch-srun-salloc.md §2 (shared options)."""
from __future__ import annotations

from pathlib import Path

import pytest
from tests.builders import make_manager, schedule, submit

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_ctld.model.job import JobState


def test_a_required_node_is_in_the_allocation_and_an_excluded_one_is_not(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    wanted = submit(mgr, required_nodes=("n2",))
    avoided = submit(mgr, excluded_nodes=("n1",))
    both = submit(mgr, required_nodes=("n1",), min_nodes=2)
    schedule(mgr)
    assert mgr.jobs[wanted.job_id].allocation.nodes == ("n2",)      # type: ignore[union-attr]
    assert mgr.jobs[avoided.job_id].allocation.nodes == ("n2",)     # type: ignore[union-attr]
    alloc = mgr.jobs[both.job_id].allocation
    assert alloc is not None and alloc.nodes[0] == "n1" and set(alloc.nodes) == {"n1", "n2"}


def test_a_required_node_that_is_busy_makes_the_job_wait(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    first = submit(mgr, required_nodes=("n1",), num_tasks=4, ntasks_given=True)
    second = submit(mgr, required_nodes=("n1",))
    schedule(mgr)
    assert mgr.jobs[first.job_id].state is JobState.RUNNING
    assert mgr.jobs[second.job_id].state is JobState.PENDING       # n2 is free, but not the one asked for


def test_the_node_list_sets_the_node_count(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    assert submit(mgr, required_nodes=("n1", "n2")).request.min_nodes == 2


@pytest.mark.parametrize("request_fields, strerror", [
    ({"required_nodes": ("nosuch",)}, Strerror.INVALID_NODE_NAME),
    ({"excluded_nodes": ("nosuch",)}, Strerror.INVALID_NODE_NAME),
    ({"required_nodes": ("n2",), "partition": "long"}, Strerror.BAD_NODE_CONFIG),    # long has n1 only
    ({"required_nodes": ("n1",), "excluded_nodes": ("n1",)}, Strerror.BAD_NODE_CONFIG),
])
def test_impossible_node_lists_are_refused(tmp_path: Path, request_fields: dict[str, object],
                                           strerror: Strerror) -> None:
    mgr = make_manager(tmp_path)
    with pytest.raises(SlurmError) as info:
        submit(mgr, **request_fields)
    assert info.value.strerror == strerror
