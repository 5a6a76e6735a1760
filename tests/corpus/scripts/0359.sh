#!/bin/sh -l
#SBATCH --job-name=tuto_dask_scheduler # Name of the job
#SBATCH --nodes=1                           # Number of nodes
#SBATCH --ntasks-per-node=1          # Number of tasks (processes) per node
#SBATCH --cpus-per-task=1              # Number of CPU cores per task
#SBATCH --time=2:00:00                   # Wall clock time limit (hh:mm:ss)
#SBATCH --output=scheduler.log     # Output file name

# Customize the path to the scheduler network configuration file. The file allows to inform workers and client of the IP and port of the scheduler.
DASK_SCHEDULER_FILE=~/scheduler.json

# Load your environement
source /home/users/ppochelu/program/miniconda/scripts/env.sh

dask-scheduler ---interface "ib0" --scheduler-file $DASK_SCHEDULER_FILE
