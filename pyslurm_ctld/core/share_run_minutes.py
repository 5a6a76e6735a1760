"""sshare -l's TRESRunMins: what the running jobs of each association still hold, in TRES-minutes.

As slurmctld's grp_used_tres_run_secs: each running job adds its allocated TRES times the
minutes left of its time limit, to its association and to every account above it. The TRES
are Slurm's default list in its order (cpu, mem, energy, node, billing, fs/disk, vmem, pages);
memory counts in MB. A job without a time limit is left out: slurmctld would count its
INFINITE limit as minutes, which no site reads as a figure.
"""
from __future__ import annotations

from collections.abc import Iterable

from ..model.associations import AssociationSnapshot
from ..sched.fairshare import AssociationKey, key_of
from ..model.job import Job, JobState
from .job_priorities import association_key

TRES_ORDER = ("cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages")


def tres_run_minutes(jobs: Iterable[Job], associations: AssociationSnapshot, now: int) -> dict[AssociationKey, str]:
    """`cpu=..,mem=..,...` for every association that has a running job below it; the others
    print the list of zeros (`zero_run_minutes`)."""
    totals: dict[AssociationKey, dict[str, int]] = {}
    by_key = {key_of(assoc): assoc for assoc in associations.associations}
    for job in jobs:
        alloc = job.allocation
        if job.state is not JobState.RUNNING or alloc is None or job.request.time_limit_min < 0:
            continue
        left = max(0, job.request.time_limit_min * 60 - (now - job.start_time)) // 60
        held = {"cpu": alloc.total_cpus, "mem": sum(alloc.memory_mb_per_node), "node": len(alloc.nodes),
                "billing": alloc.total_cpus}
        assoc = by_key.get(association_key(job, associations))
        keys = [key_of(a) for a in associations.lineage(assoc)] if assoc is not None else []
        for key in keys:
            total = totals.setdefault(key, {})
            for name, count in held.items():
                total[name] = total.get(name, 0) + count * left
    return {key: _text(total) for key, total in totals.items()}


def zero_run_minutes() -> str:
    return _text({})


def _text(total: dict[str, int]) -> str:
    return ",".join(f"{name}={total.get(name, 0)}" for name in TRES_ORDER)
