#!/bin/bash -l
#SBATCH -J NWChem
#SBATCH -N 2
#SBATCH -A <project name>
#SBATCH -M --cluster iris 
#SBATCH --ntasks-per-node=28
#SBATCH --time=00:30:00
#SBATCH -p batch

# Load the module nwchem and needed environment 
module purge 
module load swenv/default-env/devel # Eventually (only relevant on 2019a software environment) 
module load chem/NWChem/6.8.revision47-intel-2019a-Python-2.7.15

srun -n ${SLURM_NTASKS} nwchem example 
