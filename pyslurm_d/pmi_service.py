"""A stepd's PMI-2 service (srun --mpi=pmi2, MpiDefault=pmi2): one socket pair per local task.

The task gets its end as fd 3 with PMI_FD=3, PMI_RANK, PMI_SIZE and PMI_JOBID, as Slurm's
mpi/pmi2 sets them; stepd answers on the other end with pyslurm_common/pmi2.py and sends
fences up the srun stream (step_io.PMI_FENCE), which answers with the step's merged key-value
space (step_io.PMI_KVS). Stdlib only, like stepd.
"""
from __future__ import annotations

import socket
from dataclasses import dataclass, field

from pyslurm_common import pmi2

from .launch import Launch

TASK_FD = 3   # where exec_task puts the task's end


@dataclass
class PmiService:
    node: pmi2.PmiNode
    servers: dict[int, socket.socket] = field(default_factory=dict)    # rank -> stepd's end
    task_ends: dict[int, socket.socket] = field(default_factory=dict)  # rank -> the task's end, until forked

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
            server.settimeout(2)   # a task that stops reading its answers cannot stall the stepd
            service.servers[rank], service.task_ends[rank] = server, task_end
        return service

    def task_environment(self, rank: int) -> dict[str, str]:
        return {"PMI_FD": str(TASK_FD), "PMI_RANK": str(rank), "PMI_SIZE": str(self.node.job.size),
                "PMI_JOBID": self.node.job.kvsname}

    def task_fd(self, rank: int) -> int:
        return self.task_ends[rank].fileno()

    def close_task_ends(self) -> None:
        """After the fork: the tasks hold their ends, so a task's exit reads as end of file here."""
        for sock in self.task_ends.values():
            sock.close()
        self.task_ends = {}

    def receive(self, rank: int) -> tuple[list[pmi2.Abort], bool]:
        """Serve what task `rank` sent: (its aborts, whether its connection ended)."""
        server = self.servers[rank]
        try:
            data = server.recv(65536)
            actions = self.node.receive(rank, data) if data else []
        except (OSError, pmi2.PmiProtocolError):
            data, actions = b"", []
        aborts = [a for a in actions if isinstance(a, pmi2.Abort)]
        self._send([a for a in actions if isinstance(a, pmi2.Reply)])
        if not data:
            server.close()
            del self.servers[rank]
        return aborts, not data

    def fence_payload(self) -> bytes | None:
        return self.node.fence_payload() if self.node.fence_ready else None

    def fence_done(self, merged: bytes) -> None:
        try:
            self._send(self.node.fence_done(merged))
        except pmi2.PmiProtocolError:
            pass

    def _send(self, replies: list[pmi2.Reply]) -> None:
        for reply in replies:
            server = self.servers.get(reply.rank)
            if server is None:
                continue
            try:
                server.sendall(reply.data)
            except OSError:
                pass

    def close(self) -> None:
        for sock in (*self.servers.values(), *self.task_ends.values()):
            sock.close()
        self.servers, self.task_ends = {}, {}
