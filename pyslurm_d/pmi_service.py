"""A stepd's PMI-2 service (srun --mpi=pmi2, MpiDefault=pmi2): one socket pair per local task.

The task gets its end as fd 3 with PMI_FD=3, PMI_RANK, PMI_SIZE and PMI_JOBID, as Slurm's
mpi/pmi2 sets them; stepd answers on the other end with pyslurm_common/pmi2.py and sends
fences up the srun stream (step_io.PMI_FENCE), which answers with the step's merged key-value
space (step_io.PMI_KVS). Nothing here may block stepd (a terminate must be answered at once):
the sockets are non-blocking, each answer waits in a bounded buffer until its task reads it,
and a task that falls HIGH_WATER behind (it asks and never reads the answers) loses its PMI
connection, as one that breaks the protocol does. Stdlib only, like stepd.
"""
from __future__ import annotations

import selectors
import socket
from dataclasses import dataclass, field

from pyslurm_common import pmi2

from .launch import Launch

TASK_FD = 3   # where exec_task puts the task's end
HIGH_WATER = 1 << 20   # answers a task has not read yet; more ends its PMI connection
PMI = "pmi"   # selector tag: (PMI, rank)


@dataclass
class PmiService:
    node: pmi2.PmiNode
    servers: dict[int, socket.socket] = field(default_factory=dict)    # rank -> stepd's end
    task_ends: dict[int, socket.socket] = field(default_factory=dict)  # rank -> the task's end, until forked
    unread: dict[int, bytearray] = field(default_factory=dict)         # rank -> answers not taken yet
    selector: selectors.BaseSelector | None = None                     # stepd's, once the tasks run

    @classmethod
    def for_launch(cls, launch: Launch) -> PmiService | None:
        """The service when the step asked for pmi2 (srun puts SLURM_MPI_TYPE in the step's environment)."""
        env = dict(item.split("=", 1) for item in launch.environment if "=" in item)
        if launch.is_batch or env.get("SLURM_MPI_TYPE") != "pmi2":
            return None
        try:
            counts = pmi2.parse_counts(env.get("SLURM_STEP_TASKS_PER_NODE", ""))
        except ValueError:
            counts = [launch.num_tasks]
        job = pmi2.PmiJob(f"{launch.job_id}.{launch.step}", launch.num_tasks, pmi2.process_mapping(counts))
        service = cls(pmi2.PmiNode(job, list(launch.task_ids)))
        for rank in launch.task_ids:
            server, task_end = socket.socketpair()
            server.setblocking(False)
            service.servers[rank], service.task_ends[rank] = server, task_end
            service.unread[rank] = bytearray()
        return service

    def task_environment(self, rank: int) -> dict[str, str]:
        return {"PMI_FD": str(TASK_FD), "PMI_RANK": str(rank), "PMI_SIZE": str(self.node.job.size),
                "PMI_JOBID": self.node.job.kvsname}

    def task_fd(self, rank: int) -> int:
        return self.task_ends[rank].fileno()

    def serve_in(self, selector: selectors.BaseSelector) -> None:
        """After the fork: the tasks hold their ends (a task's exit reads as end of file here);
        stepd's loop serves ours, tagged (PMI, rank)."""
        for sock in self.task_ends.values():
            sock.close()
        self.task_ends = {}
        self.selector = selector
        for rank, server in self.servers.items():
            selector.register(server, selectors.EVENT_READ, (PMI, rank))

    def serve(self, rank: int, events: int) -> list[pmi2.Abort]:
        """Task `rank`'s socket is ready: take its answers out, serve its requests; its aborts."""
        if rank in self.servers and events & selectors.EVENT_WRITE:
            self._flush(rank)
        if rank not in self.servers or not events & selectors.EVENT_READ:   # dropped meanwhile
            return []
        try:
            data = self.servers[rank].recv(65536)
            actions = self.node.receive(rank, data) if data else []
        except BlockingIOError:
            return []
        except (OSError, pmi2.PmiProtocolError):
            data, actions = b"", []
        if not data:
            self._drop(rank)
            return []
        self._send([a for a in actions if isinstance(a, pmi2.Reply)])
        return [a for a in actions if isinstance(a, pmi2.Abort)]

    def fence_payload(self) -> bytes | None:
        return self.node.fence_payload() if self.node.fence_ready else None

    def fence_done(self, merged: bytes) -> None:
        try:
            self._send(self.node.fence_done(merged))
        except pmi2.PmiProtocolError:
            pass

    def _send(self, replies: list[pmi2.Reply]) -> None:
        for reply in replies:
            if reply.rank in self.servers:
                self.unread[reply.rank] += reply.data
                self._flush(reply.rank)

    def _flush(self, rank: int) -> None:
        pending = self.unread[rank]
        try:
            while pending:
                del pending[:self.servers[rank].send(pending)]
        except BlockingIOError:
            if len(pending) > HIGH_WATER:
                self._drop(rank)
                return
        except OSError:   # the task is gone
            self._drop(rank)
            return
        self._want(rank, selectors.EVENT_READ | (selectors.EVENT_WRITE if pending else 0))

    def _want(self, rank: int, events: int) -> None:
        if self.selector is not None and self.selector.get_key(self.servers[rank]).events != events:
            self.selector.modify(self.servers[rank], events, (PMI, rank))

    def _drop(self, rank: int) -> None:
        server = self.servers.pop(rank)
        del self.unread[rank]
        if self.selector is not None:   # unregister first: a closed fd number can come back at once
            self.selector.unregister(server)
        server.close()

    def close(self) -> None:
        for rank in list(self.servers):
            self._drop(rank)
        for sock in self.task_ends.values():
            sock.close()
        self.task_ends = {}
