"""srun options that shape how a step is launched, end to end on the shared two-node cluster:
--multi-prog (each rank's program from a configuration file)."""
from __future__ import annotations

from .conftest import Cluster

MULTI_PROG = """# a coupled model: one coordinator, workers, a reader for the rest
0        sh -c 'echo coordinator $(id -un) on $SLURM_NODEID "$@"' sh
1-2      echo worker rank:%t offset:%o
*        echo rest %t
"""


def test_multi_prog_runs_each_ranks_own_program(cluster: Cluster) -> None:
    work = cluster.work_dir("alice")
    (work / "model.conf").write_text(MULTI_PROG)
    result = cluster.run("srun", "-N2", "-n4", "-l", "--multi-prog", "model.conf", "tail-arg", user="alice")
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.splitlines()) == [
        "0: coordinator alice on 0 tail-arg", "1: worker rank:1 offset:0 tail-arg",
        "2: worker rank:2 offset:1 tail-arg", "3: rest 3 tail-arg"], result.stdout


def test_multi_prog_ranks_give_the_task_count(cluster: Cluster) -> None:
    work = cluster.work_dir("bob")
    (work / "two.conf").write_text("0-1 printenv SLURM_STEP_NUM_TASKS\n")
    result = cluster.run("srun", "--multi-prog", "two.conf", user="bob")
    assert (result.returncode, result.stdout) == (0, "2\n2\n"), result.stderr
    (work / "gap.conf").write_text("0 true\n2 true\n")
    refused = cluster.run("srun", "--multi-prog", "gap.conf", user="bob")
    assert (refused.returncode, refused.stderr) == (
        1, "srun: error: Configuration file gap.conf invalid, no record for task id 1\n")
