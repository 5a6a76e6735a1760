"""The real clients' own command lines, on real Slurm and on pyslurm, as the ordinary user alice.

Each case replays what a client sends and reads, taken from its source: submitit's Slurm executor
(submitit/slurm/slurm.py: the generated script, `sacct -o JobID,State,NodeList --parsable2 -j ..`,
`scancel <id> --signal SIGTERM|SIGUSR2`), dask-jobqueue's SLURMJob (its job script, `sbatch <file>`,
`scancel <id>`), snakemake-executor-plugin-slurm (`scontrol show config` for MinJobAge, its sbatch
call, the `sacct`/`squeue --name <run uuid>` status queries), Open OnDemand's ood_core (`squeue
-O ..` with unit separators, `sacct -P --delimiter ..`), Nextflow's SlurmExecutor (`squeue
--noheader -o '%i %t' -t all`).
"""
from __future__ import annotations

from typing import Iterator

import pytest

from .conftest import Config, pair_for
from .harness import Case, Pair, Run, Wait, Write, case_ids, differs, report
from .real_slurm import Accounting

US = "\x1f"
# What submitit's _make_sbatch_string writes (folder "logs", timeout_min=2, mem_gb=0.1,
# slurm_partition="debug"), with a command that keeps the job's variables.
SUBMITIT_SCRIPT = """\
#!/bin/bash

# Parameters
#SBATCH --error={WORK}/logs/%j_0_log.err
#SBATCH --job-name=submitit
#SBATCH --mem=100MB
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=1
#SBATCH --open-mode=append
#SBATCH --output={WORK}/logs/%j_0_log.out
#SBATCH --partition=debug
#SBATCH --signal=USR2@90
#SBATCH --time=2
#SBATCH --wckey=submitit

# command
export SUBMITIT_EXECUTOR=slurm
srun --unbuffered --output {WORK}/logs/%j_%t_log.out --error {WORK}/logs/%j_%t_log.err sh -c 'env | sort > env.$SLURM_JOB_ID.$SLURM_STEP_ID'
"""
# dask_jobqueue.slurm.SLURMJob(cores=1, processes=1, memory="400MB", walltime="00:05:00",
# queue="debug", log_directory="dask-logs", job_extra_directives=["--wckey=dask"]).job_script()
DASK_SCRIPT = """\
#!/usr/bin/env bash

#SBATCH -J dask-worker
#SBATCH -e dask-logs/dask-worker-%J.err
#SBATCH -o dask-logs/dask-worker-%J.out
#SBATCH -p debug
#SBATCH -n 1
#SBATCH --cpus-per-task=1
#SBATCH --mem=382M
#SBATCH -t 00:05:00
#SBATCH --wckey=dask

env | sort > env.$SLURM_JOB_ID.batch
sleep 300
"""
RUN_UUID = "6d1e0e44-5b1f-4c1c-9d8e-2f0a4b3c9e71"
# the plugin's sbatch call for rule `count` (submit_string.get_submit_command), and its queries
SNAKEMAKE_SBATCH = (f"sbatch --parsable --job-name {RUN_UUID} --output {{WORK}}/slurm_logs/rule_count/%j.log "
                    "--export=ALL --comment rule_count_wildcards_a -p debug -t 5 --mem 400 --ntasks=1 "
                    "--cpus-per-task=1 -D {WORK} --wrap='env | sort > env.$SLURM_JOB_ID.batch'")
SNAKEMAKE_SACCT = (f"sacct -X --parsable2 --clusters all --noheader --format=JobIdRaw,State "
                   f"--starttime 2026-01-01T00:00 --endtime now --name {RUN_UUID}")
SNAKEMAKE_SQUEUE = f"squeue --format=%i|%T --states=all --noheader --name {RUN_UUID}"
OOD_SQUEUE = ("squeue --all --states=all --noconvert -O " + "".join(
    f"{field}:{US}," for field in ("Account", "JobID", "MinCpus", "NumCPUs", "NumNodes", "Dependency",
                                   "ArrayJobID", "GroupName", "JobArrayID", "Name", "Comment", "ArrayTaskID",
                                   "TimeLimit", "MinMemory", "ReqNodes", "Contiguous", "QOS", "Partition",
                                   "Reason", "StateCompact", "State", "UserName", "WCKey", "Licenses",
                                   "ExcNodes", "Nice", "SCT", "WorkDir", "tres-per-node"))
              + " -u alice -j {J1}")
OOD_SACCT = (f"sacct -P --delimiter {US} -n --units G --allocations -o User,Group,JobId,JobName,ReqMem,"
             "AllocCPUS,ReqCPUS,Timelimit,State,Partition,ReqTRES -j {J1}")
SLURM_VARIABLES = r"^SLURM_"

# submitit's job run to its end; dask's worker job started (steps both sides play first)
SUBMITIT_RUN = (Run("mkdir -p logs"), Write("submitit.sh", SUBMITIT_SCRIPT), Run("sbatch submitit.sh"),
                Wait("J1", ("COMPLETED",), accounting=True))
DASK_RUN = (Run("mkdir -p dask-logs"), Write("dask-job.sh", DASK_SCRIPT), Run("sbatch dask-job.sh"),
            Wait("J1", ("RUNNING",)))

