#!/bin/bash
#SBATCH --job-name=eval
#SBATCH --gres=gpu:h100:1
#SBATCH --time=6:00:00

source $PROJECT/envs/hf-trl/bin/activate

lm-eval --model hf \
    --model_args pretrained=$MODEL \
    --tasks $TASKS \
    --batch_size auto \
    --output_path ./results_$SLURM_JOB_ID
