"""Pending reasons that block nobody (scheduling-policy.md §2.2: "down nodes explicitly
requested" do not block the partition): ReqNodeNotAvail, shown by squeue and scontrol with the
unavailable nodes (cli-squeue-sinfo-scontrol-scancel.md §0.5)."""
from __future__ import annotations

from pathlib import Path

from pyslurm_common.hostlist import compress
from pyslurm_ctld.translate import convert
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.model.job import JobId, JobState, Reason
from pyslurm_ctld.sched.scheduler import Pend, Start, schedule

from test_explain import lines_of
from pyslurm_common.errors import Strerror
from tests.builders import error_of, make_manager, submit
from test_scheduler import by_name, job, node, partition


def test_a_job_asking_for_a_drained_node_waits_with_req_node_not_avail_and_blocks_nobody() -> None:
    nodes = by_name(node("n1", usable=False), node("n2"))
    parts = {"batch": partition("batch", ["n1", "n2"])}
    decisions = schedule([job(1, required_nodes=("n1",)), job(2)], nodes, parts)
    assert decisions[0] == Pend(JobId(1), Reason.REQ_NODE_NOT_AVAIL)
    assert isinstance(decisions[1], Start) and decisions[1].allocation.nodes == ("n2",)


def unavailable(mgr: ClusterState, job_id: JobId) -> tuple[str, ...]:
    job = mgr.jobs[job_id]
    return tuple(n for n in job.request.required_nodes if not mgr.nodes[n].usable)


def test_squeue_and_explain_name_the_unavailable_nodes(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    mgr.nodes["n1"].drain = True
    waiting = submit(mgr, required_nodes=("n1",))
    schedule_pass(mgr, 200)
    assert mgr.jobs[waiting.job_id].state is JobState.PENDING
    info = convert.job_info(mgr.jobs[waiting.job_id], 200, None, unavailable(mgr, waiting.job_id))
    assert info.reason == "ReqNodeNotAvail, UnavailableNodes:n1"
    assert lines_of(mgr, waiting)[2] == (f"It asked for {compress(('n1',))} (-w), and n1 is down or drained: "
                                         "it waits until they are back in service.")


def test_a_job_whose_partition_has_no_node_up_says_so_in_slurms_words() -> None:
    """Real Slurm 22.05.8, its one node drained: `sbatch --wrap true` pends with "Nodes required for
    job are DOWN, DRAINED or reserved for jobs in higher priority partitions" (`-w` the node:
    ReqNodeNotAvail, UnavailableNodes:<node>; `-x` the node: refused)."""
    nodes = by_name(node("n1", usable=False), node("n2", usable=False))
    parts = {"batch": partition("batch", ["n1", "n2"])}
    assert schedule([job(1)], nodes, parts) == [Pend(JobId(1), Reason.NODES_UNAVAILABLE)]
    nodes = by_name(node("n1", usable=False), node("n2", cpus=1))
    assert schedule([job(1, num_tasks=2)], nodes, parts)[0] == Pend(JobId(1), Reason.RESOURCES)


def test_excluding_every_node_is_refused(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    assert error_of(submit, mgr, partition="long", excluded_nodes=("n1",)).strerror == Strerror.BAD_NODE_CONFIG
    assert submit(mgr, excluded_nodes=("n1",)).request.excluded_nodes == ("n1",)   # debug has n2 too
