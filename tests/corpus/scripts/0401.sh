#!/bin/bash -l
#SBATCH -J CP2K
#SBATCH -N 2
#SBATCH -A <project name>
#SBATCH -M --cluster iris 
#SBATCH --ntasks-per-node=28
#SBATCH --time=00:30:00
#SBATCH -p batch

# Load the module cp2k and needed environment 
module purge
module load swenv/default-env/devel # Eventually (only relevant on 2019a software environment) 
module load chem/CP2K/6.1-intel-2018a 

srun -n ${SLURM_NTASKS} cp2k.popt -i example.inp > outputfile.out
