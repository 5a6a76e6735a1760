"""sbatch/srun --test-only: ask the controller when and where the job would start; nothing is
queued (the job id is used up, as Slurm's). Lines and exit codes are real Slurm 22.05's: the
answer on stderr and exit 0; a refusal as `allocation failure: <reason>` and exit 1."""
from __future__ import annotations

import sys
import time
from typing import NoReturn

from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client


def test_only(prog: str, desc: pb.JobDesc) -> NoReturn:
    try:
        reply = client.controller("SubmitBatchJob", pb.SubmitRequest(job=desc, test_only=True), pb.SubmitReply)
    except SlurmError as exc:
        if exc.detail:
            print(f"{prog}: error: {exc.detail}", file=sys.stderr)
        print(f"allocation failure: {exc.strerror}", file=sys.stderr)
        raise SystemExit(1)
    start = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(reply.start_time))
    print(f"{prog}: Job {reply.job_id} to start at {start} using {reply.cpus} processors on nodes "
          f"{reply.nodes} in partition {reply.partition}", file=sys.stderr)
    raise SystemExit(0)
