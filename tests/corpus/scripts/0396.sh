#!/bin/bash -l
#SBATCH -J ABINIT
#SBATCH -A <project name>
#SBATCH -M --cluster iris 
#SBATCH -N 2
#SBATCH --ntasks-per-node=28
#SBATCH --time=00:30:00
#SBATCH -p batch

# Load the module abinit and needed environment
module purge
module load swenv/default-env/devel # Eventually (only relevant on 2019a software environment) 
module load chem/ABINIT/8.10.2-intel-2019a

srun -n ${SLURM_NTASKS} abinit < input.files &> out
