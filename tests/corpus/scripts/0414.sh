#!/bin/bash -l
#SBATCH -J ParaView
###SBATCH -A <project name>
#SBATCH -N 2
#SBATCH --ntasks-per-node=28
#SBATCH --time=00:30:00
#SBATCH -p batch

# Load the module Paraview and needed environment
module purge 
module load swenv/default-env/latest
module load vis/ParaView/5.6.2-intel-2019a-mpi

srun -n ${SLURM_NTASKS} pvbatch python-script.py
