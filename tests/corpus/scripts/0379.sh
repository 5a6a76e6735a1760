#!/bin/bash -l
#SBATCH -J Scalasca
###SBATCH -A <project_name>
#SBATCH -N 1
#SBATCH -c 16
#SBATCH --time=00:10:00
#SBATCH -p batch

module load purge
module load swenv/default-env/v1.1-20180716-production
module load toolchain/foss/2018a
module load perf/Scalasca/2.3.1-foss-2018a
module load perf/Score-P/3.1-foss-2018a

export OMP_NUM_THREADS=16

# analyze
scalasca -analyze ./a.out
