#!/bin/bash
#SBATCH --nodes=3
#SBATCH --ntasks=3
#SBATCH --gpus-per-node=4
#SBATCH --cpus-per-gpu=4

RDV_ADDR=$(hostname)

srun --label torchrun \
   --nproc_per_node=$SLURM_GPUS_PER_NODE \
   --nnodes=$SLURM_JOB_NUM_NODES \
   --rdzv_id=$SLURM_JOB_ID \
   --rdzv_backend=c10d \
   --rdzv_endpoint=$RDV_ADDR \
   training_script.py
