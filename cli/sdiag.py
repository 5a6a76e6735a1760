"""sdiag: the controller's statistics, in the layout of Slurm's sdiag.

An honest subset: the lines pyslurm has real counters for (server calls in progress,
calls to node agents under way, accounting records waiting for pyslurmdbd, jobs by
outcome since the controller started, main scheduler cycles). Slurm's backfill, agent
thread and per-RPC sections are left out rather than shown as zeros.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence

from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client
from .app import run
from .option_tables import sdiag as spec
from .query_command import QueryValues, parse
from .slurm_time import slurm_ctime

PROG = "sdiag"
RULE = "*" * 55


def _when(epoch: int) -> str:
    return f"{slurm_ctime(epoch)} ({epoch})"


def render(d: pb.DiagReply) -> str:
    lines = [
        RULE,
        f"sdiag output at {_when(d.now)}",
        f"Data since      {_when(d.since)}",
        RULE,
        f"Server thread count:  {d.server_thread_count}",
        f"Agent queue size:     {d.agent_queue_size}",
        f"DBD Agent queue size: {d.dbd_agent_queue_size}",
        "",
        f"Jobs submitted: {d.jobs_submitted}",
        f"Jobs started:   {d.jobs_started}",
        f"Jobs completed: {d.jobs_completed}",
        f"Jobs canceled:  {d.jobs_canceled}",
        f"Jobs failed:    {d.jobs_failed}",
        "",
        f"Job states ts:  {_when(d.job_states_time)}",
        f"Jobs pending:   {d.jobs_pending}",
        f"Jobs running:   {d.jobs_running}",
        "",
        "Main schedule statistics (microseconds):",
        f"\tLast cycle:   {d.schedule_cycle_last_usec}",
        f"\tMax cycle:    {d.schedule_cycle_max_usec}",
        f"\tTotal cycles: {d.schedule_cycle_count}",
    ]
    if d.schedule_cycle_count:
        lines += [f"\tMean cycle:   {d.schedule_cycle_sum_usec // d.schedule_cycle_count}",
                  f"\tMean depth cycle:  {d.schedule_depth_sum // d.schedule_cycle_count}"]
    if d.now - d.since > 60:
        lines.append(f"\tCycles per minute: {d.schedule_cycle_count // ((d.now - d.since) // 60)}")
    lines.append(f"\tLast queue length: {d.schedule_queue_length}")
    return "\n".join(lines) + "\n"


def sdiag(args: Sequence[str]) -> None:
    """Scheduling diagnostic tool for pyslurm."""
    values, _operands = parse(spec, args)   # sdiag ignores operands, as Slurm's does
    if values.get("clusters") is not None:
        from .cluster_option import check_clusters, this_cluster

        check_clusters(PROG, values["clusters"], this_cluster())
    # -a asks for the statistics (the default) and wins over an -r before it, as in Slurm.
    # -i/-t/-T order the per-RPC tables, which pyslurm's sdiag does not print (see above).
    if _last_mode(values) == "reset":
        try:
            client.controller("ResetDiag", pb.Empty(), pb.Empty)
        except SlurmError as exc:
            print(f"slurm_reset_statistics: {exc.strerror}", file=sys.stderr)
            raise SystemExit(255)
        print("Reset scheduling statistics")
        return
    sys.stdout.write(render(client.controller("GetDiag", pb.Empty(), pb.DiagReply)))


def _last_mode(values: QueryValues) -> str | None:
    modes = [dest for dest, _value in values.sequence if dest in ("reset", "all")]
    return modes[-1] if modes else None


def main() -> None:
    run(PROG, sdiag)
