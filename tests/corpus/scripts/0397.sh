#!/bin/bash -l
#SBATCH -J ASE
#SBATCH -N 1
#SBATCH -A <project name>
#SBATCH -M --cluster iris 
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:30:00
#SBATCH -p batch

# Load the module ase and needed environment
$ module purge
$ module load swenv/default-env/devel # Eventually (only relevant on 2019a software environment) 
$ module load chem/ASE/3.17.0-intel-2019a-Python-3.7.2

python3 example.py
