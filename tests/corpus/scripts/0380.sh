#!/bin/bash -l
#SBATCH -J Scalasca
###SBATCH -A <project_name>
#SBATCH -N 2
#SBATCH --ntasks-per-node=28
#SBATCH --time=00:10:00
#SBATCH -p batch

module load purge
module load swenv/default-env/v1.1-20180716-production
module load toolchain/foss/2018a
module load perf/Scalasca/2.3.1-foss-2018a
module load perf/Score-P/3.1-foss-2018a

scalasca -analyze srun -n ${SLURM_NTASKS} ./a.out
