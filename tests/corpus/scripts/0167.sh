#!/bin/bash
#SBATCH --job-name=gaussian         # create a short name for your job
#SBATCH --nodes=1                   # node count
#SBATCH --ntasks=8                  # total number of tasks across all nodes
#SBATCH --cpus-per-task=1           # cpu-cores per task (>1 if multi-threaded tasks)
#SBATCH --mem=35G                   # memory per node (4G per cpu-core is default)
#SBATCH --time=00:45:00             # total run time limit (HH:MM:SS)
#SBATCH --mail-type=begin,end,fail  # receive email notifications
#SBATCH --mail-user=<YourNetID>@princeton.edu

module purge
module load gaussian/g16
export PGI_FASTMATH_CPU=haswell

g16 < I16_S1_M1_W_Freq_LS.com > output.log
