"""Which node of a step holds which task ranks (by -m, as the controller lays them out:
pyslurm_common/task_distribution.py).

Pure: the step's node names and tasks-per-node counts (StepReply) and its distribution in, lookups out.
"""
from __future__ import annotations

from pyslurm_common.typed_tuple import NamedTuple


# StepRequest.input_task besides a rank: stdin to every task, or to none (/dev/null).
INPUT_ALL = -1
INPUT_NONE = -2


class StepLayout(NamedTuple):   # a NamedTuple: dataclasses would import inspect into srun
    nodes: tuple[str, ...]
    tasks_per_node: tuple[int, ...]
    distribution: str = ""

    @property
    def num_tasks(self) -> int:
        return sum(self.tasks_per_node)

    def ranks_of(self, node_index: int) -> tuple[int, ...]:
        from pyslurm_common.task_distribution import node_ranks

        return node_ranks(self.tasks_per_node, self.distribution)[node_index]

    def node_of(self, rank: int) -> int:
        """The node index holding `rank`; ValueError if the step has no such rank."""
        for index in range(len(self.nodes)):
            if rank in self.ranks_of(index):
                return index
        raise ValueError(f"task {rank} is not part of this step")

    def host_of(self, rank: int) -> str:
        return self.nodes[self.node_of(rank)]
