#!/bin/bash
#SBATCH --nodes=1-1
#SBATCH --ntasks-per-node=4
#SBATCH --output=myjob_output_wrapper.out
#SBATCH --gres=gpu:4
#SBATCH --cpus-per-task=6
srun --gres=gpu:1 --ntasks=1 --mem=30G --label --output=%j-step-%s.out --exclusive --multi-prog python script args1 &
srun --gres=gpu:1 --ntasks=1 --mem=30G --label --output=%j-step-%s.out --exclusive --multi-prog python script args2 &
srun --gres=gpu:1 --ntasks=1 --mem=30G --label --output=%j-step-%s.out --exclusive --multi-prog python script args3 &
srun --gres=gpu:1 --ntasks=1 --mem=30G --label --output=%j-step-%s.out --exclusive --multi-prog python script args4 &
wait