CASES = [
    Case("submitit: its script, its sacct watcher", (
        *SUBMITIT_RUN,
        Run("sacct -o JobID,State,NodeList --parsable2 -j {J1}"),
    )),
    pytest.param(Case("submitit: the srun step's SLURM_* variables", (
        *SUBMITIT_RUN,
        Run("cat env.{J1}.0", lines=SLURM_VARIABLES),
    )), marks=differs("step environment: Slurm sets SLURM_CPU_BIND* (task/affinity), SLURM_DISTRIBUTION=cyclic, "
                      "SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0, SLURM_OPEN_MODE=a; pyslurm says block and adds "
                      "SLURM_UNBUFFEREDIO")),
    Case("submitit: one sacct for several jobs (-j repeated)", (
        Run("sbatch --parsable --wrap true"),
        Run("sbatch --parsable --wrap true"),
        Wait("J1", ("COMPLETED",), accounting=True),
        Wait("J2", ("COMPLETED",), accounting=True),
        Run("sacct -o JobID,State,NodeList --parsable2 -j {J1} -j {J2}"),
    )),
    Case("submitit: preemption signals by scancel --signal, then a cancel", (
        Run("sbatch --parsable --wrap 'trap \"\" TERM USR2; sleep 300'"),
        Wait("J1", ("RUNNING",)),
        Run("scancel {J1} --signal SIGTERM"),
        Run("scancel {J1} --signal SIGUSR2"),
        Run("squeue -h -j {J1} -o '%T %r'"),
        Run("scancel {J1}"),
        Wait("J1", ("CANCELLED",), accounting=True),
        Wait("J1.batch", ("CANCELLED",), accounting=True),
        Run("sacct -o JobID,State,NodeList --parsable2 -j {J1}"),
    )),
    Case("dask-jobqueue: its worker script, squeue of it, scale-down scancel", (
        *DASK_RUN,
        Run("squeue -h -j {J1} -o '%u|%j|%P|%C|%m|%l|%T'"),
        Run("scontrol show job {J1}", lines=r"^\s*(JobName|NumNodes|TRES|MinCPUsNode|WorkDir)="),
        Run("scancel {J1}"),
        Wait("J1", ("CANCELLED",), accounting=True),
    )),
    Case("dask-jobqueue: scontrol show job's StdOut/StdErr of -o/-e with %J", (
        *DASK_RUN[:2],
        Run("sbatch -H dask-job.sh"),
        Run("scontrol show job {J1}", lines=r"^\s*(StdErr|StdOut)="),
    )),
    Case("dask-jobqueue: the batch script's SLURM_* variables", (
        *DASK_RUN,
        Run("sh -c 'while ! test -s env.{J1}.batch; do sleep 0.2; done'"),
        Run("cat env.{J1}.batch", lines=SLURM_VARIABLES),
    )),
    Case("snakemake slurm plugin: MinJobAge, its sbatch call, both status queries", (
        Run("scontrol show config", lines=r"^MinJobAge "),
        Run("mkdir -p slurm_logs/rule_count"),
        Run(SNAKEMAKE_SBATCH),
        Wait("J1", ("COMPLETED",), accounting=True),
        Run(SNAKEMAKE_SACCT),
        Run(SNAKEMAKE_SQUEUE),
        Run("sacct -j {J1} -n -X -o nodelist%-256"),
    )),
    Case("snakemake slurm plugin: the batch variables of --export=ALL", (
        Run(SNAKEMAKE_SBATCH.replace("--output {WORK}/slurm_logs/rule_count/%j.log", "--output /dev/null")),
        Wait("J1", ("COMPLETED",), accounting=True),
        Run("cat env.{J1}.batch", lines=SLURM_VARIABLES),
    )),
    pytest.param(Case("Open OnDemand: squeue -O with unit separators, sacct --delimiter", (
        Run("sbatch -J ood_app -o ood.out -H -t 00:05:00 -n 1 --export NONE --parsable", stdin="#!/bin/bash\nsleep 60\n"),
        Run(OOD_SQUEUE),
        Run("scontrol release {J1}"),
        Wait("J1", ("RUNNING",)),
        Run("scancel {J1}"),
        Wait("J1", ("CANCELLED",), accounting=True),
        Run(OOD_SACCT),
    )), marks=differs("DefMemPerCPU=100: Slurm gives a job without --mem 100M (MinMemory, ReqMem, ReqTRES mem=); "
                      "pyslurm shows 0 and no mem in ReqTRES")),
    Case("Open OnDemand: a job with --mem, squeue -O with unit separators, sacct --delimiter", (
        Run("sbatch -J ood_app -o ood.out -H -t 00:05:00 -n 1 --mem 200M --export NONE --parsable",
            stdin="#!/bin/bash\nsleep 60\n"),
        Run(OOD_SQUEUE),
        Run("scontrol release {J1}"),
        Wait("J1", ("RUNNING",)),
        Run("scancel {J1}"),
        Wait("J1", ("CANCELLED",), accounting=True),
        Run(OOD_SACCT),
    )),
    Case("Nextflow: squeue --noheader -o '%i %t' -t all -p debug -u alice, one job", (
        Run("sbatch --parsable -H --no-requeue --signal B:USR2@30 -c 2 -t 00:10:00 --mem 100M -p debug -J nf-x "
            "--wrap true"),
        Run("squeue --noheader -o '%i %t' -t all -p debug -u alice -j {J1}"),
        Run("scancel {J1}"),
        Run("squeue --noheader -o '%i %t' -t all -p debug -u alice -j {J1}"),
    )),
    Case("squeue's default order over states (-t all)", (
        Run("sbatch --parsable --wrap true"),
        Wait("J1", ("COMPLETED",)),
        Run("sbatch --parsable -H --wrap true"),
        Run("sbatch --parsable -H --wrap true"),
        Run("scancel {J3}"),
        Run("squeue --noheader -o '%i %t' -t all -u alice -j {J1},{J2},{J3}"),
    )),
]


@pytest.fixture(scope="module")
def pair(real_accounting: Accounting) -> Iterator[Pair]:
    with pair_for(real_accounting, Config()) as p:
        yield p


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_client_command_lines(pair: Pair, case: Case) -> None:
    problems = pair.play(case)
    assert not problems, report(case, problems)
