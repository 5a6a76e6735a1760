"""Job ids as squeue -j and sacct -j take them: `123`, `123_7`, `123_[1-3]` in a comma list.

Pure. `parse_job_list` raises ValueError(<item>) for an id that does not parse.
"""
from __future__ import annotations

import re

from pyslurm_common.array_spec import JobSpec, parse_job_spec
from pyslurm_common.rpc import messages as pb

_ITEM = re.compile(r"[^,\[]+(?:\[[^\]]*\])?")   # commas inside brackets belong to the item


def parse_job_list(text: str) -> list[JobSpec]:
    """`12,13_[1,3],14_2` -> specs (a `.step` suffix is ignored)."""
    specs = []
    for item in _ITEM.findall(text):
        try:
            specs.append(parse_job_spec(item.split(".")[0]))
        except ValueError:
            raise ValueError(item) from None
    return specs


def names(spec: JobSpec, job: pb.JobInfo) -> bool:
    """Whether `spec` names `job` (an array id names every record of the array)."""
    task = None if job.array_remainder or not job.array_job_id else int(job.array_task_str)
    return spec.matches(job.job_id, job.array_job_id, task)
