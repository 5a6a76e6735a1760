#!/bin/sh -l
#SBATCH -A <your project number>
#SBATCH --partition=gpu
#SBATCH --qos=default
#SBATCH -c 128
#SBATCH -t 40
#SBATCH -N 2
#SBATCH --export=ALL

# get host name
hosts_file="hosts.txt"
scontrol show hostname $SLURM_JOB_NODELIST > $hosts_file

# Collect public key and accept them
while read -r node; do
    ssh-keyscan "$node" >> ~/.ssh/known_hosts
done < "$hosts_file"

# Create the host file containing node names and the number of GPUs
function makehostfile() {
perl -e '$slots=split /,/, $ENV{"SLURM_STEP_GPUS"};
$slots=4 if $slots==0;
@nodes = split /\n/, qx[scontrol show hostnames $ENV{"SLURM_JOB_NODELIST"}];
print map { "$b$_ slots=$slots\n" } @nodes'
}
makehostfile > hostfile

# Don't forget to source PDSH each time you need DeepSpeed
source /project/home/p200117/DistributedDeepLearning/soft/pdsh/env.sh

# Launch HuggingFace+DeepSpeed code by varying the number of GPUs and nodes
deepspeed --num_gpus 1 --num_nodes 1  --hostfile hostfile ./LLM2.py > 1.txt
deepspeed --num_gpus 2 --num_nodes 1  --hostfile hostfile ./LLM2.py > 2.txt
deepspeed --num_gpus 4 --num_nodes 1  --hostfile hostfile ./LLM2.py > 4.txt

# 2 nodes, and 4 GPUs per node, it makes 8 GPUs in total:
deepspeed --num_gpus 4  --num_nodes 2 --hostfile hostfile ./LLM2.py > 8.txt
