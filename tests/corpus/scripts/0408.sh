#!/bin/bash -l
#SBATCH -J MATHEMATICA
#SBATCH -N 1
#SBATCH -c 28
#SBATCH --time=00:10:00
#SBATCH -p batch
### SBATCH -A <project_name>

# Load the module MATHEMATICA and needed environment
$ module purge
$ module load swenv/default-env/devel # Eventually (only relevant on 2019a software environment) 
$ module load math/Mathematica/12.0.0

$ srun -n ${SLURM_NTASKS} math -run < {mathematica-script-file}.m
