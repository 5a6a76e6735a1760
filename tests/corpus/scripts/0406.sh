#!/bin/bash -l
#SBATCH -J Julia
###SBATCH -A <project name>
#SBATCH -N 1
#SBATCH --ntasks-per-node 28
#SBATCH --time=00:10:00
#SBATCH -p batch

# Load the module Julia and needed environment
module purge
module load swenv/default-env/devel # Eventually (only relevant on 2019a software environment) 
module load lang/Julia/1.3.0

srun -n ${SLURM_NTASKS} julia {example}.jl
