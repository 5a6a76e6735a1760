#!/bin/bash
#SBATCH --ntasks=2 --gres=gpu:1 --cpus-per-task=4 --mem=18G
srun --label --output=out_%t.out python script "$@"
