"""The status page's HTML (pyslurm_restd.status_html) and visibility rule (status_data)."""
from __future__ import annotations

from pyslurm_common.rpc import ctld_pb2, types_pb2
from pyslurm_restd.status_data import ClusterView, FinishedJob, private_jobs
from pyslurm_restd.status_html import efficiency, page


def _view() -> ClusterView:
    view = ClusterView(viewer="alice", anonymous=False, cluster="lab", now=10_000)
    view.nodes = [ctld_pb2.NodeInfo(name="gpu1", state="MIXED", cpus=8, alloc_cpus=2, real_memory_mb=4096,
                                    alloc_memory_mb=1024, gres="gpu:2", gres_used="gpu:1(IDX:0)")]
    view.pending = [types_pb2.JobInfo(job_id=7, name="<script>alert(1)</script>", user_name="alice",
                                      partition="debug", state="PENDING", reason="Resources", time_limit_min=-1)]
    view.explanations = {7: "It is the job of highest priority waiting for resources in its partition."}
    view.running = [types_pb2.JobInfo(job_id=8, name="train", state="RUNNING", start_time=9_000,
                                      time_limit_min=60, num_cpus=2, partition="debug")]
    return view


def test_every_cluster_value_is_escaped() -> None:
    html = page(_view())
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "It is the job of highest priority" in html and "UNLIMITED" in html
    assert "16:40" in html and "43:20" in html        # elapsed and time left of job 8
    assert "1/2" in html                                # GPUs allocated of total
    assert 'content="10"' in html and "Log out" in html


def test_efficiency_as_seff() -> None:
    job = FinishedJob(types_pb2.JobInfo(start_time=0 + 100, end_time=200, num_cpus=2, mem_per_node_mb=1000,
                                        num_nodes=1), cpu_seconds=100, max_rss_kb=512_000)
    assert efficiency(job) == ("50%", "50%")
    assert efficiency(FinishedJob(types_pb2.JobInfo(), 0, 0)) == ("-", "-")


def test_private_data_jobs() -> None:
    assert private_jobs("jobs,usage") and not private_jobs("usage") and not private_jobs("")


class _Daemons:
    """The controller and accounting answers the page asks for (a recording fake of Upstream)."""

    def __init__(self) -> None:
        from pyslurm_common.rpc import dbd_pb2

        self.jobs = ctld_pb2.JobList(jobs=[types_pb2.JobInfo(job_id=1, user_name="alice", state="PENDING"),
                                           types_pb2.JobInfo(job_id=2, user_name="bob", state="RUNNING")])
        self.users = dbd_pb2.AssociationEntities(users=[dbd_pb2.UserRecord(name="olga", admin_level="Operator")])
        self.asked: list[str] = []

    async def call(self, caller, method, request, reply_type):  # type: ignore[no-untyped-def]
        self.asked.append(method)
        if method.endswith("GetJobs"):
            return self.jobs
        if method.endswith("ShowAssociations"):
            return self.users
        return reply_type()


def _seen(viewer: str, private: str) -> list[int]:
    import asyncio

    from pyslurm_restd.status_data import gather
    from pyslurm_restd.upstream import Caller

    view = asyncio.run(gather(_Daemons(), Caller(viewer), False, "lab", private, {"root", "slurm"}))  # type: ignore[arg-type]
    return sorted(j.job_id for j in view.pending + view.running)


def test_private_data_shows_ordinary_users_their_own_jobs_only() -> None:
    assert _seen("alice", "") == [1, 2]
    assert _seen("alice", "jobs") == [1]
    assert _seen("olga", "jobs") == [1, 2]          # AdminLevel Operator
    assert _seen("slurm", "jobs") == [1, 2]         # SlurmUser


def test_running_jobs_show_how_long_their_gpus_have_been_idle() -> None:
    view = _view()
    view.running[0].gpu_idle_seconds = 754
    assert "<th>GPUs idle</th>" in page(view) and "<td>12:34</td>" in page(view)
    view.running[0].gpu_idle_seconds = 0
    assert "12:34" not in page(view)


def test_array_tasks_are_named_as_squeue_names_them_and_link_to_their_page() -> None:
    view = _view()
    view.running = [types_pb2.JobInfo(job_id=398, array_job_id=397, array_task_str="0", state="RUNNING",
                                      partition="debug", gpus=2)]
    view.pending = [types_pb2.JobInfo(job_id=397, array_job_id=397, array_task_str="1-9", array_remainder=True,
                                      state="PENDING", partition="debug")]
    html = page(view)
    assert '<a href="/job/398">397_0</a>' in html and '<a href="/job/397">397_[1-9]</a>' in html
    assert "<th>GPUs</th>" in html and '<td class="n">2</td>' in html     # a running job's GPU count


def test_a_cut_finished_list_says_how_many_more_there_are() -> None:
    view = _view()
    view.finished = [FinishedJob(types_pb2.JobInfo(job_id=i, state="COMPLETED"), 0, 0) for i in range(50)]
    view.finished_total = 73
    assert "The 50 most recent of 73; 23 more finished in the last 24 hours" in page(view)
    view.finished_total = 50
    assert "most recent of" not in page(view)


def test_every_table_scrolls_in_its_own_box() -> None:
    html = page(_view())
    assert html.count('<div class="scroll"><table>') == html.count("<table>") > 0


def test_filters_pick_user_partition_and_section() -> None:
    import asyncio

    from pyslurm_restd.status_data import JobFilter, gather
    from pyslurm_restd.upstream import Caller

    def seen(query: dict[str, str]) -> tuple[list[int], list[int]]:
        view = asyncio.run(gather(_Daemons(), Caller("alice"), False, "lab", "", set(),  # type: ignore[arg-type]
                                  JobFilter.from_query(query)))
        return [j.job_id for j in view.pending], [j.job_id for j in view.running]

    assert seen({}) == ([1], [2])
    assert seen({"user": "bob"}) == ([], [2])
    assert seen({"state": "pending"}) == ([1], [])
    assert seen({"state": "nonsense"}) == ([1], [2])
    assert seen({"partition": "gpu"}) == ([], [])
    html = page(ClusterView(viewer="a", anonymous=True, cluster="c", now=0, filters=JobFilter(user="<b>")))
    assert 'value="&lt;b&gt;"' in html and "Filtered: user &lt;b&gt;" in html


def test_job_page_offers_cancel_to_the_owner_only() -> None:
    from pyslurm_restd.status_job_page import JobView, job_page

    job = types_pb2.JobInfo(job_id=5, name="<i>x</i>", user_name="alice", state="RUNNING", start_time=100,
                            time_limit_min=10, gpus=1, partition="debug")
    owner = JobView(job_id=5, viewer="alice", anonymous=False, job=job, source="controller")
    html = job_page(owner, "lab", 160)
    assert 'action="/job/5/cancel"' in html and "&lt;i&gt;x&lt;/i&gt;" in html and "<td>1:00</td>" in html
    for other in (JobView(5, "bob", False, job, "controller"), JobView(5, "alice", True, job, "controller")):
        assert "/cancel" not in job_page(other, "lab", 160)
    done = types_pb2.JobInfo(job_id=5, user_name="alice", state="COMPLETED")
    assert "/cancel" not in job_page(JobView(5, "alice", False, done, "accounting"), "lab", 160)
    assert "No job 5 that you may see" in job_page(JobView(5, "alice", False), "lab", 160)
