"""srun outside an allocation makes its job and first step in one call to the controller
(cli/srun_allocation.py, pyslurm_ctld/rpc/allocation_rpcs.py), where it made three (submit, wait,
CreateStep); a job the controller leaves pending goes the way it always went. The real srun code
runs as alice against the real daemons, with the calls it hands the auth agent written down."""
from __future__ import annotations

import re
import sys

from .conftest import Cluster, wait_for

# srun's own main, with every request it sends the local auth agent noted on stderr as it exits,
# and whether protobuf's well_known_types module was loaded by then. srun ends with os._exit
# (cli/app.run_as_process: no interpreter teardown), so that is where both are noted.
COUNTED_SRUN = """
import os, sys
from pyslurm_common.agent import client as agent_client
real, methods = agent_client.start, []
def counted(socket_path, method, *args, **kwargs):
    methods.append(method.rsplit("/", 1)[-1])
    return real(socket_path, method, *args, **kwargs)
agent_client.start = counted
real_exit = os._exit
def noted_exit(code):
    print("well_known_types:", "google.protobuf.internal.well_known_types" in sys.modules, file=sys.stderr)
    print("calls:", *methods, file=sys.stderr, flush=True)
    real_exit(code)
os._exit = noted_exit
from cli.srun import main
main()
"""


def counted_srun(cluster: Cluster, *args: str) -> tuple[int, str, list[str], list[str]]:
    """(exit code, stdout, stderr lines before the call list, the controller methods called)."""
    result = cluster.run(sys.executable, "-c", COUNTED_SRUN, *args, user="alice")
    *said, well_known_types, calls = result.stderr.splitlines()
    assert calls.startswith("calls:"), result.stderr   # srun ended through os._exit
    assert well_known_types == "well_known_types: False", result.stderr
    return result.returncode, result.stdout, said, calls.split()[1:]


def test_a_granted_job_and_its_step_take_one_call(cluster: Cluster) -> None:
    code, out, said, calls = counted_srun(cluster, "-n2", "-l", "sh", "-c", "echo $SLURM_JOB_ID.$SLURM_STEP_ID")
    assert (code, said, calls) == (0, [], ["AllocateWithStep"])
    lines = sorted(out.splitlines())
    job_id = lines[0].split()[1].split(".")[0]
    assert lines == [f"0: {job_id}.0", f"1: {job_id}.0"]
    wanted = [f"{job_id}|COMPLETED|0:0", f"{job_id}.0|COMPLETED|0:0"]   # once the accounting daemon has both
    wait_for(lambda: cluster.run("sacct", "-n", "-P", "-j", job_id, "-o", "JobID,State,ExitCode",
                                 user="alice").stdout.splitlines() == wanted)


def test_verbose_lines_and_a_failing_task_are_unchanged(cluster: Cluster) -> None:
    code, _, said, calls = counted_srun(cluster, "-v", "sh", "-c", "exit 3")
    assert (code, calls) == (3, ["AllocateWithStep"])
    allocated = [line for line in said if re.fullmatch(r"srun: jobid \d+: nodes\(1\):`node\d', cpu counts: \d+",
                                                         line)]
    assert len(allocated) == 1, said
    assert re.fullmatch(r"srun: error: node\d: task 0: Exited with exit code 3", said[-1]), said


def test_a_job_left_pending_is_waited_for_and_its_step_created_after(cluster: Cluster) -> None:
    code, out, said, calls = counted_srun(cluster, "--begin=now+2", "echo", "late")
    assert (code, out) == (0, "late\n"), said
    assert len(said) == 2, said
    queued = re.fullmatch(r"srun: job (\d+) queued and waiting for resources", said[0])
    assert queued, said
    assert said[1] == f"srun: job {queued.group(1)} has been allocated resources"
    assert calls[0] == "AllocateWithStep" and calls[-1] == "CreateStep", calls
    assert set(calls[1:-1]) == {"WaitAllocation"}, calls
