#!/bin/bash -l
#SBATCH --job-name=c_compare
#SBATCH --output=c_compare.out
#
#SBATCH --ntasks=1
#SBATCH --time=0-00:10:00
#SBATCH -p batch
#SBATCH --qos=normal

module load vis/gnuplot

source pythran/bin/activate

python example1.py
python example3.py
pythran example4.py -o std.so
python c_compare.py

gnuplot gnuplot/time_vs_array_size.gpi
