#!/bin/bash
#SBATCH --ntasks=1                        # one task (one process)
#SBATCH --cpus-per-task=4                 # 4 CPU cores for that task
#SBATCH --gpus-per-task=l40s:1            # one L40S GPU; also: rtx8000:1, a100:1, or :1 for any
#SBATCH --mem-per-gpu=16G                 # or --mem=16G for total
#SBATCH --time=00:15:00                   # HH:MM:SS; after this the job is killed
#SBATCH --partition=unkillable            # see partition table
#SBATCH --output=slurm-%j.out             # %j = job id
#SBATCH --requeue                         # allow requeue after preemption
#SBATCH --signal=B:TERM@300               # send SIGTERM 5 min before time limit
