#!/bin/bash
#SBATCH --output=logs/%x-%j.out
#SBATCH --error=logs/%x-%j.err
