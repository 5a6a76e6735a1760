#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=2
#SBATCH --mem=2G
#SBATCH --time=00:30:00

srun hostname
