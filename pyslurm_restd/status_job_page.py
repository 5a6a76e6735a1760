"""One job's page (``/job/{id}``) on the status page: what ``scontrol show job`` tells, from the
controller while it holds the job, else from accounting (sacct's record); its pending reason in
scontrol explain's words; and, for a viewer logged in with a token who may cancel it, a Cancel
button (POST /job/{id}/cancel, which the controller authorizes as it does scancel).
Gathered as the viewer, so PrivateData hides another user's job here as in squeue.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from pyslurm_common.job_states import ACTIVE_STATES
from pyslurm_common.rpc import ctld_pb2, dbd_pb2, types_pb2
from pyslurm_common.units import format_duration_squeue, format_time_limit_squeue, format_timestamp

from .status_data import job_label
from .status_html import STYLE
from .upstream import ACCOUNTING, CONTROLLER, Caller, Upstream, UpstreamError


@dataclass(slots=True)
class JobView:
    job_id: int
    viewer: str
    anonymous: bool
    job: types_pb2.JobInfo | None = None
    source: str = ""                      # "controller" or "accounting"
    explanation: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notice: str = ""                      # the outcome of a cancel just asked for

    @property
    def cancellable(self) -> bool:
        """Offered to its owner only (root and operators cancel with scancel): the controller decides."""
        return (self.job is not None and not self.anonymous and self.job.user_name == self.viewer
                and self.job.state in ACTIVE_STATES and not self.job.cancelled)


async def gather_job(upstream: Upstream, caller: Caller, anonymous: bool, job_id: int) -> JobView:
    view = JobView(job_id=job_id, viewer=caller.user_name, anonymous=anonymous)
    try:
        jobs = await upstream.call(caller, CONTROLLER + "GetJobs", ctld_pb2.JobQuery(job_ids=[job_id]),
                                   ctld_pb2.JobList)
        found = [j for j in jobs.jobs if j.job_id == job_id]
        if found:
            view.job, view.source = found[0], "controller"
    except UpstreamError as exc:
        view.problems.append(f"GetJobs: {exc.strerror}")
    if view.job is None:
        try:
            records = await upstream.call(caller, ACCOUNTING + "QueryJobs",
                                          dbd_pb2.AccountingQuery(job_ids=[job_id], all_users=True),
                                          dbd_pb2.JobRecordBatch)
            if records.records:
                view.job, view.source = records.records[-1].job, "accounting"
        except UpstreamError as exc:
            view.problems.append(f"QueryJobs: {exc.strerror}")
    if view.job is not None and view.job.state == "PENDING" and view.source == "controller":
        try:
            reply = await upstream.call(caller, CONTROLLER + "ExplainJob", ctld_pb2.JobQuery(job_ids=[job_id]),
                                        ctld_pb2.JobExplanation)
            view.explanation = list(reply.lines[1:])
        except UpstreamError:
            pass
    return view


def _when(seconds: int) -> str:
    return format_timestamp(seconds) if seconds > 0 else "-"


def _rows(job: types_pb2.JobInfo, now: int) -> list[tuple[str, str]]:
    elapsed = max((job.end_time or now) - job.start_time - job.suspended_secs, 0) if job.start_time else 0
    memory = (f"{job.mem_per_node_mb}M per node" if job.mem_per_node_mb else
              f"{job.mem_per_cpu_mb}M per CPU" if job.mem_per_cpu_mb else "-")
    return [
        ("Job", job_label(job)), ("Name", job.name), ("User", f"{job.user_name} ({job.user_id})"),
        ("Account", job.account or "-"), ("QOS", job.qos or "-"), ("Partition", job.partition),
        ("State", job.state + (" (completing)" if job.completing else "")), ("Reason", job.reason or "None"),
        ("Priority", str(job.priority)), ("Nodes", job.nodes or job.sched_nodes or "-"),
        ("Node count", str(job.num_nodes)), ("CPUs", str(job.num_cpus)), ("Tasks", str(job.num_tasks)),
        ("GPUs", str(job.gpus) if job.gpus else "-"), ("Memory", memory),
        ("Time limit", format_time_limit_squeue(job.time_limit_min)),
        ("Elapsed", format_duration_squeue(elapsed)), ("Submitted", _when(job.submit_time)),
        ("Eligible", _when(job.eligible_time)), ("Started", _when(job.start_time)), ("Ended", _when(job.end_time)),
        ("Exit code", f"{job.exit_code}:{job.exit_signal}"), ("Dependency", job.dependency or "-"),
        ("Features", job.features or "-"), ("Working directory", job.work_dir), ("Command", job.command or "-"),
        ("Standard output", job.std_out or "-"), ("Standard error", job.std_err or "-"),
        ("Comment", job.comment or "-"), ("Submit line", job.submit_line or "-"),
    ]


def job_page(view: JobView, cluster: str, now: int) -> str:
    title = f"Job {view.job_id}"
    if view.job is None:
        body = f'<p class="meta">No job {view.job_id} that you may see, queued or in the last records.</p>'
    else:
        table = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in _rows(view.job, now))
        why = "".join(f'<p class="why">{escape(line)}</p>' for line in view.explanation)
        cancel = (f'<form method="post" action="/job/{view.job_id}/cancel"><input type="submit" '
                  f'value="Cancel job {escape(job_label(view.job))}"></form>' if view.cancellable else "")
        body = (f'<p class="meta">From the {escape(view.source)}.</p>{why}'
                f'<div class="scroll"><table><tbody>{table}</tbody></table></div><p>{cancel}</p>')
    notice = f'<p class="ok">{escape(view.notice)}</p>' if view.notice else ""
    problems = "".join(f'<p class="bad">{escape(p)}</p>' for p in view.problems)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} - {escape(cluster)}</title><style>{STYLE}</style></head>
<body>
<h1>{escape(title)}</h1>
<p class="meta"><a href="/">Cluster {escape(cluster)}</a>, viewing as {escape(view.viewer)}.</p>
{notice}{problems}{body}
</body></html>
"""
