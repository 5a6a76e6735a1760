#!/bin/bash
#SBATCH --requeue
#SBATCH --signal=B:TERM@300           # SIGTERM 5 min before time limit

exec srun uv run python main.py       # exec so signals reach Python directly
