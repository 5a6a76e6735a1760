"""sbatch -W/--wait: stay until the job (every task of an array) has ended, then exit with its
exit code, the highest of an array's tasks, as Slurm's sbatch does."""
from __future__ import annotations

import time

from pyslurm_common.job_states import ACTIVE_STATES, JobState
from pyslurm_common.rpc import messages as pb

from . import client

ENDED_NOT = ACTIVE_STATES | {"COMPLETING", "STAGE_OUT", JobState.REQUEUED}
FIRST_POLL, MAX_POLL = 0.5, 10.0   # seconds; Slurm's sbatch backs off the same way, to 10 s


def wait_for_end(job_id: int) -> int:
    delay = FIRST_POLL
    while True:
        jobs = client.controller("GetJobs", pb.JobQuery(job_ids=[job_id]), pb.JobList).jobs
        if not any(job.state in ENDED_NOT or job.completing for job in jobs):
            return max((job.exit_code for job in jobs), default=0)
        time.sleep(delay)
        delay = min(delay * 2, MAX_POLL)
