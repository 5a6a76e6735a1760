"""Slurm's OpenMetrics endpoints (MetricsType=metrics/openmetrics): ``/metrics`` (the index) and
``/metrics/{jobs,jobs-users-accts,nodes,partitions,scheduler}``.

Metric names and types are those slurmctld 25.11's metrics/openmetrics plugin writes: every family
a gauge, the cycle counts among them (``slurm_schedule_cycle_cnt``: the plugin's names, where its
metrics.shtml page says ``slurm_sched_cycle_cnt``). A gauge is valid OpenMetrics, and a counter
would have to be renamed ``*_total``, which no Slurm dashboard or Slinky query reads. slurmctld
answers in Prometheus' text format (text/plain, no ``# EOF``); a scraper whose Accept asks for
``application/openmetrics-text`` (Prometheus does) gets the same samples as OpenMetrics 1.0.0,
which strict parsers take: its content type, escaped HELP text and the closing ``# EOF``.

Slurm serves these from slurmctld's own port; pyslurmrestd serves them on its port (6820), where
Slinky's ServiceMonitor points. Each scrape is one aggregated controller call (GetMetrics), made
as the scraper's token user if it sends one (MetricsAuthUsers), else as pyslurmrestd's own user.
"""
from __future__ import annotations

from typing import Awaitable, Callable

from aiohttp import web

from pyslurm_common.rpc import ctld_pb2

from .envelope import text_response
from .request_auth import AuthModes, authenticate
from .upstream import CONTROLLER, Caller, Upstream, UpstreamError

SETS = ("jobs", "jobs-users-accts", "nodes", "partitions", "scheduler")
INDEX = ("slurmctld index of metrics endpoints:\n"
         "  '/metrics/jobs': get job metrics\n"
         "  '/metrics/nodes': get node metrics\n"
         "  '/metrics/partitions': get partition metrics\n"
         "  '/metrics/jobs-users-accts': get user and account jobs metrics\n"
         "  '/metrics/scheduler': get scheduler metrics\n")

# Help lines for the metric families whose meaning their name does not spell out.
_HELP = {
    "jobs": "Total number of jobs", "nodes": "Total number of nodes", "partitions": "Total number of partitions",
    "jobs_cpus_alloc": "CPUs allocated to jobs", "jobs_memory_alloc": "Memory allocated to jobs (bytes)",
    "jobs_gpus_alloc": "GPUs allocated to jobs", "jobs_nodes_alloc": "Nodes allocated to jobs",
    "jobs_finished": "Jobs that have finished", "jobs_started": "Jobs that have started",
    "node_cpus": "CPUs of the node", "node_cpus_alloc": "CPUs of the node allocated to jobs",
    "node_cpus_effective": "CPUs of the node jobs may use", "node_cpus_idle": "Idle CPUs of the node",
    "node_gpus": "GPUs of the node", "node_gpus_alloc": "GPUs of the node allocated to jobs",
    "node_memory_bytes": "Memory of the node (bytes)", "node_memory_alloc_bytes": "Memory of the node allocated to jobs (bytes)",
    "node_memory_effective_bytes": "Memory of the node jobs may use (bytes)",
    "node_memory_free_bytes": "Free memory of the node (bytes)",
    "partition_cpus": "CPUs of the partition's nodes", "partition_gpus": "GPUs of the partition's nodes",
    "partition_nodes": "Nodes of the partition",
    "partition_jobs_max_job_nodes_nohold": "Largest node count asked by a pending job that is not held",
    "partition_jobs_min_job_nodes_nohold": "Largest minimum node count of a pending job that is not held",
    "schedule_cycle_last": "Last scheduling cycle (microseconds)", "schedule_cycle_max": "Longest scheduling cycle (microseconds)",
    "schedule_cycle_cnt": "Scheduling cycles", "schedule_queue_len": "Pending jobs at the last scheduling cycle",
    "slurmdbd_queue_size": "Accounting records waiting for the accounting daemon",
    "server_thread_cnt": "Controller calls being served",
    "jobs_gpu_idle": "Running jobs whose GPUs are idle (GpuIdleParameters' threshold)",
    "job_gpu_idle_seconds": "How long the job's GPUs have been idle",
}


def _help(name: str) -> str:
    if name in _HELP:
        return _HELP[name]
    words = name.replace("_", " ")
    return f"Gauge {words}"


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


OPENMETRICS = "application/openmetrics-text"
OPENMETRICS_TYPE = f"{OPENMETRICS}; version=1.0.0; charset=utf-8"


def wants_openmetrics(accept: str) -> bool:
    """Whether an Accept header prefers OpenMetrics to the text format (q values weighed)."""
    best: dict[str, float] = {}
    for item in accept.split(","):
        kind, *params = [part.strip() for part in item.split(";")]
        weight = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        best[kind.lower()] = max(best.get(kind.lower(), 0.0), weight)
    ours = best.get(OPENMETRICS, 0.0)
    return ours > 0 and ours >= max(best.get("text/plain", 0.0), best.get("*/*", 0.0))


def _help_text(text: str, openmetrics: bool) -> str:
    escaped = text.replace("\\", "\\\\").replace("\n", "\\n")
    return escaped.replace('"', '\\"') if openmetrics else escaped


def render(gauges: list[ctld_pb2.Gauge], openmetrics: bool = False) -> str:
    """Families in first-seen order, each with its HELP and TYPE lines once; OpenMetrics ends
    with ``# EOF``."""
    families: dict[str, list[ctld_pb2.Gauge]] = {}
    for gauge in gauges:
        families.setdefault(gauge.name, []).append(gauge)
    lines = []
    for name, samples in families.items():
        full = f"slurm_{name}"
        lines += [f"# HELP {full} {_help_text(_help(name), openmetrics)}", f"# TYPE {full} gauge"]
        for g in samples:
            labels = f'{{{g.label}="{_escape(g.label_value)}"}}' if g.label else ""
            lines.append(f"{full}{labels} {_number(g.value)}")
    if openmetrics:
        lines.append("# EOF")
    return "\n".join(lines) + "\n"


def add_routes(app: web.Application, upstream: Upstream, own_user: str, modes: AuthModes) -> None:
    async def index(request: web.Request) -> web.StreamResponse:
        return text_response(200, INDEX)

    def metric_set(name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def handle(request: web.Request) -> web.StreamResponse:
            caller = authenticate(request, modes) or Caller(user_name=own_user)
            try:
                reply = await upstream.call(caller, CONTROLLER + "GetMetrics", ctld_pb2.MetricsRequest(set=name),
                                            ctld_pb2.MetricsReply)
            except UpstreamError as exc:
                status = 403 if exc.strerror == "Access/permission denied" else 503
                return text_response(status, f"{exc.strerror}\n")
            if wants_openmetrics(request.headers.get("Accept", "")):
                return web.Response(status=200, body=render(list(reply.gauges), True).encode(),
                                    headers={"Content-Type": OPENMETRICS_TYPE})
            return text_response(200, render(list(reply.gauges)))      # slurmctld's text/plain
        return handle

    app.router.add_get("/metrics", index)
    app.router.add_get("/metrics/", index)
    for name in SETS:
        app.router.add_get(f"/metrics/{name}", metric_set(name))
