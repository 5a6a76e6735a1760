#!/bin/bash
#SBATCH --output=%x-%j.out
#SBATCH --error=%x-%j.err
