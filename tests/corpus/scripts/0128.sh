#!/bin/bash -l
#SBATCH --job-name=example2
#SBATCH --output=example2.out
#
#SBATCH --ntasks=1
#SBATCH --time=0-00:10:00
#SBATCH -p batch
#SBATCH --qos=normal

module load vis/gnuplot

module load lang/Python/2.7.16-GCCcore-8.3.0
python example2.py
module load lang/Python/3.7.4-GCCcore-8.3.0
python example2.py
gnuplot gnuplot/time_vs_array_size.gpi
