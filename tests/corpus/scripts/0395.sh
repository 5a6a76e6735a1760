#!/bin/bash -l
#SBATCH -J OpenFOAM
#SBATCH -N 1
#SBATCH --ntasks-per-node=28
#SBATCH --ntasks-per-socket=14
#SBATCH -c 1
#SBATCH --time=00:30:00
#SBATCH -p batch

# Write out the stdout+stderr in a file
#SBATCH -o output.txt

# Mail me on job start & end
#SBATCH --mail-user=myemailaddress@universityname.domain
#SBATCH --mail-type=BEGIN,END

# To get basic info. about the job
echo "== Starting run at $(date)"
echo "== Job ID: ${SLURM_JOBID}"
echo "== Node list: ${SLURM_NODELIST}"
echo "== Submit dir. : ${SLURM_SUBMIT_DIR}"

# Load the required version of OpenFOAM and needed environment
module purge
module load swenv/default-env/v1.1-20180716-production
module load cae/OpenFOAM/v1712-intel-2018a

# Load the OpenFOAM environment
source $FOAM_BASH

srun interFoam -parallel
