#!/bin/bash -l                                                                                                 
#SBATCH -J FEniCS                                                                                        
#SBATCH -N 1
###SBATCH -A <project name>
###SBATCH --ntasks-per-node=1
#SBATCH -c 1
#SBATCH --time=00:05:00                                                                      
#SBATCH -p batch

echo "== Starting run at $(date)"                                                                                             
echo "== Job ID: ${SLURM_JOBID}"                                                                                            
echo "== Node list: ${SLURM_NODELIST}"                                                                                       
echo "== Submit dir. : ${SLURM_SUBMIT_DIR}"

# activate the anaconda source 
source ${SCRATCH}/Anaconda3/bin/activate

# activate the fenicsproject from anaconda 
conda activate fenicsproject

# execute the poisson.py through python
srun python3 Poisson.py  
