"""Which task ranks each node of a step runs, by -m/--distribution's first level: `block`
(consecutive ranks per node, the default), `cyclic` (one rank per node in turn), `plane=N`
(N consecutive ranks per node in turn). Only the node level is laid out here: the levels after
the first (sockets, cores) bind tasks inside a node, which needs task/affinity, as in Slurm.
`arbitrary` follows the node list given, which here is always block.

Pure; the controller (task ids of each node's launch) and srun (labels, --input ranks, exit
report) call the same function, so both agree on where every rank runs.
"""
from __future__ import annotations

from collections.abc import Sequence


def node_ranks(tasks_per_node: Sequence[int], distribution: str = "") -> list[tuple[int, ...]]:
    first = distribution.split(":", 1)[0].split(",", 1)[0].lower()
    if first == "cyclic":
        chunk = 1
    elif first.startswith("plane="):
        chunk = max(1, int(first.partition("=")[2] or 1))
    else:
        out, rank = [], 0
        for count in tasks_per_node:
            out.append(tuple(range(rank, rank + count)))
            rank += count
        return out
    ranks: list[list[int]] = [[] for _ in tasks_per_node]
    rank, total = 0, sum(tasks_per_node)
    while rank < total:
        for index, count in enumerate(tasks_per_node):
            take = min(chunk, count - len(ranks[index]), total - rank)
            ranks[index].extend(range(rank, rank + take))
            rank += take
    return [tuple(r) for r in ranks]
