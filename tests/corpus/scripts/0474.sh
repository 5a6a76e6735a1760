#!/bin/bash
#SBATCH --ntasks-per-node=2
#SBATCH --output=myjob_output_wrapper.out
#SBATCH --ntasks=2
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=4
#SBATCH --mem=18G
srun --label --output=myjob_output_%t.out python script args
