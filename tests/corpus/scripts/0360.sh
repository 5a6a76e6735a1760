#!/bin/sh -l
#SBATCH --job-name=tuto_dask_workers # Name of the job
#SBATCH --nodes=2                   # Number of nodes
#SBATCH --cpus-per-task=4           # Number of CPU cores per task
#SBATCH --time=2:00:00              # Wall clock time limit (hh:mm:ss)

DASK_SCHEDULER_FILE=/home/users/ppochelu/project/bigdata_tuto/dask/scheduler.json

source /home/users/ppochelu/program/miniconda/scripts/env.sh

srun --nodes=$SLURM_JOB_NUM_NODES --output worker-%j.log   dask-worker --interface "ib0"  --nthreads 4 --memory-limit 0 --scheduler-file $DASK_SCHEDULER_FILE
