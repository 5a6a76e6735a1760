"""Policy scenarios on real Slurm and on pyslurm, as alice and root: dependencies, arrays,
hold/release, requeue, nice, and what a user may not do. Cases are data (harness.Case); a new
scenario is a new entry, a new slurm.conf a new module with its own Config."""
from __future__ import annotations

from typing import Iterator

import pytest

from .conftest import Config, pair_for
from .harness import Case, Pair, Run, Wait, case_ids, report
from .real_slurm import Accounting

SHOW = "squeue -h -t all -o '%i %T %r %E' -j {J1},{J2}"
# the 4 tasks of array J1 COMPLETED in accounting (Wait follows one job id; records come one by one)
ALL_COMPLETED = ("timeout 90 sh -c 'until [ \"$(sacct -X -n -P -o State -j {J1} | grep -c COMPLETED)\" = 4 ]; "
                 "do sleep 0.5; done'")


CASES = [
    Case("afterok: pending on an unfinished job, started after it", (
        Run("sbatch --parsable --wrap 'sleep 3'"),
        Run("sbatch --parsable -d afterok:{J1} --wrap true"),
        Wait("J1", ("RUNNING",)),
        Run("squeue -h -o '%i %T %r %E' -j {J2}"),
        Wait("J2", ("COMPLETED",), timeout=60),
        Run("sacct -X -n -P -o JobID,State,ExitCode -j {J1},{J2}"),
    )),
    Case("afternotok of a job that succeeded: never satisfied", (
        Run("sbatch --parsable --wrap true"),
        Run("sbatch --parsable -d afternotok:{J1} --wrap true"),
        Wait("J1", ("COMPLETED",)),
        Run("sh -c 'sleep 3'"),
        Run("squeue -h -o '%i %T %r' -j {J2}"),
    )),
    Case("singleton: the second of a name waits for the first", (
        Run("sbatch --parsable -J solo --wrap 'sleep 30'"),
        Run("sbatch --parsable -J solo -d singleton --wrap true"),
        Wait("J1", ("RUNNING",)),
        Run("sh -c 'sleep 2'"),
        Run(SHOW),
    )),
    Case("a dependency on a job that does not exist is refused", (
        Run("sbatch --parsable -d afterok:99999 --wrap true"),
    )),
    Case("array with a throttle, held then released: squeue folded and -r", (
        Run("sbatch --parsable -H --array=0-3%1 --wrap true"),
        Run("squeue -h -o '%i %T %r'"),
        Run("squeue -h -r -o '%i %T %r'"),
        Run("scontrol release {J1}"),
        Run(ALL_COMPLETED),
        Run("sacct -X -n -P -o JobID,State -j {J1}", sort=True),
    )),
    Case("user hold, admin hold: who may release which", (
        Run("sbatch --parsable -H --wrap true"),
        Run("squeue -h -o '%i %T %r' -j {J1}"),
        Run("scontrol hold {J1}", user="root"),
        Run("squeue -h -o '%i %T %r' -j {J1}"),
        Run("scontrol release {J1}"),
        Run("squeue -h -o '%i %T %r' -j {J1}"),
        Run("scontrol release {J1}", user="root"),
        Wait("J1", ("COMPLETED",)),
    )),
    # (right after the requeue real Slurm shows the job COMPLETING until its processes are gone,
    # pyslurm PENDING at once; how long that lasts is the machine's, so it is not compared)
    Case("scontrol requeue of a running job, by its owner", (
        Run("sbatch --parsable --wrap 'sleep 60'"),
        Wait("J1", ("RUNNING",)),
        Run("scontrol requeue {J1}"),
        Wait("J1", ("PENDING",)),
        Run("scontrol show job {J1}", lines=r"^\s*(JobState|Requeue)="),
        Run("squeue -h -o '%i %T %r' -j {J1}"),
    )),
    Case("requeue of a job submitted with --no-requeue is refused", (
        Run("sbatch --parsable --no-requeue --wrap 'sleep 60'"),
        Wait("J1", ("RUNNING",)),
        Run("scontrol requeue {J1}"),
    )),
    Case("--nice: the user may raise it; scontrol update to below 0 is refused", (
        Run("sbatch --parsable -H --nice=100 --wrap true"),
        Run("squeue -h -o '%i %y' -j {J1}"),
        Run("scontrol update JobId={J1} Nice=-10"),
        Run("squeue -h -o '%i %y' -j {J1}"),
    )),
    Case("sbatch --nice below 0 by a user", (
        Run("sbatch --parsable -H --nice=-5 --wrap true"),
    )),
    Case("a user may shorten a pending job's time limit", (
        Run("sbatch --parsable -H -t 10 --wrap true"),
        Run("scontrol update JobId={J1} TimeLimit=5"),
        Run("squeue -h -o '%i %l' -j {J1}"),
    )),
    Case("a user lengthens a pending job's time limit (partition MaxTime=INFINITE)", (
        Run("sbatch --parsable -H -t 10 --wrap true"),
        Run("scontrol update JobId={J1} TimeLimit=20"),
        Run("squeue -h -o '%i %l' -j {J1}"),
    )),
    Case("--qos: one that does not exist is refused", (
        Run("sbatch --parsable -H --qos=nosuch --wrap true"),
    )),
    Case("--qos: one the administrator adds, outside alice's association (enforce=associations only)", (
        Run("sacctmgr -i add qos dhigh Priority=100", user="root", compare=("rc",)),
        Run("sh -c 'sleep 2'"),                  # the controllers hear of it from accounting
        Run("sbatch --parsable -H --qos=dhigh --wrap true"),
        Run("squeue -h -o '%i %q %r' -j {J1}"),
        Run("sbatch --parsable -H --wrap true"),
        Run("scontrol update JobId={J2} QOS=dhigh"),
        Run("squeue -h -o '%i %q' -j {J2}"),
    )),
    Case("another user's job: scancel, hold and update are refused", (
        Run("sbatch --parsable -H --wrap true", user="root"),
        Run("scancel {J1}"),
        Run("scontrol hold {J1}"),
        Run("scontrol update JobId={J1} TimeLimit=5"),
        Run("squeue -h -t all -o '%i %T %r' -j {J1}", user="root"),
    )),
]


@pytest.fixture(scope="module")
def pair(real_accounting: Accounting) -> Iterator[Pair]:
    with pair_for(real_accounting, Config()) as p:
        yield p


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_policy_scenario(pair: Pair, case: Case) -> None:
    problems = pair.play(case)
    assert not problems, report(case, problems)
