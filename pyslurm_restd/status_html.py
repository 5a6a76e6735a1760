"""The status page as HTML: server-rendered, a little inline CSS, no script, no external
resource (labs are often offline), refreshed by the browser every REFRESH seconds. Pure: a
ClusterView in, a page out; every value from the cluster is escaped."""
from __future__ import annotations

from html import escape
from typing import Iterable, Sequence

from pyslurm_common.gres import gpu_count
from pyslurm_common.units import (format_duration_squeue, format_memory_mb, format_time_limit_sinfo,
                                  format_time_limit_squeue, format_timestamp)

from pyslurm_common.rpc import types_pb2

from .status_data import SECTIONS, ClusterView, FinishedJob, job_label

REFRESH = 10
STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em;margin:0} h2{font-size:1.1em;margin:1.4em 0 .4em}
table{border-collapse:collapse;width:100%} th,td{text-align:left;padding:.25em .6em;border-bottom:1px solid #ddd}
th{background:#f3f3f3} td.n{text-align:right;font-variant-numeric:tabular-nums}
.meta{color:#666} .bad{color:#a00} .ok{color:#070} .why{color:#444;font-size:.92em}
.bar{display:inline-block;width:5em;height:.7em;background:#e5e5e5;vertical-align:middle;margin-right:.4em}
.bar i{display:block;height:100%;background:#4a7}
form{display:inline} input,select{font:inherit} .scroll{overflow-x:auto;max-width:100%}
a{color:#14c} td a{white-space:nowrap} .filters{margin:.6em 0}
"""


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], empty: str, numeric: frozenset[int] = frozenset()
           ) -> str:
    """`rows` hold HTML already escaped by the caller."""
    body = ["<tr>" + "".join(f'<td class="n">{cell}</td>' if i in numeric else f"<td>{cell}</td>"
                             for i, cell in enumerate(row)) + "</tr>" for row in rows]
    if not body:
        return f'<p class="meta">{escape(empty)}</p>'
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    # in its own scrolling box: a narrow window scrolls the table, not the page
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'


def job_link(job: types_pb2.JobInfo) -> str:
    """The job's id as squeue prints it (397_0 for an array task), linking to its page."""
    return f'<a href="/job/{job.job_id}">{escape(job_label(job))}</a>'


def _bar(used: float, total: float) -> str:
    share = 0 if total <= 0 else min(max(used / total, 0), 1)
    return f'<span class="bar"><i style="width:{share * 100:.0f}%"></i></span>'


def _of(used: int, total: int, text: str) -> str:
    return f"{_bar(used, total)}{escape(text)}"


def _nodes(view: ClusterView) -> str:
    rows = []
    for n in view.nodes:
        state = "+".join([n.state, *n.flags])
        klass = "bad" if n.state in ("DOWN", "UNKNOWN") or "DRAIN" in n.flags else "ok"
        gpus, used = gpu_count(n.gres), gpu_count(n.gres_used)
        rows.append([escape(n.name), f'<span class="{klass}">{escape(state)}</span>',
                     _of(n.alloc_cpus, n.cpus, f"{n.alloc_cpus}/{n.cpus}"),
                     _of(n.alloc_memory_mb, n.real_memory_mb,
                         f"{format_memory_mb(n.alloc_memory_mb)}/{format_memory_mb(n.real_memory_mb)}"),
                     _of(used, gpus, f"{used}/{gpus}") if gpus else "-", escape(n.reason)])
    return _table(("Node", "State", "CPUs", "Memory", "GPUs", "Reason"), rows, "No nodes.")


def _partitions(view: ClusterView) -> str:
    counts: dict[str, list[int]] = {}
    for job in view.pending:
        counts.setdefault(job.partition.split(",")[0], [0, 0])[0] += 1
    for job in view.running:
        counts.setdefault(job.partition, [0, 0])[1] += 1
    rows = [[escape(p.name + ("*" if p.is_default else "")), escape(p.state), escape(p.node_expr),
             str(p.total_cpus), escape(format_time_limit_sinfo(p.max_time_min)),
             str(counts.get(p.name, [0, 0])[0]), str(counts.get(p.name, [0, 0])[1])] for p in view.partitions]
    return _table(("Partition", "State", "Nodes", "CPUs", "Time limit", "Pending", "Running"), rows,
                  "No partitions.", frozenset({3, 5, 6}))


def _pending(view: ClusterView) -> str:
    rows = [[job_link(j), escape(j.user_name), escape(j.account), escape(j.partition), escape(j.name),
             str(j.num_cpus), escape(format_time_limit_squeue(j.time_limit_min)),
             f'{escape(j.reason)}<div class="why">{escape(view.explanations.get(j.job_id, ""))}</div>']
            for j in view.pending]
    return _table(("Job", "User", "Account", "Partition", "Name", "CPUs", "Time limit", "Why it waits"), rows,
                  "No job is waiting.", frozenset({0, 5}))


def _running(view: ClusterView) -> str:
    rows = []
    for j in view.running:
        elapsed = max(view.now - j.start_time - j.suspended_secs, 0) if j.start_time else 0
        left = ("UNLIMITED" if j.time_limit_min < 0 else
                format_duration_squeue(max(j.time_limit_min * 60 - elapsed, 0)))
        rows.append([job_link(j), escape(j.user_name), escape(j.partition), escape(j.name), escape(j.nodes),
                     str(j.num_cpus), str(j.gpus) if j.gpus else "-", escape(format_duration_squeue(elapsed)),
                     escape(left),
                     escape(format_duration_squeue(j.gpu_idle_seconds)) if j.gpu_idle_seconds else "-",
                     escape(j.state + (" (completing)" if j.completing else ""))])
    return _table(("Job", "User", "Partition", "Name", "Nodes", "CPUs", "GPUs", "Elapsed", "Time left", "GPUs idle",
                   "State"), rows, "No job is running.", frozenset({0, 5, 6}))


def efficiency(job: FinishedJob) -> tuple[str, str]:
    """CPU efficiency (CPU time over elapsed × CPUs) and memory efficiency (peak over requested), as seff."""
    record = job.record
    elapsed = max(record.end_time - record.start_time - record.suspended_secs, 0) if record.start_time else 0
    cpu = f"{100 * job.cpu_seconds / (elapsed * record.num_cpus):.0f}%" if elapsed and record.num_cpus else "-"
    requested = record.mem_per_node_mb * max(record.num_nodes, 1) or record.mem_per_cpu_mb * record.num_cpus
    memory = f"{100 * job.max_rss_kb / 1024 / requested:.0f}%" if requested and job.max_rss_kb else "-"
    return cpu, memory


def _finished(view: ClusterView) -> str:
    rows = []
    for job in view.finished:
        r = job.record
        elapsed = max(r.end_time - r.start_time, 0) if r.start_time else 0
        cpu, memory = efficiency(job)
        klass = "ok" if r.state == "COMPLETED" else "bad"
        rows.append([job_link(r), escape(r.user_name), escape(r.name), f'<span class="{klass}">{escape(r.state)}</span>',
                     f"{r.exit_code}:{r.exit_signal}", escape(format_duration_squeue(elapsed)),
                     escape(format_timestamp(r.end_time)), cpu, memory])
    table = _table(("Job", "User", "Name", "State", "Exit", "Elapsed", "Ended", "CPU eff.", "Mem eff."), rows,
                   "No job finished in the last 24 hours.", frozenset({0, 7, 8}))
    more = view.finished_total - len(view.finished)
    if more > 0:
        table += (f'<p class="meta">The {len(view.finished)} most recent of {view.finished_total}; '
                  f"{more} more finished in the last 24 hours (sacct lists them all).</p>")
    return table


def _filters(view: ClusterView) -> str:
    """A plain GET form: the filters travel in the address, so a filtered page can be bookmarked."""
    f = view.filters
    options = "".join(f'<option value="{s}"{" selected" if f.section == s else ""}>{s}</option>'
                      for s in ("", *SECTIONS))
    shown = ", ".join(f"{k} {escape(v)}" for k, v in (("user", f.user), ("partition", f.partition),
                                                      ("only", f.section)) if v)
    return (f'<form class="filters" method="get" action="/">Jobs of user <input name="user" size="10" '
            f'value="{escape(f.user)}"> partition <input name="partition" size="10" value="{escape(f.partition)}"> '
            f'state <select name="state">{options}</select> <input type="submit" value="Filter"></form>'
            + (f' <span class="meta">Filtered: {shown}. <a href="/">Show all</a></span>' if shown else ""))


def _usage(view: ClusterView) -> str:
    if view.shares_note:
        return f'<p class="meta">{escape(view.shares_note)}</p>'
    rows = [[escape(s.account), f"{s.norm_shares:.3f}", f"{s.raw_usage:.0f}", f"{s.effective_usage:.3f}",
             f"{s.fairshare:.3f}" if s.HasField("fairshare") else "-"] for s in view.shares if s.account != "root"]
    return _table(("Account", "Norm shares", "Raw usage (CPU-s)", "Effective usage", "Fair-share"), rows,
                  "No accounts.", frozenset({1, 2, 3, 4}))


def page(view: ClusterView) -> str:
    who = (f"as {escape(view.viewer)} (anonymous: what any user sees)" if view.anonymous
           else f"as {escape(view.viewer)}")
    login = ('<form method="post" action="/login"><input name="token" type="password" '
             'placeholder="scontrol token" size="24"> <input type="submit" value="View as me"></form>'
             if view.anonymous else '<form method="post" action="/logout"><input type="submit" value="Log out"></form>')
    problems = "".join(f'<p class="bad">{escape(p)}</p>' for p in view.problems)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="{REFRESH}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(view.cluster)} - pyslurm</title><style>{STYLE}</style></head>
<body>
<h1>Cluster {escape(view.cluster)}</h1>
<p class="meta">{escape(format_timestamp(view.now))}, viewing {who}; refreshes every {REFRESH} s. {login}</p>
{problems}
{_filters(view)}
<h2 id="nodes">Nodes</h2>{_nodes(view)}
<h2 id="partitions">Partitions</h2>{_partitions(view)}
<h2 id="pending">Waiting</h2>{_pending(view)}
<h2 id="running">Running</h2>{_running(view)}
<h2 id="finished">Finished in the last 24 hours</h2>{_finished(view)}
<h2 id="usage">Usage and fair-share by account</h2>{_usage(view)}
</body></html>
"""
