#!/bin/bash -l
#SBATCH -J GROMAC
#SBATCH -N 2
#SBATCH -A <project name>
#SBATCH -M --cluster iris 
#SBATCH --ntasks-per-node=28
#SBATCH --time=00:30:00
#SBATCH -p batch

# Load the module gromacs and needed environment 
module purge
module load swenv/default-env/devel # Eventually (only relevant on 2019a software environment) 
module load bio/GROMACS/2019.2-intel-2019a

srun -n ${SLURM_NTASKS} gmx_mpi mdrun <all your GMX job specification options in here>
