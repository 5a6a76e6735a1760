#!/bin/bash -l
#SBATCH -J Julia
###SBATCH -A <project name>
#SBATCH --ntasks-per-node 1
#SBATCH -c 1
#SBATCH --time=00:15:00
#SBATCH -p batch

# Load the module Julia and needed environment
module purge
module load swenv/default-env/devel # Eventually (only relevant on 2019a software environment) 
module load lang/Julia/1.3.0

julia {example}.jl
