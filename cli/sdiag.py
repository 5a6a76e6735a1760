"""sdiag: the controller's statistics, in the layout of Slurm's sdiag.

An honest subset: the lines pyslurm has real counters for (server calls in progress,
calls to node agents under way, accounting records waiting for pyslurmdbd, jobs by
outcome since the controller started, main scheduler cycles). Slurm's backfill, agent
thread and per-RPC sections are left out rather than shown as zeros.
"""
from __future__ import annotations

import sys

import click

from pyslurm_common.rpc import messages as pb

from . import client
from .app import run, version_option
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


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@version_option
def sdiag() -> None:
    """Scheduling diagnostic tool for pyslurm."""
    sys.stdout.write(render(client.controller("GetDiag", pb.Empty(), pb.DiagReply)))


def main() -> None:
    run(PROG, sdiag)
