"""Which node of a step holds which task ranks (block distribution, as the controller lays them out).

Pure: the step's node names and tasks-per-node counts (StepReply) in, lookups out.
"""
from __future__ import annotations

from dataclasses import dataclass

# StepRequest.input_task besides a rank: stdin to every task, or to none (/dev/null).
INPUT_ALL = -1
INPUT_NONE = -2


@dataclass(frozen=True, slots=True)
class StepLayout:
    nodes: tuple[str, ...]
    tasks_per_node: tuple[int, ...]

    @property
    def num_tasks(self) -> int:
        return sum(self.tasks_per_node)

    def ranks_of(self, node_index: int) -> range:
        first = sum(self.tasks_per_node[:node_index])
        return range(first, first + self.tasks_per_node[node_index])

    def node_of(self, rank: int) -> int:
        """The node index holding `rank`; ValueError if the step has no such rank."""
        for index in range(len(self.nodes)):
            if rank in self.ranks_of(index):
                return index
        raise ValueError(f"task {rank} is not part of this step")

    def host_of(self, rank: int) -> str:
        return self.nodes[self.node_of(rank)]
