#!/bin/bash -l
#SBATCH -J Multi-threaded_gurobi
#SBATCH --ntasks-per-node=1
#SBATCH -c 28     # multithreading -- #threads (slurm cpu) per task 
#SBATCH --time=0-01:00:00
#SBATCH -p batch
#SBATCH --qos=normal

# Load Gurobi 
module load math/Gurobi

# Some variable
MPS_FILE=$1
RES_FILE=$2

# Gurobi will access use the required number of thread
gurobi_cl Threads=${SLURM_CPUS_PER_TASK} ResultFile="${RES_FILE}.sol" ${MPS_FILE}
