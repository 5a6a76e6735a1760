#!/bin/bash
#SBATCH --nodes=1 --gres=gpu:4 --ntasks-per-node=4 --cpus-per-task=6
srun --gres=gpu:1 --ntasks=1 --mem=30G --exclusive python script args1 &
srun --gres=gpu:1 --ntasks=1 --mem=30G --exclusive python script args2 &
srun --gres=gpu:1 --ntasks=1 --mem=30G --exclusive python script args3 &
srun --gres=gpu:1 --ntasks=1 --mem=30G --exclusive python script args4 &
wait
