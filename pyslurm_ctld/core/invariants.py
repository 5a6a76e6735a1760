"""What must hold of a ClusterState between any two events, checked from scratch (dask's
`validate_state`): the unit and simulation tests run it after every test that built a state
(tests/conftest.py), so a mutator or decider that leaves the state inconsistent fails there, in
the test that did it, rather than as a wrong squeue line later. Read-only; never called live.
"""
from __future__ import annotations

from ..model.job import Job, JobState
from ..model.job_table import active_weight, held_nodes, in_play
from .state import ClusterState


def violations(state: ClusterState) -> list[str]:
    """Every broken invariant, one line each; empty when the state is consistent."""
    problems: list[str] = []
    cpus: dict[tuple[str, int], Job] = {}
    gpus: dict[tuple[str, int], Job] = {}
    memory = {name: 0 for name in state.nodes}
    for job in state.jobs.values():
        tag = f"job={job.job_id} {job.state.value}"
        problems += _record_problems(job, tag)
        if job.job_id >= state.next_job_id:
            problems.append(f"{tag}: id not below next_job_id {state.next_job_id}")
        alloc = job.allocation
        holds = alloc is not None and (job.state in (JobState.RUNNING, JobState.SUSPENDED) or job.completing)
        if not holds:
            continue
        assert alloc is not None
        for index, node in enumerate(alloc.nodes):
            if node not in state.nodes:
                problems.append(f"{tag}: allocated on unknown node {node}")
                continue
            memory[node] += alloc.memory_mb_per_node[index]
            taken = [] if job.state is JobState.SUSPENDED else [(cpus, "CPU", i) for i in alloc.cpus_on(index)]
            for table, what, ident in [*taken, *((gpus, "GPU", i) for i in alloc.gpus_on(index))]:
                other = table.setdefault((node, ident), job)
                if other is not job:
                    problems.append(f"{tag}: {what} {ident} of {node} also held by job={other.job_id}")
    for node, used in memory.items():
        if used > state.nodes[node].config.real_memory_mb > 0:
            problems.append(f"node {node}: {used} MB allocated of {state.nodes[node].config.real_memory_mb}")
    problems += _table_problems(state)
    for job_id in state.signalled:
        warned = state.jobs.get(job_id)
        if warned is None or warned.state not in (JobState.RUNNING, JobState.SUSPENDED):
            problems.append(f"job={job_id}: its --signal warning still remembered after its run")
    return problems


def _record_problems(job: Job, tag: str) -> list[str]:
    if job.state in (JobState.RUNNING, JobState.SUSPENDED) and job.allocation is None:
        return [f"{tag}: no allocation"]
    if job.state is JobState.PENDING and job.allocation is not None and not job.completing:
        return [f"{tag}: pending and allocated"]
    return []


def _table_problems(state: ClusterState) -> list[str]:
    """The job table's tallies against the same values recomputed from its jobs."""
    problems = []
    active = sum(active_weight(job) for job in state.jobs.values())
    if state.jobs.active_count != active:
        problems.append(f"active job count {state.jobs.active_count}, recomputed {active}")
    for node in {*state.nodes, *(n for job in state.jobs.values() for n in held_nodes(job))}:
        indexed = {job.job_id for job in state.jobs.on_node(node)}
        expected = {job.job_id for job in state.jobs.values() if node in held_nodes(job)}
        if indexed != expected:
            problems.append(f"node {node}: jobs indexed {sorted(indexed)}, recomputed {sorted(expected)}")
    playing = [job.job_id for job in state.jobs.in_play()]
    expected_playing = [job.job_id for job in state.jobs.values() if in_play(job)]
    if sorted(playing) != sorted(expected_playing):
        problems.append(f"jobs in play {sorted(playing)}, recomputed {sorted(expected_playing)}")
    for array_id, tasks in state.array_tasks.items():
        for task_id, job_id in tasks.items():
            job = state.jobs.get(job_id)
            if job is not None and (job.array is None or (job.array.array_job_id, job.array.task_id) != (array_id, task_id)):
                problems.append(f"array {array_id} task {task_id}: names job={job_id}, which is not that task")
    return problems
