#!/bin/bash -l
#SBATCH -J ArmForge
###SBATCH -A <project_name>
#SBATCH -N 2
#SBATCH --ntasks-per-node 28
#SBATCH --time=00:10:00
#SBATCH -p batch

module purge
module load swenv/default-env/v1.2-20191021-production
module load toolchain/intel/2019a
module load tools/ArmForge/19.1
module load tools/ArmReports/19.1

# for debugging
$ ddt srun -n ${SLURM_NTASKS} ./a .out

# for profiling
$ map srun -n ${SLURM_NTASKS} ./a .out

# for analysis
$ perf-report srun -n ${SLURM_NTASKS} ./a .out
