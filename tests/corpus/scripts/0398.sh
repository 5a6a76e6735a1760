#!/bin/bash -l
#SBATCH -J CRYSTAL
#SBATCH -N 2
#SBATCH -A <project name>
#SBATCH -M --cluster iris 
#SBATCH --ntasks-per-node=28
#SBATCH --time=00:30:00
#SBATCH -p batch

# Load the module crytal and needed environment
$ module purge
$ module load swenv/default-env/devel    # Eventually (only relevant on 2019a software environment) 
$ module load chem/CRYSTAL/17-intel-2019a-1.0.2

srun -n ${SLURM_NTASKS} Pcrystal >& log.out
