#!/bin/bash
# Estimate time correctly:
# base_hours = 0.1 * model_params_B * (dataset_size_K / 1000) * epochs
# Add 30% buffer

# Use longer partition
#SBATCH --partition=gpubase_bygpu_b5  # 7 day limit
