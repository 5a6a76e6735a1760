"""An srun or salloc killed while its job pended (pyslurm_ctld/shell/allocating_client.py): when the
allocation is granted the controller reaches the client's allocation response port, as slurmctld
sends RESPONSE_RESOURCE_ALLOCATION there, and only a refused connection counts as gone."""
from __future__ import annotations

import asyncio
import socket
from pathlib import Path

from pyslurm_ctld.shell.allocating_client import gone
from pyslurm_ctld.model.events import TellAllocatingClient
from tests.builders import make_manager, schedule, submit


def test_a_granted_srun_allocation_reaches_its_client_and_a_batch_job_does_not(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, extra="SchedulerType=sched/builtin\n")
    srun = submit(mgr, launcher="srun", script="", alloc_resp_host="10.0.0.5", alloc_resp_port=40123)
    salloc_without_port = submit(mgr, launcher="salloc", script="")
    batch = submit(mgr)
    effects = schedule(mgr, now=200)
    told = [e for e in effects if isinstance(e, TellAllocatingClient)]
    assert told == [TellAllocatingClient(srun.job_id, "10.0.0.5", 40123)]
    assert all(mgr.jobs[j.job_id].state.name == "RUNNING" for j in (srun, salloc_without_port, batch))


def test_only_a_refused_connection_means_the_client_is_gone() -> None:
    listener = socket.create_server(("127.0.0.1", 0), backlog=4)
    port = int(listener.getsockname()[1])
    assert not asyncio.run(gone("127.0.0.1", port))   # alive: it need not even accept
    listener.close()
    assert asyncio.run(gone("127.0.0.1", port))
