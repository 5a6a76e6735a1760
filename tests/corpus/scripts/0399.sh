#!/bin/bash -l
#SBATCH -J Meep
#SBATCH -N 2
#SBATCH -A <project name>
#SBATCH -M --cluster iris 
#SBATCH --ntasks-per-node=28
#SBATCH --time=00:30:00
#SBATCH -p batch

# Load the module meep and needed environment 
module purge
module load swenv/default-env/devel # Eventually (only relevant on 2019a software environment) 
module load toolchain/intel/2019a
module load phys/Meep/1.4.3-intel-2019a

srun -n ${SLURM_NTASKS} meep example.ctl > result_output
