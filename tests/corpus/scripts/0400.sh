#!/bin/bash -l
#SBATCH -J QuantumESPRESSO
#SBATCH -N 2
#SBATCH -A <project name>
#SBATCH -M --cluster iris 
#SBATCH --ntasks-per-node=28
#SBATCH --time=00:30:00
#SBATCH -p batch

# Load the module quantumespresso and needed environment 
module purge
module load swenv/default-env/devel # Eventually (only relevant on 2019a software environment) 
module load chem/QuantumESPRESSO/6.4.1-intel-2019a

srun -n ${SLURM_NTASKS} pw.x -input example.inp
