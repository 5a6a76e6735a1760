#!/bin/bash
#SBATCH --nodes=1-1
#SBATCH --ntasks-per-node=8
#SBATCH --output=myjob_output_wrapper.out
#SBATCH --gres=gpu:4
#SBATCH --cpus-per-task=3
srun --gres=gpu:1 --ntasks=2 --mem=30G --label --output=%j-step-%s-task-%t.out --exclusive --multi-prog silly.conf &
srun --gres=gpu:1 --ntasks=2 --mem=30G --label --output=%j-step-%s-task-%t.out --exclusive --multi-prog silly.conf &
srun --gres=gpu:1 --ntasks=2 --mem=30G --label --output=%j-step-%s-task-%t.out --exclusive --multi-prog silly.conf &
srun --gres=gpu:1 --ntasks=2 --mem=30G --label --output=%j-step-%s-task-%t.out --exclusive --multi-prog silly.conf &
wait
