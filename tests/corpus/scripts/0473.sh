#!/bin/bash
#SBATCH --ntasks=1
#SBATCH ....

exit_script() {
      echo "Preemption signal, saving myself"
      trap - SIGTERM # clear the trap
      # Optional: sends SIGTERM to child/sub processes
      kill -- -$$
}

trap exit_script SIGTERM

# The main script part
python3 my_script
