#!/bin/bash
#SBATCH -A myproject
